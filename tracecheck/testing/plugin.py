"""pytest plugin: capture the spans a test emits and hold them to trace contracts.

- fixture `trace_spans`: the spans this test emitted, whichever way the code under test was
  instrumented (see "What is captured" below); `.spans()`, `.provider`, `.tracer(name)`,
  `.attach(provider)`, `.load(path)`, `.assert_contract(contract)`.
- marker `@pytest.mark.trace_contract("contracts/x.json", ...)`: after the test body passes,
  the captured spans are checked; a violation fails the test (in the call phase), and so does
  a test that emitted no span at all (nothing was checked), and a rule that could not be
  evaluated because the spans give reason to doubt that every tool or model call was recorded
  (unless `capture="lenient"` on the marker, `--tracecheck-lenient-capture`, or
  `tracecheck_lenient_capture = true` in the ini file).
- marker `@pytest.mark.trace_spans(global_provider=True)` (or `tracecheck_global_provider =
  true` in the ini file for every test): when no SDK `TracerProvider` is installed globally,
  install the session's provider as the global one, so that instrumentation set up once (a
  proxy tracer taken at import) records into it.
- options `--tracecheck-evidence-dir DIR`, `--tracecheck-known-secret-env NAME` (repeatable),
  `--tracecheck-evidence-raw`: a failing check writes its spans (OTLP JSON, redacted with the
  `default` profile unless raw) and its verdict (JSON) into DIR.
- golden runs (tracecheck.testing.golden): `trace_spans.assert_matches_golden(path)` and the
  marker `@pytest.mark.trace_golden(path)` diff the test's spans against a recorded run and
  fail with the diff; `--update-golden` records a missing golden and rewrites a changed one.
- marker `@pytest.mark.trace_repeat(runs, pass_hat_k=None, pass_rate=None, k=None)` (or
  `--tracecheck-repeat N` for every `trace_contract` test without it): the test runs that many
  times as one test, each run with fresh function-scoped fixtures and its own capture, and
  passes when pass^k or the pass rate reaches the threshold (by default every run must pass);
  the terminal summary gives each repeated test's rate and flaky rules
  (tracecheck.testing.repeat, tracecheck.testing.rerun).

What is captured, for the duration of each test (spans of other tests never are):
- spans of the global SDK `TracerProvider` that the application installed, automatically (the
  capture is added to it as a span processor; it is never replaced or shut down);
- spans of the global provider this plugin installs under `global_provider=True`;
- spans of `trace_spans.provider` (for code that is handed a provider), and of any provider
  passed to `trace_spans.attach(provider)` (an instrumentor given a private provider).
Through a shared provider, a span is this test's when it starts in the test's context: its own
thread and asyncio tasks, threads it starts, work it submits to a thread pool, and children of
its spans.

Loaded through the `pytest11` entry point, or with `-p tracecheck.testing.plugin`. Importing it
costs pytest's hooks and nothing more: tracecheck's checker, readers, redaction and the
OpenTelemetry SDK are imported when a test first uses the fixture or the marker.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Tracer

    from tracecheck.contract import Contract
    from tracecheck.contract.prices import PricesSource
    from tracecheck.diff import RunDiff
    from tracecheck.rules.capture import CaptureMode
    from tracecheck.spans import Span, Trace
    from tracecheck.testing.assertion import ContractInput, assert_contract
    from tracecheck.testing.capture import CaptureHub, TestSpans
    from tracecheck.testing.evidence import EvidenceSettings
    from tracecheck.testing.golden import GoldenSettings
    from tracecheck.testing.repeat import Repeat, RunCheck, RunInProgress
    from tracecheck.verdict import Verdict

__all__ = ["SpanCapture", "assert_contract", "trace_spans"]

FIXTURE = "trace_spans"
MARKER = "trace_contract"
GOLDEN_MARKER = "trace_golden"
REPEAT_MARKER = "trace_repeat"
GLOBAL_INI = "tracecheck_global_provider"
LENIENT_INI = "tracecheck_lenient_capture"
MISSING_SDK = (
    "the trace_spans fixture needs the OpenTelemetry SDK, which is not installed: "
    "pip install 'agent-tracecheck[otel]'"
)

_EVIDENCE = pytest.StashKey["EvidenceSettings | None"]()
_HUB = pytest.StashKey["CaptureHub"]()
_CAPTURE = pytest.StashKey["SpanCapture"]()
_CONTRACTS = pytest.StashKey[list[tuple[str, "Contract", "CaptureMode | None"]]]()
_CAPTURE_MODE = pytest.StashKey["CaptureMode | None"]()
_PRICES = pytest.StashKey["Path | None"]()  # --tracecheck-prices, from the invocation dir
_GOLDEN_WRITTEN = pytest.StashKey[list[str]]()  # golden files written, for the summary
_REPEAT_RUNS = pytest.StashKey["int | None"]()  # --tracecheck-repeat
_RUN = pytest.StashKey["RunInProgress"]()  # the run of a repeated test going on now
# The attribute tracecheck.testing.rerun gives a repeated test's call report: its summary line.
_REPEAT_SUMMARY = "tracecheck_repeat"


def __getattr__(name: str) -> Any:
    if name == "assert_contract":  # re-exported, imported on first use
        from tracecheck.testing.assertion import assert_contract

        return assert_contract
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class SpanCapture:
    """The spans one test emits (the `trace_spans` fixture)."""

    def __init__(
        self,
        hub: CaptureHub,
        test: TestSpans,
        *,
        evidence: EvidenceSettings | None,
        capture: CaptureMode | None = None,
        prices: Path | None = None,
        golden: GoldenSettings | None = None,
    ) -> None:
        self._prices = prices
        self._golden = golden
        self._hub = hub
        self._test = test
        self._provider = hub.test_provider(test)
        self._evidence = evidence
        self._capture = capture

    @property
    def provider(self) -> TracerProvider:
        """A provider of this test's own: hand it to code that takes a provider per call."""
        return self._provider

    def tracer(self, name: str, version: str | None = None) -> Tracer:
        return self._provider.get_tracer(name, version)

    def attach(self, provider: Any) -> None:
        """Capture this test's spans from an SDK provider the code under test keeps to itself
        (an instrumentor given `tracer_provider=`); it is never replaced or shut down, and
        stays attached for the rest of the session."""
        __tracebackhide__ = True
        if not callable(getattr(provider, "add_span_processor", None)):
            raise TypeError(
                f"trace_spans.attach needs an OpenTelemetry SDK TracerProvider, "
                f"not {type(provider).__qualname__}"
            )
        self._hub.attach(provider)

    def spans(self) -> list[Span]:
        """Every span of this test finished so far, in the order they ended."""
        from tracecheck.readers import spans_from_otel

        return spans_from_otel(self._test.finished())

    def clear(self) -> None:
        """Forget the spans captured so far."""
        self._test.clear()

    def load(self, path: str | Path, *, trace_id: str | None = None) -> Trace:
        """The one trace recorded in `path` (any format `read_traces` reads), or `trace_id`'s."""
        __tracebackhide__ = True
        from tracecheck.errors import TraceReadError
        from tracecheck.readers import read_traces

        traces = read_traces(path)
        if trace_id is not None:
            chosen = [t for t in traces if t.trace_id == trace_id]
            if not chosen:
                raise TraceReadError(str(path), f"holds no trace with id {trace_id}")
            return chosen[0]
        if len(traces) != 1:
            raise TraceReadError(
                str(path), f"holds {len(traces)} traces; pass trace_id= to choose one"
            )
        return traces[0]

    def assert_contract(
        self,
        contract: ContractInput,
        *,
        capture: CaptureMode | None = None,
        prices: PricesSource | None = None,
    ) -> Verdict:
        """`assert_contract` on the captured spans, writing evidence when the option asks;
        `capture` overrides the session's (`--tracecheck-lenient-capture`), `prices` the
        session's price table (`--tracecheck-prices`), which replaces the contract's."""
        __tracebackhide__ = True
        from tracecheck.contract import Contract, compile_contract
        from tracecheck.contract.prices import load_prices, priced

        compiled = contract if isinstance(contract, Contract) else compile_contract(contract)
        table = prices if prices is not None else self._prices
        if table is not None:
            compiled = priced(compiled, load_prices(table))
        verdict, message = self._check(compiled, compiled.source, capture)
        if message is not None:
            raise AssertionError(message)
        return verdict

    def assert_matches_golden(self, path: str | os.PathLike[str], **options: Any) -> RunDiff | None:
        """The captured spans against the golden run in `path` (from the rootdir), failing with
        the diff unless the runs are the same within the tolerances; `--update-golden` records
        it instead (tracecheck.testing.golden, whose `OPTIONS` this takes). Returns the diff
        (None when the golden was just recorded)."""
        __tracebackhide__ = True
        diff, message = self._match_golden(path, options)
        if message is not None:
            raise AssertionError(message)
        return diff

    def _match_golden(
        self, path: str | os.PathLike[str], options: Mapping[str, Any]
    ) -> tuple[RunDiff | None, str | None]:
        from tracecheck.testing.golden import marker_options, match_golden

        problem = marker_options(options)
        if problem is not None:
            raise TypeError(f"assert_matches_golden {problem}")
        assert self._golden is not None
        options = {"capture": self._capture, **options}
        return match_golden(self.spans(), path, self._golden, **options)

    def _check(
        self, contract: Contract, label: str | None, capture: CaptureMode | None = None
    ) -> tuple[Verdict, str | None]:
        """The verdict on the captured spans and, unless it passes, the failure message."""
        verdict, message, _ = self._check_run(contract, label, capture)
        return verdict, message

    def _check_run(
        self, contract: Contract, label: str | None, capture: CaptureMode | None = None
    ) -> tuple[Verdict, str | None, RunCheck]:
        """`_check`, and what a run of a repeated test keeps of it: the rules judged and the
        first problem, in one line."""
        from tracecheck.check import check
        from tracecheck.testing.assertion import failure_message, first_problem, no_spans_message
        from tracecheck.testing.repeat import run_check

        spans = self.spans()
        verdict = check(spans, contract, capture=capture or self._capture)
        notes = list(self._test.notes)
        if not spans:
            message = problem = no_spans_message(verdict.contract, self._why_nothing())
        elif verdict.ok and not notes:
            return verdict, None, run_check(verdict, None, spans_seen=True)
        else:
            message = failure_message(
                verdict, label, contract=contract, spans=spans, capture_notes=notes
            )
            problem = first_problem(verdict, contract=contract, spans=spans, capture_notes=notes)
        if self._evidence is not None:
            message += "\n" + self._write_evidence(spans, verdict)
        return verdict, message, run_check(verdict, problem, spans_seen=bool(spans))

    def _write_evidence(self, spans: list[Span], verdict: Verdict) -> str:
        from tracecheck.testing.evidence import write_evidence

        assert self._evidence is not None
        try:
            return write_evidence(self._evidence, self._test.node_id, spans, verdict)
        except OSError as exc:  # the verdict still reaches the user
            return f"evidence could not be written to {self._evidence.directory}: {exc}"

    def _why_nothing(self) -> str:
        """Why no span was captured, and what to do, as one clause."""
        if self._test.notes:
            return "; ".join(self._test.notes)
        found = self._hub.global_provider()
        sampling = self._hub.sampling_problem(found)
        if sampling is not None:
            return sampling
        if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return "OTEL_SDK_DISABLED is set, so the OpenTelemetry SDK records nothing; unset it"
        given = "for code that takes a provider, hand it trace_spans.provider"
        if found is self._hub.provider:
            return (
                "the global provider installed for the tests received no span from this test: "
                f"is the instrumentation set up (instrument() called)? {given}"
            )
        if callable(getattr(found, "add_span_processor", None)):
            return (
                "the global TracerProvider received no span from this test: for an instrumentor "
                f"given a provider of its own, call trace_spans.attach(that provider); {given}"
            )
        if type(found).__name__ == "ProxyTracerProvider":
            return (
                "no OpenTelemetry SDK TracerProvider is installed globally: for instrumentation "
                f"set up once, mark the test @pytest.mark.{FIXTURE}(global_provider=True) or set "
                f"{GLOBAL_INI} = true in the ini file; {given}"
            )
        return (
            f"the global tracer provider is a {type(found).__qualname__}, which takes no span "
            f"processor: {given}"
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tracecheck", "trace contracts (tracecheck)")
    group.addoption(
        "--tracecheck-evidence-dir",
        metavar="DIR",
        default=None,
        help="write the spans (OTLP JSON, redacted with the default profile) and the verdict "
        "(JSON) of every failing trace-contract check into DIR",
    )
    group.addoption(
        "--tracecheck-known-secret-env",
        metavar="NAME",
        action="append",
        default=[],
        help="an environment variable holding a secret to cut from the evidence files in "
        "every encoding (repeatable)",
    )
    group.addoption(
        "--tracecheck-evidence-raw",
        action="store_true",
        default=False,
        help="keep the evidence spans as recorded, unredacted (local debugging only: never "
        "upload them)",
    )
    group.addoption(
        "--tracecheck-lenient-capture",
        action="store_true",
        default=False,
        help="judge rules about tools and models even when the spans give reason to doubt "
        "that every call was recorded, with a note only (by default such a rule fails the test)",
    )
    group.addoption(
        "--tracecheck-prices",
        metavar="FILE",
        default=None,
        help="price table (JSON or YAML: model → input, output, cacheRead, cacheWrite in USD per "
        "million tokens) for llm.maxCostUsd, replacing the contracts' own prices; a marker's or "
        "assert_contract's prices= goes first",
    )
    group.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="record golden runs that are missing and rewrite those a test's run differs from "
        "(redacted with the default profile); without it a missing golden fails the test",
    )
    group.addoption(
        "--tracecheck-repeat",
        metavar="N",
        type=int,
        default=None,
        help="run every test marked trace_contract (and not trace_repeat) N times as one test, "
        "which passes only if every run does; the terminal summary gives each one's pass rate "
        "and flaky rules",
    )
    parser.addini(
        LENIENT_INI,
        type="bool",
        default=False,
        help="as --tracecheck-lenient-capture, for every run",
    )
    parser.addini(
        GLOBAL_INI,
        type="bool",
        default=False,
        help="install one OpenTelemetry SDK TracerProvider globally for the trace_spans "
        "fixture when none is (as @pytest.mark.trace_spans(global_provider=True) does)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*paths, capture=None, prices=None): check the spans captured by the "
        f"{FIXTURE} fixture against these contract files (relative to the rootdir) after the "
        'test; a violation fails the test; capture="lenient" judges rules whose calls are in '
        "doubt; prices names a price table for llm.maxCostUsd",
    )
    config.addinivalue_line(
        "markers",
        f"{FIXTURE}(global_provider=False): configure the {FIXTURE} fixture; "
        "global_provider=True installs a session TracerProvider globally when none is set",
    )
    config.addinivalue_line(
        "markers",
        f"{GOLDEN_MARKER}(path, tokens_tolerance=None, duration_tolerance=None, "
        'match_arguments="ignore", capture=None, trace_id=None): diff the spans captured by '
        f"the {FIXTURE} fixture against the golden run in path (relative to the rootdir) "
        "after the test; a divergence fails the test; --update-golden records the golden",
    )
    config.addinivalue_line(
        "markers",
        f"{REPEAT_MARKER}(runs, pass_hat_k=None, pass_rate=None, k=None): run the test runs "
        "times as one test, each run with fresh function-scoped fixtures; a run passes when its "
        f"body and its {MARKER} checks do; the test passes when pass^k (k = runs unless given) "
        "or the pass rate reaches the threshold, by default when every run passes",
    )
    runs = config.getoption("tracecheck_repeat")
    if runs is not None and runs < 1:
        raise pytest.UsageError(f"--tracecheck-repeat is a number of runs, 1 or more, not {runs}")
    config.stash[_REPEAT_RUNS] = runs
    config.stash[_GOLDEN_WRITTEN] = []
    lenient = config.getoption("tracecheck_lenient_capture") or config.getini(LENIENT_INI)
    config.stash[_CAPTURE_MODE] = "lenient" if lenient else None
    prices = config.getoption("tracecheck_prices")
    config.stash[_PRICES] = None if prices is None else config.invocation_params.dir / prices
    evidence = config.getoption("tracecheck_evidence_dir")
    if evidence is None:
        config.stash[_EVIDENCE] = None
        return
    from tracecheck.testing.evidence import EvidenceSettings

    config.stash[_EVIDENCE] = EvidenceSettings(
        config.invocation_params.dir / evidence,
        raw=bool(config.getoption("tracecheck_evidence_raw")),
        known_secret_env=tuple(config.getoption("tracecheck_known_secret_env")),
    )


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The golden files `--update-golden` wrote, so that none is committed unreviewed; each
    repeated test's pass rate and flaky rules, passing or not."""
    written = config.stash.get(_GOLDEN_WRITTEN, None)
    if written:
        terminalreporter.section("tracecheck golden runs")
        for line in written:
            terminalreporter.write_line(line)
    # Read from the reports, not from this process: under pytest-xdist the runs happened in
    # a worker, and only its reports reach the controller that writes the summary.
    repeated = sorted(
        (report.nodeid, summary)
        for reports in terminalreporter.stats.values()
        for report in reports
        if isinstance(summary := getattr(report, _REPEAT_SUMMARY, None), str)
    )
    if repeated:
        terminalreporter.section("tracecheck repeated tests")
        for nodeid, summary in repeated:
            terminalreporter.write_line(f"{nodeid} {summary}")


def pytest_unconfigure(config: pytest.Config) -> None:
    hub = config.stash.get(_HUB, None)
    if hub is not None:
        hub.close()
        del config.stash[_HUB]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked `trace_contract` gets the fixture even when it did not ask for it, set up
    before its other fixtures, so that spans they emit are captured too."""
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        if (
            item.get_closest_marker(MARKER) is None
            and item.get_closest_marker(GOLDEN_MARKER) is None
        ):
            continue
        if FIXTURE not in item.fixturenames:
            # A fresh list: parametrized siblings share the original one.
            item.fixturenames = [FIXTURE, *item.fixturenames]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """A repeated test runs all its runs here, reported as one test; any other test goes on to
    pytest's own protocol (first, so that no other plugin runs a repeated test once). A wrong
    `trace_repeat` marker is reported here as the test's setup error, before any setup hook:
    there xfail would turn it into an expected failure."""
    problem = _repeat_problem(item)
    if problem is not None:
        from tracecheck.testing.rerun import refuse

        refuse(item, nextitem, problem)
        return True
    repeat = _repeat_of(item)
    if repeat is None:
        return None
    from tracecheck.testing.rerun import run_repeated

    run_repeated(item, nextitem, repeat, _RUN)
    return True


def _repeat_of(item: pytest.Item) -> Repeat | None:
    """How `item` repeats, or None when it runs once: not marked (nor a `trace_contract` test
    under `--tracecheck-repeat`), not a test function, or under `--setup-only`. Its marker is
    right (see `_repeat_problem`)."""
    if not isinstance(item, pytest.Function) or item.config.getoption("setuponly", False):
        return None
    marker = item.get_closest_marker(REPEAT_MARKER)
    if marker is None:
        runs = item.config.stash.get(_REPEAT_RUNS, None)
        if runs is None or item.get_closest_marker(MARKER) is None:
            return None
        if item.get_closest_marker("xfail") is not None:
            return None  # the option leaves it alone; the marker refuses it (_repeat_problem)
        from tracecheck.testing.repeat import Repeat

        return Repeat(runs, runs)
    from tracecheck.testing.repeat import Repeat

    return Repeat.from_marker(marker.args, marker.kwargs)


def _repeat_problem(item: pytest.Item) -> str | None:
    """What is wrong with the test's `trace_repeat` marker, or None."""
    marker = item.get_closest_marker(REPEAT_MARKER)
    if marker is None:
        return None
    from tracecheck.testing.repeat import marker_problem

    problem = marker_problem(marker.args, marker.kwargs)
    if problem is None and item.get_closest_marker("xfail") is not None:
        # xfail turns each failing run into a skip: the threshold says how often it may fail
        problem = "does not combine with xfail: its threshold says how often the test may fail"
    return None if problem is None else f"@pytest.mark.{REPEAT_MARKER} {problem}"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Compile the marker's contracts before the test runs: a bad one is a setup error (and
    so is a golden marker with a wrong option)."""
    _check_golden_markers(item)
    markers = list(item.iter_markers(MARKER))
    if not markers:
        return
    from tracecheck.contract import compile_contract
    from tracecheck.contract.builtin import is_builtin
    from tracecheck.contract.prices import load_prices, priced
    from tracecheck.errors import ContractError

    contracts: list[tuple[str, Contract, CaptureMode | None]] = []
    problems: list[str] = []
    for marker in markers:
        if not marker.args or not all(isinstance(a, str | Path) for a in marker.args):
            pytest.fail(
                f"@pytest.mark.{MARKER} needs one or more contract paths, "
                f'e.g. @pytest.mark.{MARKER}("contracts/refund-desk.json")',
                pytrace=False,
            )
        capture = marker.kwargs.get("capture")
        table = marker.kwargs.get("prices")
        wrong = _marker_options_problem(marker.kwargs)
        if wrong is not None:
            pytest.fail(
                f'@pytest.mark.{MARKER} takes only capture="strict"|"lenient" and prices=FILE '
                f"beside its contract paths, not {wrong}",
                pytrace=False,
            )
        try:  # a marker's table is a path from the rootdir, as its contracts are
            where = item.config.stash[_PRICES] if table is None else item.config.rootpath / table
            prices = None if where is None else load_prices(where)
        except ContractError as exc:
            problems.append(f"{MARKER}: {exc}")
            continue
        for arg in marker.args:
            try:
                # `builtin:NAME` is a ready-made contract; anything else a path from the rootdir
                source = arg if is_builtin(arg) else item.config.rootpath / arg
                contracts.append((str(arg), priced(compile_contract(source), prices), capture))
            except ContractError as exc:
                problems.append(f"{MARKER}: {exc}")
    if problems:  # failed outside the handler: the report shows no chained ContractError
        pytest.fail("\n".join(problems), pytrace=False)
    item.stash[_CONTRACTS] = contracts


def _check_golden_markers(item: pytest.Item) -> None:
    """Each `trace_golden` marker names one path and takes only the golden options."""
    for marker in item.iter_markers(GOLDEN_MARKER):
        if len(marker.args) != 1 or not isinstance(marker.args[0], str | Path):
            pytest.fail(
                f"@pytest.mark.{GOLDEN_MARKER} needs one golden run path, "
                f'e.g. @pytest.mark.{GOLDEN_MARKER}("goldens/refund.otlp.json")',
                pytrace=False,
            )
        from tracecheck.testing.golden import marker_options

        problem = marker_options(marker.kwargs)
        if problem is not None:
            pytest.fail(f"@pytest.mark.{GOLDEN_MARKER} {problem}", pytrace=False)


def _marker_options_problem(options: Mapping[str, Any]) -> str | None:
    """What is wrong with a `trace_contract` marker's keywords, or None."""
    from tracecheck.rules.capture import CAPTURES

    unknown = sorted(set(options) - {"capture", "prices"})
    if unknown:
        return ", ".join(unknown)
    capture = options.get("capture")
    if capture is not None and capture not in CAPTURES:
        return repr(capture)
    table = options.get("prices")
    if table is not None and not isinstance(table, str | Path):
        return f"prices={table!r}"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After a passing test body, check the marker's contracts and golden runs inside the call
    phase."""
    result = yield  # a test that already failed is reported as it is
    contracts = item.stash.get(_CONTRACTS, None) or []
    capture = item.stash.get(_CAPTURE, None)
    run: RunInProgress | None = item.stash.get(_RUN, None)  # a repeated test's: checks count
    if capture is not None:
        failures = []
        for label, contract, mode in contracts:
            _, message, checked = capture._check_run(contract, label, mode)
            if run is not None:
                run.checks.append(checked)
            if message is not None:
                failures.append(message)
        failures += [
            message
            for marker in item.iter_markers(GOLDEN_MARKER)
            if (message := capture._match_golden(marker.args[0], marker.kwargs)[1]) is not None
        ]
        if failures:  # the test's own traceback says nothing about the trace: leave it out
            pytest.fail("\n\n".join(failures), pytrace=False)
    return result


@pytest.fixture
def trace_spans(request: pytest.FixtureRequest) -> Generator[SpanCapture, None, None]:
    """The spans this test emits, through the global SDK provider (the app's, attached to;
    or the session's, with `global_provider=True`) and through `trace_spans.provider`."""
    marker = request.node.get_closest_marker(FIXTURE)
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    unknown = sorted(set(options) - {"global_provider"})
    if unknown or (marker is not None and marker.args):
        pytest.fail(
            f"@pytest.mark.{FIXTURE} takes only global_provider=True|False, "
            f"not {', '.join(unknown) or 'positional arguments'}",
            pytrace=False,
        )
    try:
        from tracecheck.testing.capture import CaptureHub
    except ImportError:
        sdk_missing = True
    else:
        sdk_missing = False
    if sdk_missing:  # failed outside the handler: the report shows no chained ImportError
        pytest.fail(MISSING_SDK, pytrace=False)
    config = request.config
    hub = config.stash.get(_HUB, None)
    if hub is None:
        hub = config.stash[_HUB] = CaptureHub()
    wanted = bool(options.get("global_provider", config.getini(GLOBAL_INI)))
    if wanted:
        problem = hub.install_global()
        if problem is not None:
            pytest.fail(
                f"global_provider=True: {problem}; hand trace_spans.provider to the code "
                "under test instead",
                pytrace=False,
            )
    else:
        hub.attach(hub.global_provider())
    run = request.node.stash.get(_RUN, None)
    # Each run of a repeated test is a test of its own to the capture (and its evidence files)
    name = request.node.nodeid if run is None else f"{request.node.nodeid} (run {run.number})"
    test, token = hub.begin(name)
    from tracecheck.testing.golden import GoldenSettings

    capture = SpanCapture(
        hub,
        test,
        evidence=config.stash.get(_EVIDENCE, None),
        capture=config.stash.get(_CAPTURE_MODE, None),
        prices=config.stash.get(_PRICES, None),
        golden=GoldenSettings(
            config.rootpath,
            update=bool(config.getoption("update_golden")),
            known_secret_env=tuple(config.getoption("tracecheck_known_secret_env")),
            written=config.stash.get(_GOLDEN_WRITTEN, []),
        ),
    )
    request.node.stash[_CAPTURE] = capture
    try:
        yield capture
    finally:
        del request.node.stash[_CAPTURE]
        hub.end(test, token)
