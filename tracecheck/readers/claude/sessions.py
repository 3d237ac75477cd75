"""The files of one Claude Code session, read together when a directory is read.

A session transcript `<project>/<session>.jsonl` has its sub-agents' transcripts beside it:
`<project>/agent-<id>.jsonl` (CLI 2.0, their records naming the session) or
`<project>/<session>/subagents/agent-<id>.jsonl` (CLI 2.1). Read together, a sub-agent hangs
under the Task/Agent call that started it, and a message that both the session file (as
`agent_progress`) and the sub-agent's file hold is one span. Read alone, each file still reads.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

import orjson

from tracecheck.readers.claude import read_claude_session
from tracecheck.readers.common import ReadContext
from tracecheck.spans import ReadNote, Span

__all__ = ["companions", "is_companion", "read_directory_file"]


def read_directory_file(path: Path, notes: list[ReadNote]) -> Iterator[Span]:
    """The spans of `path` as one file of a directory read: a session transcript with its
    sub-agents' transcripts; nothing for a sub-agent transcript whose session file is there
    (that file reads it)."""
    if is_companion(path):
        return
    files = [path, *companions(path)]
    streams = [_open(file) for file in files]
    try:
        parts = [(s, ReadContext(str(f), notes)) for f, s in zip(files, streams, strict=True)]
        yield from read_claude_session(parts)
    finally:
        for stream in streams:
            stream.close()


def companions(path: Path) -> list[Path]:
    """The sub-agent transcripts of the session transcript `path`, sorted."""
    session = path.stem
    found = sorted((path.parent / session / "subagents").glob("*.jsonl"))
    found += [p for p in sorted(path.parent.glob("agent-*.jsonl")) if _session_of(p) == session]
    return [p for p in found if p != path]


def is_companion(path: Path) -> bool:
    """True for a sub-agent transcript whose session transcript is in the same project."""
    if path.parent.name == "subagents":
        session_dir = path.parent.parent
        return (session_dir.parent / f"{session_dir.name}.jsonl").is_file()
    if path.name.startswith("agent-"):
        session = _session_of(path)
        return bool(session) and (path.parent / f"{session}.jsonl").is_file()
    return False


def _session_of(path: Path) -> str | None:
    """The session id the file's first record names."""
    try:
        with _open(path) as stream:
            line = stream.readline(1 << 20)
        record = orjson.loads(line)
    except (OSError, EOFError, orjson.JSONDecodeError):
        return None
    value = record.get("sessionId") if isinstance(record, dict) else None
    return value if isinstance(value, str) and "/" not in value else None


def _open(path: Path) -> IO[bytes]:
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    return cast(IO[bytes], gzip.open(path, "rb")) if gzipped else path.open("rb")
