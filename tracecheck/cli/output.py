"""Writing what a command produces: text to a stream, bytes to a file or stdout, colours when
the stream is a terminal, and a reader that goes away (`| head -1`) ending the output quietly."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TextIO

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment

__all__ = [
    "append_summary",
    "encoded",
    "joined",
    "print_parts",
    "silence",
    "use_color",
    "write_parts",
]


def write_parts(env: Environment, target: str, parts: Iterable[bytes]) -> None:
    """The parts, one after another, to a file (its folders made) or `-` for stdout."""
    if target == "-":
        try:
            env.stdout.flush()
            for part in parts:
                env.stdout.buffer.write(part)
            env.stdout.flush()
        except BrokenPipeError:
            silence(env.stdout)
        return
    try:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)  # `--junit reports/out.xml` in CI
        with path.open("wb") as out:
            for part in parts:
                out.write(part)
    except OSError as exc:
        env.error(f"{target}: cannot write: {exc.strerror or exc}")
        raise Stop(ExitCode.USAGE) from None


def append_summary(env: Environment, target: str, parts: Iterable[str]) -> None:
    """A job summary appended to the file GitHub Actions names (`$GITHUB_STEP_SUMMARY`),
    part by part. A summary that cannot be written is a warning: the outcome stands."""
    try:
        with Path(target).open("a", encoding="utf-8", errors="backslashreplace") as out:
            for part in parts:
                out.write(part)
    except OSError as exc:
        print(
            f"tracecheck: warning: $GITHUB_STEP_SUMMARY ({target}): cannot write: "
            f"{exc.strerror or exc}",
            file=env.stderr,
        )


def print_parts(parts: Iterable[str], stream: TextIO, stdout: TextIO | None = None) -> None:
    """The parts' concatenation and a newline, written part by part; what the stream cannot
    encode (a terminal that cannot show ✓) is escaped. A closed pipe on `stdout` ends the
    output quietly."""
    try:
        for part in parts:
            try:
                stream.write(part)
            except UnicodeEncodeError:
                encoding = getattr(stream, "encoding", None) or "ascii"
                stream.write(part.encode(encoding, "backslashreplace").decode(encoding))
        stream.write("\n")
        stream.flush()
    except BrokenPipeError:
        if stream is stdout:
            silence(stream)


def silence(stream: TextIO) -> None:
    """Point the stream's file at /dev/null so the interpreter's final flush cannot fail
    loudly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (captured in tests)
        pass


def use_color(stream: TextIO, environ: Mapping[str, str]) -> bool:
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    return stream.isatty()


def joined(texts: Iterable[str], separator: str) -> Iterator[str]:
    for index, text in enumerate(texts):
        yield separator + text if index else text


def encoded(parts: Iterable[str]) -> Iterator[bytes]:
    for part in parts:
        yield part.encode()
