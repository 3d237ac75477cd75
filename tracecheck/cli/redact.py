"""`tracecheck redact`: a redacted copy of a trace in the format it was read, written only if
it passes the share-safety gate of the profile.

Kept apart from the contract commands so that checking contracts never imports the redactor;
the redactor, readers and writers are imported when the command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.cli.redaction import (
    RedactionOptions,
    add_redaction_arguments,
    options_or_stop,
    print_findings,
    summary,
)
from tracecheck.formats import FORMATS, OUTPUT_FORMATS

if TYPE_CHECKING:
    from redact import ShareVerdict
    from redact.records import RecordRedactor
    from tracecheck.contract import Contract
    from tracecheck.sharing.staged import StagedOutput, StreamEncoder
    from tracecheck.spans import Span
    from tracecheck.verdict import Verdict
    from tracecheck.writers.layout import Layout

__all__ = ["add_parser", "run"]

SUMMARY = "remove credentials and personal data from a trace"
DESCRIPTION = (
    "Write a redacted copy of a trace in the format it was read. If the redacted trace does "
    "not pass the share-safety gate of the profile, nothing is written and the exit code is 1."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", metavar="TRACE")
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="file, or - for stdout"
    )
    parser.add_argument("--format", choices=FORMATS, help="read TRACE as this format")
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        help="write this format instead of the one read (a Claude Code record is written "
        "back as records unless this is given)",
    )
    parser.add_argument(
        "--keep-verdicts",
        action="extend",
        nargs="+",
        default=[],
        metavar="CONTRACT",
        help="check these contracts on the trace and on its redacted copy, and write nothing "
        "(exit 1, naming the rules) when any rule would be judged otherwise after redaction",
    )
    add_redaction_arguments(parser, pseudonyms=True)


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    options = options_or_stop(args, env)
    read_as = _format_of(env, args.trace, args.format) if args.output_format is None else None
    kept = _kept_before(env, args, read_as or args.format)
    if read_as == "claude-stream":
        return _redact_claude(args, env, options, kept)
    if read_as is not None and read_as not in OUTPUT_FORMATS:
        # Written in another format without being asked, the output would not be what was read.
        env.error(
            f"{args.trace}: is a {read_as} file, which tracecheck reads but does not write: "
            "pass --output-format (otlp-json, for one) to write its spans redacted"
        )
        raise Stop(ExitCode.USAGE)
    return _redact(args, env, options, read_as or args.format, kept)


def _redact(
    args: argparse.Namespace,
    env: Environment,
    options: RedactionOptions,
    format: str | None,
    kept: _Kept | None,
) -> ExitCode:
    """Redact batch by batch into a staged output, handed over only if the whole redacted
    trace is safe to share; pseudonyms agree across the whole file. `format`: what the trace
    is read as, when known (else it is detected)."""
    from redact.spans import SpanAssessor, SpanRedactor
    from tracecheck.sharing.recorded_bytes import assess_stream, with_recorded
    from tracecheck.sharing.staged import StagedOutput, StreamEncoder

    profile, known, key = options.profile, options.known_secrets, options.pseudonym_key
    redactor = SpanRedactor(profile=profile, known_secrets=known, pseudonym_key=key)
    assessor = SpanAssessor.following(redactor)  # judged with the redaction's prescan
    staged: list[tuple[StagedOutput, StreamEncoder]] = []

    def output(layout: Layout, gzipped: bool) -> tuple[StagedOutput, StreamEncoder]:
        if not staged:
            staged.append((StagedOutput(gzipped), StreamEncoder(layout)))
        return staged[0]

    def redact(batch: list[Span], layout: Layout, gzipped: bool) -> None:
        out, encoder = output(layout, gzipped)
        redacted = list(redactor.redact(batch))
        assessor.assess(redacted)
        encoder.add(redacted, out)

    try:
        layout, gzipped = _read_spans(env, args.trace, format, args.output_format, redact)
        out, encoder = output(layout, gzipped)
        encoder.finish(out, layout)
        # The gate judges the bytes about to be written as well as the spans they came from:
        # whatever a writer carried over unredacted is found there.
        written = assess_stream(out.staged(), profile, known)
        verdict = with_recorded(assessor.verdict(), [written])
        refused = _handed_over(env, args, out, verdict, "trace is", kept)
        if refused is not None:
            return refused
    finally:
        for out, _ in staged:
            out.close()
    print(summary(redactor.report().findings), file=env.stderr)
    return ExitCode.OK


def _handed_over(
    env: Environment,
    args: argparse.Namespace,
    out: StagedOutput,
    verdict: ShareVerdict,
    what: str,
    kept: _Kept | None,
) -> ExitCode | None:
    """Hand the staged output over when the gate allows it to be shared and (with
    `--keep-verdicts`) the contracts judge it as they judged the trace; else say why and
    write nothing. None when it was written, else the exit code."""
    from redact import share_allowed

    if not share_allowed(verdict):
        env.error(f"{args.trace}: the redacted {what} {verdict.status.value}; nothing written")
        print_findings(verdict, env.stderr)
        return ExitCode.FAILED
    if kept is not None:
        changed = _verdicts_changed(env, args.trace, out, kept)
        if changed is not None:
            return changed
    try:
        out.deliver(args.output)
    except OSError as exc:
        env.error(f"{args.output}: cannot write: {exc.strerror}")
        return ExitCode.USAGE
    return None


def _redact_claude(
    args: argparse.Namespace, env: Environment, options: RedactionOptions, kept: _Kept | None
) -> ExitCode:
    """A Claude Code record file redacted record by record into its own format, written only
    if the redacted records (and the spans they read as) pass the gate. A profile's allow-list
    is refused: it keeps the values of the keys it lists in spans' attributes, and records
    written back would lose their own structure (`type`, `uuid`, …) to it."""
    from redact.records import RecordRedactor
    from tracecheck.errors import TraceReadError

    modes = options.profile.modes
    if modes is not None and modes.allowed_keys is not None:
        env.error(
            f"{args.trace}: is a Claude Code record file, written back as records, and the "
            f'profile "{options.profile.name}" has allowedKeys, which would mask their '
            "structure (type, uuid, …): pass --output-format otlp-json to write its spans"
        )
        return ExitCode.USAGE

    redactor = RecordRedactor(
        profile=options.profile,
        known_secrets=options.known_secrets,
        pseudonym_key=options.pseudonym_key,
    )
    try:
        out, verdict = _claude_staged(args.trace, redactor, options)
    except TraceReadError as exc:
        env.error(str(exc))
        return ExitCode.UNREADABLE
    except OSError as exc:
        env.error(f"{args.trace}: could not be read: {exc.strerror}")
        return ExitCode.UNREADABLE
    try:
        refused = _handed_over(env, args, out, verdict, "records are", kept)
        if refused is not None:
            return refused
    finally:
        out.close()
    print(summary(redactor.report().findings), file=env.stderr)
    return ExitCode.OK


class _Kept(NamedTuple):
    """With `--keep-verdicts`: the contracts, and their verdicts on the trace as recorded."""

    contracts: list[Contract]
    before: list[Verdict]


def _kept_before(env: Environment, args: argparse.Namespace, format: str | None) -> _Kept | None:
    if not args.keep_verdicts:
        return None
    from tracecheck.cli.check import load_contracts
    from tracecheck.kept_verdicts import verdicts_of
    from tracecheck.readers import read_traces

    contracts = load_contracts(env, args.keep_verdicts)
    with _reading(env):
        return _Kept(
            contracts, verdicts_of(read_traces(Path(args.trace), format=format), contracts)
        )


def _verdicts_changed(
    env: Environment, trace: str, out: StagedOutput, kept: _Kept
) -> ExitCode | None:
    """None when the contracts judge the staged redacted copy as they judged the trace;
    else the rules judged otherwise, said, and exit 1. A copy the readers cannot read back is
    one whose verdicts are not known to be kept."""
    from tracecheck.errors import TraceReadError
    from tracecheck.kept_verdicts import verdict_changes

    try:
        changes = verdict_changes(kept.before, out.staged(), kept.contracts)
    except TraceReadError as exc:
        env.error(f"{trace}: the redacted copy cannot be read back ({exc}); nothing written")
        return ExitCode.FAILED
    if not changes:
        return None
    env.error(
        f"{trace}: redaction changes how {len(changes)} rule(s) judge the trace; nothing written"
    )
    for change in changes:
        print(f"  {change}", file=env.stderr)
    return ExitCode.FAILED


@contextmanager
def _reading(env: Environment) -> Iterator[None]:
    """The command stopped when the input cannot be read: exit 4 when its format is
    ambiguous, 3 otherwise, with the reader's words."""
    from tracecheck.errors import AmbiguousFormatError, TraceReadError

    try:
        yield
    except AmbiguousFormatError as exc:
        env.error(str(exc))
        raise Stop(ExitCode.AMBIGUOUS) from None
    except (TraceReadError, OSError) as exc:
        env.error(str(exc))
        raise Stop(ExitCode.UNREADABLE) from None


def _claude_staged(
    source: str, redactor: RecordRedactor, options: RedactionOptions
) -> tuple[StagedOutput, ShareVerdict]:
    """The redacted records staged, and the gate's verdict of them; raises TraceReadError or
    OSError when the input cannot be read (nothing staged is left open then). What the reader
    refuses is refused: the gate reads the redacted records as a trace, and when it cannot,
    the error is the reader's about the file as given (as `check` would say it)."""
    from tracecheck.errors import TraceReadError
    from tracecheck.readers import iter_spans
    from tracecheck.readers.inputs import open_file
    from tracecheck.sharing.recorded_bytes import with_recorded
    from tracecheck.sharing.recorded_claude import claude_verdicts
    from tracecheck.sharing.staged import StagedOutput
    from tracecheck.writers.claude import redact_claude_records

    path = Path(source)
    out = StagedOutput(_gzipped(path))
    try:
        redact_claude_records(lambda: open_file(path), source, redactor, out.write)
        profile, known = options.profile, options.known_secrets
        spans, records = claude_verdicts(out.staged(), source, profile, known)
    except TraceReadError:
        out.close()
        for _ in iter_spans(path, format="claude-stream"):
            pass  # raises the reader's own error about the input, when it refuses it too
        raise
    except BaseException:
        out.close()
        raise
    return out, with_recorded(spans, [records])


def _format_of(env: Environment, source: str, format: str | None) -> str:
    """The format the trace is read as (`--format`, else detected); exit 4 when ambiguous, 3
    when it cannot be read."""
    from tracecheck.readers import detect_format

    if format is not None:
        return format
    with _reading(env):
        return detect_format(Path(source))


def _read_spans(
    env: Environment,
    source: str,
    format: str | None,
    output_format: str | None,
    each: Callable[[list[Span], Layout, bool], None],
) -> tuple[Layout, bool]:
    """`each(batch, layout, gzipped)` for the spans as recorded (repeats included), batch by
    batch as they are read; then the layout to write them in and whether the input was gzip.
    Without `output_format` the input's own format and layout are kept; an input whose format
    cannot be written back is refused, naming the format to ask for (once it has been read)."""
    from tracecheck.readers import detect_format, iter_spans
    from tracecheck.readers.common import LEFT_OUT
    from tracecheck.readers.otlp_proto import looks_like_proto_stream
    from tracecheck.sharing.staged import batched
    from tracecheck.spans import ReadNote
    from tracecheck.writers.layout import Layout, layout_of

    path = Path(source)
    with _reading(env):
        read_as = format or detect_format(path)
        gzipped, head, size = _head(path)
        layout = _by_name(path, output_format or read_as)
        if (
            output_format is None
            and read_as == "otlp-proto"
            and looks_like_proto_stream(head, size)
        ):
            layout = Layout("otlp-proto", "stream")
        # As recorded, repeats included; the format just detected, not sniffed again.
        notes: list[ReadNote] = []
        for batch in batched(iter_spans(path, format=read_as, notes=notes)):
            each(batch, layout, gzipped)
        # A span the reader could not hold (nested too deep) is not written: say so.
        for note in notes:
            if note.message.endswith(LEFT_OUT):
                print(f"tracecheck: warning: {note}", file=env.stderr)
    if output_format is None and read_as in ("jaeger", "jaeger-model", "otel-js"):
        return layout_of(read_as, _bytes(path)), gzipped  # documents, read whole anyway
    return layout, gzipped


def _by_name(path: Path, format: str) -> Layout:
    """One line of JSON sniffs as a document; by its name it is JSON Lines, and stays so
    (a final newline included, so that files can be concatenated)."""
    from tracecheck.writers.layout import Layout

    if path.name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")):
        if format == "spans":
            return Layout("spans", "lines")
        if format == "otlp-json":
            return Layout("otlp-jsonl")
    return Layout(format)


def _bytes(path: Path) -> bytes:
    """The file's bytes, decoded as the readers decode them (compressed, UTF-16/32)."""
    from tracecheck.errors import TraceReadError
    from tracecheck.readers.inputs import INPUT_ERRORS, open_file

    try:
        with open_file(path) as stream:
            return stream.read()
    except INPUT_ERRORS as exc:
        raise TraceReadError(str(path), f"could not be read: {exc}") from None


def _head(path: Path) -> tuple[bool, bytes, int | None]:
    """Whether the file is gzip, its first bytes (decoded), and its size when known: what
    telling a proto message from a proto stream needs, without reading the file again."""
    from tracecheck.readers.inputs import file_size, open_file

    gzipped = _gzipped(path)
    with open_file(path) as stream:
        return gzipped, stream.read(64), file_size(path)


def _gzipped(path: Path) -> bool:
    with path.open("rb") as raw:
        return raw.read(2) == b"\x1f\x8b"
