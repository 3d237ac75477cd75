"""`tracecheck redact` and `tracecheck verify-safe`: the share-safety gate on recorded files.

Kept apart from the contract commands so that checking contracts never imports the redactor.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from redact import ShareVerdict, share_allowed
from redact.spans import SpanAssessor, SpanRedactor
from tracecheck.cli_secrets import RedactionOptions, RedactionOptionsError
from tracecheck.errors import AmbiguousFormatError, TraceReadError
from tracecheck.readers import detect_format, iter_spans
from tracecheck.readers.common import LEFT_OUT
from tracecheck.readers.inputs import INPUT_ERRORS, file_size, open_file
from tracecheck.readers.otlp_proto import looks_like_proto_stream
from tracecheck.recorded_bytes import assess_stream, with_recorded
from tracecheck.redact_stream import StagedOutput, StreamEncoder, batched
from tracecheck.spans import ReadNote, Span
from tracecheck.verify_safe import GateError, verdict_of_path
from tracecheck.writers_formats import OUTPUT_FORMATS, Layout, layout_of

__all__ = ["OUTPUT_FORMATS", "run_redact", "run_verify_safe", "summary"]


class Stop(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def run_redact(args: argparse.Namespace) -> int:
    try:
        options = _options(args)
        return _redact(args, options)
    except Stop as stop:
        return stop.code


def _redact(args: argparse.Namespace, options: RedactionOptions) -> int:
    """Redact batch by batch into a staged output, handed over only if the whole redacted
    trace is safe to share; pseudonyms agree across the whole file."""
    profile, known, key = options.profile, options.known_secrets, options.pseudonym_key
    redactor = SpanRedactor(profile=profile, known_secrets=known, pseudonym_key=key)
    assessor = SpanAssessor(profile=profile, known_secrets=known)
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
        layout, gzipped = _read_spans(
            args.trace, args.format, getattr(args, "output_format", None), redact
        )
        out, encoder = output(layout, gzipped)
        encoder.finish(out, layout)
        # The gate judges the bytes about to be written as well as the spans they came from:
        # whatever a writer carried over unredacted is found there.
        written = assess_stream(out.staged(), profile, known)
        verdict = with_recorded(assessor.verdict(), [written])
        if not share_allowed(verdict):
            _error(f"{args.trace}: the redacted trace is {verdict.status.value}; nothing written")
            _print_findings(verdict, sys.stderr)
            return 1
        try:
            out.deliver(args.output)
        except OSError as exc:
            _error(f"{args.output}: cannot write: {exc.strerror}")
            return 2
    finally:
        for out, _ in staged:
            out.close()
    print(summary(redactor.report().findings), file=sys.stderr)
    return 0


def summary(findings: Sequence[Any]) -> str:
    """`redacted 14 values in 9 spans (email ×3, provider-key ×1)`."""
    spans = {f.path.split("/", 1)[0] for f in findings if f.path.startswith("span:")}
    counts = Counter(f.detector for f in findings)
    detail = ", ".join(f"{d} ×{n}" for d, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    noun = "value" if len(findings) == 1 else "values"
    where = f" in {len(spans)} span{'' if len(spans) == 1 else 's'}" if spans else ""
    return f"redacted {len(findings)} {noun}{where}" + (f" ({detail})" if detail else "")


def run_verify_safe(args: argparse.Namespace) -> int:
    try:
        options = _options(args)
    except Stop as stop:
        return stop.code
    profile, known = options.profile, options.known_secrets
    code = 0
    for path in args.paths:
        try:
            # Every file, layer and archive member; what cannot be read is UNKNOWN.
            verdict = verdict_of_path(path, args.format, profile, known)
        except GateError as exc:
            _error(str(exc))
            code = max(code, 3)
            continue
        print(f"{path}: {verdict.status.value}")
        _print_findings(verdict, sys.stdout)
        if not share_allowed(verdict):
            code = max(code, 1)
    return code


def _print_findings(verdict: ShareVerdict, stream: Any) -> None:
    for finding in verdict.findings:
        paths = ", ".join(finding.paths) + (", …" if finding.count > len(finding.paths) else "")
        print(
            f"  {finding.severity}: {finding.category} ({finding.detector}) ×{finding.count} "
            f"at {paths}",
            file=stream,
        )
    for entry in verdict.unreadable:
        print(f"  unreadable: {entry}", file=stream)


def _options(args: argparse.Namespace) -> RedactionOptions:
    try:
        return RedactionOptions.from_args(args)
    except RedactionOptionsError as exc:
        _error(str(exc))
        raise Stop(2) from None


def _read_spans(
    source: str,
    format: str | None,
    output_format: str | None,
    each: Callable[[list[Span], Layout, bool], None],
) -> tuple[Layout, bool]:
    """`each(batch, layout, gzipped)` for the spans as recorded (repeats included), batch by
    batch as they are read; then the layout to write them in and whether the input was gzip.
    Without `output_format` the input's own format and layout are kept; an input whose format
    cannot be written back is refused, naming the format to ask for (once it has been read)."""
    path = Path(source)
    try:
        read_as = format or detect_format(path)
        gzipped, head, size = _head(path)
        refused = output_format is None and read_as == "claude-stream"
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
            if not refused:
                each(batch, layout, gzipped)
        # A span the reader could not hold (nested too deep) is not written: say so.
        for note in notes:
            if note.message.endswith(LEFT_OUT):
                print(f"tracecheck: warning: {note}", file=sys.stderr)
    except AmbiguousFormatError as exc:
        _error(str(exc))
        raise Stop(4) from None
    except (TraceReadError, OSError) as exc:
        _error(str(exc))
        raise Stop(3) from None
    if refused:
        _error(
            f"{source}: a Claude Code record cannot be written back as one (spans do not make "
            "a session again); pass --output-format otlp-json to write OTLP/JSON, or another "
            f"of: {', '.join(OUTPUT_FORMATS)}"
        )
        raise Stop(2)
    if output_format is None and read_as in ("jaeger", "jaeger-model", "otel-js"):
        return layout_of(read_as, _bytes(path)), gzipped  # documents, read whole anyway
    return layout, gzipped


def _by_name(path: Path, format: str) -> Layout:
    """One line of JSON sniffs as a document; by its name it is JSON Lines, and stays so
    (a final newline included, so that files can be concatenated)."""
    if path.name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")):
        if format == "spans":
            return Layout("spans", "lines")
        if format == "otlp-json":
            return Layout("otlp-jsonl")
    return Layout(format)


def _bytes(path: Path) -> bytes:
    """The file's bytes, decoded as the readers decode them (compressed, UTF-16/32)."""
    try:
        with open_file(path) as stream:
            return stream.read()
    except INPUT_ERRORS as exc:
        raise TraceReadError(str(path), f"could not be read: {exc}") from None


def _head(path: Path) -> tuple[bool, bytes, int | None]:
    """Whether the file is gzip, its first bytes (decoded), and its size when known: what
    telling a proto message from a proto stream needs, without reading the file again."""
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    with open_file(path) as stream:
        return gzipped, stream.read(64), file_size(path)


def _error(message: str) -> None:
    print(f"tracecheck: error: {message}", file=sys.stderr)
