"""The `tracecheck` command line: parse arguments, run one command, return an exit code."""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import os
import pickle
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal, TextIO

from tracecheck.check import check
from tracecheck.cli_secrets import add_redaction_arguments
from tracecheck.contract import Contract, compile_contract, explain_contract, lint_contract
from tracecheck.contract.lint import is_json_schema
from tracecheck.errors import AmbiguousFormatError, ContractError, TraceReadError
from tracecheck.readers import FORMATS
from tracecheck.readers.by_trace import visit_traces
from tracecheck.report import (
    CheckedTrace,
    ReadFailure,
    annotation_lines,
    json_parts,
    junit_parts,
    text_lines,
)
from tracecheck.report.safe import printable
from tracecheck.report.spool import JsonPieces, Records, Spool, json_document, json_member
from tracecheck.show import render_trace, trace_facts
from tracecheck.spans import Trace
from tracecheck.verdict import RuleResult, Verdict, worst

__all__ = ["ExitCode", "main"]


class ExitCode(IntEnum):
    """Stable exit codes, listed in `--help`."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNREADABLE = 3
    AMBIGUOUS = 4


_EPILOG = """\
exit codes:
  0  success (every verdict passes; the input is safe to share)
  1  a rule failed; the input is UNSAFE or UNKNOWN (redact writes nothing)
  2  usage error, malformed or contradictory contract, or a rule that could not be evaluated
  3  a trace or input file could not be read
  4  a trace's format is ambiguous: pass --format
"""
_PRECEDENCE = """when several apply (one run fails, another cannot be read), the highest code wins;
every input is still read and every readable trace checked and reported.
"""


class _Stop(Exception):
    """A command ends early with this exit code; its message is already printed."""

    def __init__(self, code: ExitCode) -> None:
        self.code = code


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        return int(args.run(args))
    except _Stop as stop:
        return int(stop.code)
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        _silence_stdout()
        return ExitCode.FAILED
    except Exception as exc:  # a bug must not reach the user as a traceback
        if os.environ.get("TRACECHECK_DEBUG"):
            traceback.print_exc()
        _error(_internal_error(exc) + " (TRACECHECK_DEBUG=1 shows where)")
        return ExitCode.USAGE


def _internal_error(exc: Exception) -> str:
    """A bug, named by its type only: its message may quote span content, which may be secret."""
    return f"internal error: {type(exc).__name__}"


def _version() -> str:
    try:
        return importlib.metadata.version("tracecheck")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tracecheck",
        description="Prove which path an AI agent took, from its OpenTelemetry traces.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tracecheck {_version()}")
    parser.set_defaults(command=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    def command(
        name: str, summary: str, description: str, epilog: str = _EPILOG
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name,
            help=summary,
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.set_defaults(command=name)
        return sub

    check_command = command(
        "check",
        "check traces against contracts",
        "Check every trace against every contract and report each rule's verdict. "
        "TRACE is a file, a directory, or - for standard input.",
        _EPILOG + _PRECEDENCE,
    )
    _trace_arguments(check_command)
    check_command.add_argument(
        "--contract", action="append", required=True, metavar="FILE", help="contract (repeatable)"
    )
    check_command.add_argument("--junit", metavar="PATH", help="write JUnit XML to PATH")
    check_command.add_argument(
        "--json", metavar="PATH", help="write the JSON report (version 1) to PATH, or - for stdout"
    )
    check_command.add_argument(
        "--annotations",
        action="store_true",
        help="print GitHub workflow annotations (on by default when GITHUB_ACTIONS=true)",
    )
    check_command.add_argument(
        "--strict-capture",
        action="store_true",
        help="when spans look like tool or model calls that no convention maps, report every "
        "rule about tools or models as could not be evaluated (exit 2) instead of judging it",
    )
    verbosity = check_command.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="one line per verdict")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="list passing rules too")
    check_command.set_defaults(run=_check)

    show = command(
        "show",
        "print each trace as a tree of spans",
        "Print each trace as a tree: one line per span with its kind, tool or model, tokens, "
        "duration and status.",
        _EPILOG + _PRECEDENCE,
    )
    _trace_arguments(show)
    show.add_argument("--json", action="store_true", help="print JSON (version 1) on stdout")
    show.set_defaults(run=_show)

    lint = command("lint", "report contradictions and likely mistakes", "Lint contracts.")
    lint.add_argument("contracts", nargs="+", metavar="CONTRACT")
    lint.set_defaults(run=_lint)

    explain = command("explain", "say in words what a contract checks", "Explain a contract.")
    explain.add_argument("contract", metavar="CONTRACT")
    explain.set_defaults(run=_explain)

    redact = command(
        "redact",
        "remove credentials and personal data from a trace",
        "Write a redacted copy of a trace in the format it was read. If the redacted trace does "
        "not pass the share-safety gate of the profile, nothing is written and the exit code is 1.",
    )
    redact.add_argument("trace", metavar="TRACE")
    redact.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="file, or - for stdout"
    )
    redact.add_argument("--format", choices=FORMATS, help="read TRACE as this format")
    redact.add_argument(
        "--output-format",
        choices=[name for name in FORMATS if name != "claude-stream"],
        help="write this format instead of the one read (needed for a Claude Code record)",
    )
    add_redaction_arguments(redact, pseudonyms=True)
    redact.set_defaults(run=_redact)

    verify = command(
        "verify-safe",
        "say whether files are safe to share",
        "Assess traces (or any JSON, JSON Lines or text file) under a profile. Findings are "
        "listed by path and detector, never by value.",
    )
    verify.add_argument("paths", nargs="+", metavar="PATH")
    verify.add_argument("--format", choices=FORMATS, help="read traces as this format")
    add_redaction_arguments(verify, pseudonyms=False)
    verify.set_defaults(run=_verify_safe)

    # The shipping commands keep their options beside their code; importing those modules is
    # cheap (servers and clients are imported when a command runs).
    from tracecheck import cli_ingest, cli_proxy, cli_ship

    for name, module, summary in (
        ("proxy", cli_proxy, "scrub OTLP/HTTP traffic on its way to a collector"),
        ("ship", cli_ship, "send redacted traces to a hosted-ingest store"),
        ("ingest-server", cli_ingest, "run the reference hosted-ingest receiver"),
    ):
        sub = command(name, summary, module.DESCRIPTION)
        module.configure(sub)
        sub.set_defaults(run=module.run)
    return parser


def _redact(args: argparse.Namespace) -> int:
    from tracecheck.cli_redact import run_redact

    return run_redact(args)


def _verify_safe(args: argparse.Namespace) -> int:
    from tracecheck.cli_redact import run_verify_safe

    return run_verify_safe(args)


def _trace_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="trace file or directory")
    parser.add_argument("--format", choices=FORMATS, help="read as this format instead of sniffing")
    parser.add_argument("--trace-id", help="only the trace with this id")


def _check(args: argparse.Namespace) -> ExitCode:
    if args.json == "-" and args.junit == "-":
        _error("--json - and --junit - both want stdout: send one of them to a file")
        raise _Stop(ExitCode.USAGE)
    contracts = _load_contracts(args.contract)
    spool = Spool()
    verdicts = Records()
    try:
        return _check_all(args, contracts, spool, verdicts)
    finally:
        verdicts.close()
        spool.close()


def _check_all(
    args: argparse.Namespace, contracts: list[Contract], spool: Spool, verdicts: Records
) -> ExitCode:
    """Each trace checked as it is read; the verdicts wait on disk (pickled, in order, with
    no handle kept per trace), so memory holds one trace and its verdicts, and the reports
    are written one verdict at a time."""
    strict = args.strict_capture

    def visit(read: _Read) -> None:  # all a trace leaves behind
        for contract in contracts:
            verdicts.append(pickle.dumps(_timed(read, contract, strict), pickle.HIGHEST_PROTOCOL))

    failures = _read(args.traces, args.format, args.trace_id, visit, verdicts)

    def checked() -> Iterator[CheckedTrace]:
        for data in verdicts:
            item: CheckedTrace = pickle.loads(data)
            yield item

    machine_on_stdout = "-" in (args.json, args.junit)
    human = sys.stderr if machine_on_stdout else sys.stdout
    verbosity = -1 if args.quiet or machine_on_stdout else (1 if args.verbose else 0)
    if verdicts:
        lines = text_lines(checked(), color=_use_color(human), verbosity=verbosity)
        _print_parts(_joined(lines, "\n"), human)
    status = worst(list({item.verdict.status: None for item in checked()}))
    if args.json:
        parts = json_parts(checked(), failures, status, spool)
        _write_parts(args.json, _encoded(itertools.chain(parts, ["\n"])))
    if args.junit:
        _write_parts(args.junit, junit_parts(checked, failures))
    if args.annotations or os.environ.get("GITHUB_ACTIONS") == "true":
        annotations = annotation_lines(checked(), failures)
        first = next(annotations, None)
        if first is not None:
            _print_parts(_joined(itertools.chain([first], annotations), "\n"), human)
    code = {"pass": ExitCode.OK, "fail": ExitCode.FAILED, "error": ExitCode.USAGE}[status]
    return max([code, *(_failure_code(failure) for failure in failures)])


def _encoded(parts: Iterable[str]) -> Iterator[bytes]:
    for part in parts:
        yield part.encode()


def _failure_code(failure: ReadFailure) -> ExitCode:
    return ExitCode.AMBIGUOUS if failure.kind == "ambiguous" else ExitCode.UNREADABLE


def _timed(read: _Read, contract: Contract, strict: bool) -> CheckedTrace:
    trace = read.trace
    started = time.perf_counter()
    try:
        verdict = check(trace, contract, strict_capture=strict)
    except Exception as exc:  # a bug in one rule must not hide the other verdicts
        error = _internal_error(exc)
        rule = RuleResult("(check)", None, "error", error=error)
        verdict = Verdict(contract.name, trace.trace_id, "error", (rule,), 0.0, "0/1 rules passed")
    seconds = time.perf_counter() - started
    return CheckedTrace(read.source, contract.source, verdict, seconds, read.sources)


def _load_contracts(paths: Sequence[str]) -> list[Contract]:
    """Every contract compiled, or every problem printed: lint errors refuse a contract."""
    contracts: list[Contract] = []
    refused = False
    for path in dict.fromkeys(paths):  # the same file twice is checked once
        try:
            findings = lint_contract(Path(path))
            contract = compile_contract(Path(path))
        except ContractError as exc:
            _error(str(exc))
            refused = True
            continue
        for finding in findings:
            where = f"{path}: {finding.path}" if finding.path else path
            print(f"{where}: {finding.level} [{finding.code}] {finding.message}", file=sys.stderr)
        if any(finding.level == "error" for finding in findings):
            refused = True
        contracts.append(contract)
    if refused:
        raise _Stop(ExitCode.USAGE)
    return contracts


STDIN = "-"


@dataclass(frozen=True, slots=True)
class _Read:
    """A trace as it is read, with the file reports name: the source as given, or for a
    directory the file below it holding the trace (`sources`: each file, when several)."""

    trace: Trace
    source: str
    sources: tuple[str, ...] = ()
    in_directory: bool = False

    @property
    def files(self) -> tuple[str, ...]:
        """The files to name beside the trace: those of the directory it was read from (a
        single file or standard input is named by the input itself)."""
        if not self.in_directory:
            return ()
        return self.sources or (self.source,)


@dataclass
class _Visits:
    """What the traces of one source left behind: how many were read and how many visited,
    and their notes (distinct, in order)."""

    traces: int = 0
    visited: int = 0
    notes: dict[str, None] = field(default_factory=dict)


def _read(
    sources: Sequence[str],
    format: str | None,
    trace_id: str | None,
    visit: Callable[[_Read], None],
    kept: Records,
) -> list[ReadFailure]:
    """`visit` of every trace of every source, read one trace at a time, and every source that
    gave none (each error printed once every source was read, then the notes). What `visit`
    keeps goes to `kept`: what a source that fails (or is read again without a file of its
    directory that fails late) left there is taken back.

    A source that reads but holds no span is a failure too: nothing checked must not pass.
    """
    if trace_id is not None and not trace_id.strip():
        _error("--trace-id needs a trace id")
        raise _Stop(ExitCode.USAGE)
    if list(sources).count(STDIN) > 1:
        _error("- (standard input) can be read only once")
        raise _Stop(ExitCode.USAGE)
    wanted = trace_id.strip().lower() if trace_id is not None else None
    matched = False
    notes: dict[str, None] = {}
    failures: list[ReadFailure] = []
    for source in _unique(sources):
        directory = source != STDIN and Path(source).is_dir()
        visits = _Visits()
        mark = kept.mark()

        def restart(visits: _Visits = visits, mark: tuple[int, int] = mark) -> None:
            kept.truncate(mark)
            visits.traces = visits.visited = 0
            visits.notes.clear()

        def each(
            trace: Trace,
            source: str = source,
            directory: bool = directory,
            visits: _Visits = visits,
        ) -> None:
            visits.traces += 1
            if wanted is not None and trace.trace_id != wanted:
                return
            read = _Read(trace, _label(source))
            if directory and trace.source is not None:
                several = trace.sources if len(trace.sources) > 1 else ()
                read = _Read(trace, trace.source, several, in_directory=True)
            visits.visited += 1
            visits.notes.update(dict.fromkeys(str(note) for note in trace.notes))
            visit(read)

        # A directory's broken files fail alone: the traces of the others are still checked.
        broken: list[TraceReadError] = []
        try:
            _read_one(source, format, broken, each, restart)
        except TraceReadError as exc:
            broken.append(exc)
            restart()
        except Exception as exc:  # a reader bug: this input is unreadable, the others are not
            restart()
            message = f"{_label(source)}: could not be read: {_internal_error(exc)}"
            failures.append(ReadFailure(source, "unreadable", message))
            continue
        failures.extend(_read_failure(exc, source) for exc in broken)
        if not visits.traces and not broken:
            message = f"{_label(source)}: holds no spans, so there is nothing to check"
            failures.append(ReadFailure(source, "unreadable", message))
        if visits.visited:
            matched = True
            notes.update(visits.notes)
    for failure in failures:
        _error(printable(failure.message))
    if wanted is not None and not matched:
        _error(f"no trace has id {printable(trace_id or '')}")
        raise _Stop(max([ExitCode.USAGE, *(_failure_code(f) for f in failures)]))
    for note in notes:
        print(f"note: {printable(note)}", file=sys.stderr)
    return failures


def _unique(sources: Sequence[str]) -> list[str]:
    """Each source once, however it was spelled (`a.jsonl`, `./a.jsonl`)."""
    seen: dict[str, str] = {}
    for source in sources:
        key = source if source == STDIN else os.path.realpath(source)
        seen.setdefault(key, source)
    return list(seen.values())


def _label(source: str) -> str:
    return "<stdin>" if source == STDIN else source


def _read_failure(exc: TraceReadError, source: str) -> ReadFailure:
    """The failure of `source`, or of the file inside the directory `source` that broke."""
    kind: Literal["unreadable", "ambiguous"] = (
        "ambiguous" if isinstance(exc, AmbiguousFormatError) else "unreadable"
    )
    where = source if source == STDIN or exc.source == "<bytes>" else exc.source
    return ReadFailure(where, kind, _input_error(exc, source))


def _input_error(exc: TraceReadError, source: str) -> str:
    text = str(exc)
    if source == STDIN and text.startswith("<bytes>"):
        text = "<stdin>" + text.removeprefix("<bytes>")
    return text


def _read_one(
    source: str,
    format: str | None,
    broken: list[TraceReadError],
    each: Callable[[Trace], None],
    restart: Callable[[], None],
) -> None:
    progress = _Progress(_label(source), 0 if source == STDIN else _size(source))
    spans = 0

    def counted(trace: Trace) -> None:
        nonlocal spans
        spans += len(trace.spans)
        each(trace)

    try:
        if source == STDIN:  # spooled to a file, read as the bytes it holds
            with _spooled_stdin() as path:
                visit_traces(path, counted, format=format, name="<bytes>", restart=restart)
        else:
            visit_traces(source, counted, format=format, failures=broken, restart=restart)
    finally:
        progress.stop()
    progress.done(spans)


@contextmanager
def _spooled_stdin() -> Iterator[str]:
    """Standard input copied to a temporary file, so that it is read like one: one trace at
    a time, not all of it held."""
    with tempfile.NamedTemporaryFile(prefix="tracecheck-stdin-", delete=False) as spool:
        shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
    try:
        yield spool.name
    finally:
        Path(spool.name).unlink()


class _Progress:
    """A line on stderr when reading takes long: at once for a large file, otherwise after
    `THRESHOLD_SECONDS` (gzip, directories, stdin); then how much was read and how fast."""

    THRESHOLD_BYTES = 50_000_000  # about two seconds of reading on a modest machine
    THRESHOLD_SECONDS = 2.0

    def __init__(self, source: str, size: int) -> None:
        self.source = source
        self.size = size
        self.started = time.perf_counter()
        self.shown = False
        self.stopped = False
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        if size > self.THRESHOLD_BYTES:
            self._announce()
        else:
            self.timer = threading.Timer(self.THRESHOLD_SECONDS, self._announce)
            self.timer.daemon = True
            self.timer.start()

    def _announce(self) -> None:
        with self.lock:
            if self.stopped or self.shown:
                return
            self.shown = True
            large = self.size > min(self.THRESHOLD_BYTES, 500_000)
            size = f" ({self.size / 1e6:.0f} MB)" if large else ""
            print(f"tracecheck: reading {printable(self.source)}{size}…", file=sys.stderr)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            self.stopped = True

    def done(self, spans: int) -> None:
        if self.shown:
            took = time.perf_counter() - self.started
            print(f"tracecheck: read {spans} spans in {took:.1f} s", file=sys.stderr)


def _size(source: str) -> int:
    try:
        path = Path(source)
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        return path.stat().st_size if path.exists() else 0
    except OSError:
        return 0


def _show(args: argparse.Namespace) -> ExitCode:
    # Each trace is rendered as it is read; the output waits on disk until every input is read.
    spool = Spool()
    pieces = JsonPieces(spool)
    trees = Records()
    try:
        if args.json:

            def facts(read: _Read) -> None:
                pieces.append(_with_files(trace_facts(read.trace), read.files))

            failures = _read(args.traces, args.format, args.trace_id, facts, pieces.items)
            head = [json_member("version", "1")]
            _print_parts(json_document(head, "traces", pieces.appended()), sys.stdout)
        else:
            color = _use_color(sys.stdout)

            def tree(read: _Read) -> None:
                trees.add_text(render_trace(read.trace, color=color, files=read.files))

            failures = _read(args.traces, args.format, args.trace_id, tree, trees)
            if trees:
                _print_parts(_joined(trees.texts(), "\n\n"), sys.stdout)
    finally:
        trees.close()
        pieces.close()
        spool.close()
    return max([ExitCode.OK, *(_failure_code(failure) for failure in failures)])


def _with_files(facts: dict[str, Any], files: tuple[str, ...]) -> dict[str, Any]:
    """A trace's facts naming the file it was read from (`source`), and every file when it
    was spread over several (`sources`), after its id; only for traces of a directory."""
    if not files:
        return facts
    named: dict[str, Any] = {"trace_id": facts["trace_id"], "source": files[0]}
    if len(files) > 1:
        named["sources"] = list(files)
    return {**named, **facts}


def _joined(texts: Iterable[str], separator: str) -> Iterator[str]:
    for index, text in enumerate(texts):
        yield separator + text if index else text


def _lint(args: argparse.Namespace) -> ExitCode:
    code = ExitCode.OK
    for path in args.contracts:
        if is_json_schema(path):  # `lint contracts/*.json` meets contract.schema.json
            print(f"{path}: skipped: a JSON Schema, not a contract")
            continue
        try:
            findings = lint_contract(Path(path))
        except ContractError as exc:
            _error(str(exc))
            code = ExitCode.USAGE
            continue
        for finding in findings:
            where = f"{path}: {finding.path}" if finding.path else path
            print(f"{where}: {finding.level} [{finding.code}] {finding.message}")
            if finding.level == "error":
                code = ExitCode.USAGE
        if not findings:
            print(f"{path}: no findings")
    return code


def _explain(args: argparse.Namespace) -> ExitCode:
    try:
        print(explain_contract(compile_contract(Path(args.contract))))
    except ContractError as exc:
        _error(str(exc))
        return ExitCode.USAGE
    return ExitCode.OK


def _write_parts(target: str, parts: Iterable[bytes]) -> None:
    """The parts, one after another, to a file (its folders made) or `-` for stdout."""
    if target == "-":
        try:
            sys.stdout.flush()
            for part in parts:
                sys.stdout.buffer.write(part)
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        return
    try:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)  # `--junit reports/out.xml` in CI
        with path.open("wb") as out:
            for part in parts:
                out.write(part)
    except OSError as exc:
        _error(f"{target}: cannot write: {exc.strerror or exc}")
        raise _Stop(ExitCode.USAGE) from None


def _print_parts(parts: Iterable[str], stream: TextIO) -> None:
    """`_print` of the parts' concatenation, written part by part."""
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
        if stream is sys.stdout:
            _silence_stdout()


def _print(text: str, stream: TextIO) -> None:
    """`text` and a newline; a reader that went away (`| head -1`) ends the output quietly."""
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        if stream is sys.stdout:
            _silence_stdout()
    except UnicodeEncodeError:  # a terminal that cannot show ✓: escape what it cannot show
        encoding = getattr(stream, "encoding", None) or "ascii"
        safe = text.encode(encoding, "backslashreplace").decode(encoding)
        print(safe, file=stream, flush=True)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail loudly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (captured in tests)
        pass


def _use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return stream.isatty()


def _error(message: str) -> None:
    print(f"tracecheck: error: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
