"""pytest plugin: capture the spans a test emits and hold them to trace contracts.

- fixture `trace_spans`: a real OpenTelemetry SDK `TracerProvider` for one test, exporting to
  memory; `.provider`, `.tracer(name)`, `.spans()`, `.load(path)`, `.assert_contract(contract)`.
  It never touches the global provider unless the test asks with
  `@pytest.mark.trace_spans(global_provider=True)`.
- marker `@pytest.mark.trace_contract("contracts/x.json", ...)`: after the test body passes,
  the captured spans are checked; a violation fails the test (in the call phase), and so does
  a test that emitted no span at all (nothing was checked).
- option `--tracecheck-evidence-dir DIR`: a failing check writes the spans (OTLP JSON) and the
  verdict (JSON) there.

Loaded through the `pytest11` entry point, or with `-p tracecheck.pytest_plugin`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest

from tracecheck.check import check
from tracecheck.contract import Contract, compile_contract
from tracecheck.errors import ContractError, TraceReadError
from tracecheck.readers import read_traces, spans_from_otel
from tracecheck.spans import Span, Trace
from tracecheck.testing import ContractInput, assert_contract, failure_message
from tracecheck.verdict import Verdict
from tracecheck.writers import to_otlp_json

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import Tracer

__all__ = ["SpanCapture", "assert_contract", "trace_spans"]

FIXTURE = "trace_spans"
MARKER = "trace_contract"
MISSING_SDK = (
    "the trace_spans fixture needs the OpenTelemetry SDK, which is not installed: "
    "pip install 'tracecheck[otel]'"
)

_EVIDENCE_DIR = pytest.StashKey[Path | None]()
_CAPTURE = pytest.StashKey["SpanCapture"]()
_CONTRACTS = pytest.StashKey[list[tuple[str, Contract]]]()


class SpanCapture:
    """The spans one test emits, through its own SDK `TracerProvider`."""

    def __init__(
        self,
        provider: TracerProvider,
        exporter: InMemorySpanExporter,
        *,
        node_id: str,
        evidence_dir: Path | None,
    ) -> None:
        self._provider = provider
        self._exporter = exporter
        self._node_id = node_id
        self._evidence_dir = evidence_dir

    @property
    def provider(self) -> TracerProvider:
        """The test's provider: hand it to the code under test."""
        return self._provider

    def tracer(self, name: str, version: str | None = None) -> Tracer:
        return self._provider.get_tracer(name, version)

    def spans(self) -> list[Span]:
        """Every span finished so far, in the order they ended."""
        return spans_from_otel(self._exporter.get_finished_spans())

    def clear(self) -> None:
        """Forget the spans captured so far."""
        self._exporter.clear()

    def load(self, path: str | Path, *, trace_id: str | None = None) -> Trace:
        """The one trace recorded in `path` (any format `read_traces` reads), or `trace_id`'s."""
        __tracebackhide__ = True
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

    def assert_contract(self, contract: ContractInput) -> Verdict:
        """`assert_contract` on the captured spans, writing evidence when the option asks."""
        __tracebackhide__ = True
        compiled = contract if isinstance(contract, Contract) else compile_contract(contract)
        verdict, message = self._check(compiled, compiled.source)
        if message is not None:
            raise AssertionError(message)
        return verdict

    def _check(self, contract: Contract, label: str | None) -> tuple[Verdict, str | None]:
        """The verdict on the captured spans and, unless it passes, the failure message."""
        spans = self.spans()
        verdict = check(spans, contract)
        if verdict.ok and spans:  # no span at all passes nothing: the capture is not wired
            return verdict, None
        message = failure_message(verdict, label, span_count=len(spans))
        if self._evidence_dir is not None:
            try:
                message += "\n" + self._write_evidence(spans, verdict)
            except OSError as exc:  # the verdict still reaches the user
                message += f"\nevidence could not be written to {self._evidence_dir}: {exc}"
        return verdict, message

    def _write_evidence(self, spans: list[Span], verdict: Verdict) -> str:
        assert self._evidence_dir is not None
        self._evidence_dir.mkdir(parents=True, exist_ok=True)
        stem = _file_stem(self._node_id)
        spans_path = self._evidence_dir / f"{stem}.otlp.json"
        verdict_path = self._evidence_dir / f"{stem}.{_file_stem(verdict.contract)}.verdict.json"
        spans_path.write_bytes(to_otlp_json(spans))
        document = {"version": 1, "test": self._node_id, **dataclasses.asdict(verdict)}
        verdict_path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        return f"evidence: {spans_path} and {verdict_path}"


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _file_stem(text: str) -> str:
    """A file name from a node id: unsafe runs become `_`; long names end in a short hash."""
    stem = _UNSAFE.sub("_", text).strip("._") or "test"
    if len(stem) > 120:
        stem = f"{stem[:100]}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    return stem


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tracecheck", "trace contracts (tracecheck)")
    group.addoption(
        "--tracecheck-evidence-dir",
        metavar="DIR",
        default=None,
        help="write the spans (OTLP JSON) and the verdict (JSON) of every failing "
        "trace-contract check into DIR",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*paths): check the spans captured by the {FIXTURE} fixture against these "
        "contract files (relative to the rootdir) after the test; a violation fails the test",
    )
    config.addinivalue_line(
        "markers",
        f"{FIXTURE}(global_provider=False): configure the {FIXTURE} fixture; "
        "global_provider=True installs its provider as the global one for this test only",
    )
    evidence = config.getoption("tracecheck_evidence_dir")
    config.stash[_EVIDENCE_DIR] = (
        config.invocation_params.dir / evidence if evidence is not None else None
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked `trace_contract` gets the fixture even when it did not ask for it."""
    for item in items:
        if not isinstance(item, pytest.Function) or item.get_closest_marker(MARKER) is None:
            continue
        if FIXTURE not in item.fixturenames:
            # A fresh list: parametrized siblings share the original one.
            item.fixturenames = [*item.fixturenames, FIXTURE]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Compile the marker's contracts before the test runs: a bad one is a setup error."""
    markers = list(item.iter_markers(MARKER))
    if not markers:
        return
    contracts: list[tuple[str, Contract]] = []
    problems: list[str] = []
    for marker in markers:
        if not marker.args or not all(isinstance(a, str | Path) for a in marker.args):
            pytest.fail(
                f"@pytest.mark.{MARKER} needs one or more contract paths, "
                f'e.g. @pytest.mark.{MARKER}("contracts/refund-desk.json")',
                pytrace=False,
            )
        for arg in marker.args:
            try:
                contracts.append((str(arg), compile_contract(item.config.rootpath / arg)))
            except ContractError as exc:
                problems.append(f"{MARKER}: {exc}")
    if problems:  # failed outside the handler: the report shows no chained ContractError
        pytest.fail("\n".join(problems), pytrace=False)
    item.stash[_CONTRACTS] = contracts


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After a passing test body, check the marker's contracts inside the call phase."""
    result = yield  # a test that already failed is reported as it is
    contracts = item.stash.get(_CONTRACTS, None)
    capture = item.stash.get(_CAPTURE, None)
    if contracts and capture is not None:
        failures = [m for label, c in contracts if (m := capture._check(c, label)[1]) is not None]
        if failures:  # the test's own traceback says nothing about the trace: leave it out
            pytest.fail("\n\n".join(failures), pytrace=False)
    return result


@pytest.fixture
def trace_spans(request: pytest.FixtureRequest) -> Generator[SpanCapture, None, None]:
    """An OpenTelemetry SDK provider for this test, recording its spans in memory.

    Hand `trace_spans.provider` (or `trace_spans.tracer(name)`) to the code under test, then
    read `trace_spans.spans()`. `@pytest.mark.trace_spans(global_provider=True)` also installs
    the provider globally for this test and restores the previous one afterwards.
    """
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from opentelemetry.sdk.trace.sampling import ALWAYS_ON
    except ImportError:
        sdk_missing = True
    else:
        sdk_missing = False
    if sdk_missing:  # failed outside the handler: the report shows no chained ImportError
        pytest.fail(MISSING_SDK, pytrace=False)
    marker = request.node.get_closest_marker(FIXTURE)
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    unknown = sorted(set(options) - {"global_provider"})
    if unknown or (marker is not None and marker.args):
        pytest.fail(
            f"@pytest.mark.{FIXTURE} takes only global_provider=True|False, "
            f"not {', '.join(unknown) or 'positional arguments'}",
            pytrace=False,
        )
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ALWAYS_ON)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    capture = SpanCapture(
        provider,
        exporter,
        node_id=request.node.nodeid,
        evidence_dir=request.config.stash.get(_EVIDENCE_DIR, None),
    )
    restore = _install_global(provider) if options.get("global_provider") else None
    request.node.stash[_CAPTURE] = capture
    try:
        yield capture
    finally:
        del request.node.stash[_CAPTURE]
        if restore is not None:
            restore()
        provider.shutdown()


def _install_global(provider: TracerProvider) -> Callable[[], None]:
    """Make `provider` the global one until the returned function restores the previous state.

    opentelemetry-api lets the global provider be set once per process (a `Once` guard beside
    the `_TRACER_PROVIDER` module global); both are swapped for the test and put back. Inside
    the test the guard reads as used, so `set_tracer_provider` keeps this provider (and warns).
    Tracers obtained from the global proxy during the test stay bound to this provider.
    """
    from opentelemetry import trace as api
    from opentelemetry.util._once import Once

    names = ("_TRACER_PROVIDER", "_TRACER_PROVIDER_SET_ONCE")
    if not all(hasattr(api, name) for name in names):
        pytest.fail(
            "global_provider=True is not supported with this opentelemetry-api version "
            "(its global provider guard changed); pass trace_spans.provider explicitly",
            pytrace=False,
        )
    saved = {name: getattr(api, name) for name in names}
    used = Once()
    used.do_once(lambda: None)
    api._TRACER_PROVIDER = provider
    api._TRACER_PROVIDER_SET_ONCE = used

    def restore() -> None:
        for name, value in saved.items():
            setattr(api, name, value)

    return restore
