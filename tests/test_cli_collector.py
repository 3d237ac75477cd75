"""`check` reads and checks with the cyclic garbage collector paused (a large trace makes no
reference cycles, but every pass of the collector walks all of it); the other commands, the
servers and the shipper keep it, and leave what they read in no cycle; the collector is as it
was once the command returns."""

from __future__ import annotations

import gc
import io
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracecheck.cli import Environment, ExitCode, main
from tracecheck.readers.by_trace import visit_traces

ROOT = Path(__file__).resolve().parent.parent
TRACE = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


class _Watched:
    """The reader, noting whether the collector ran while the command read."""

    def __init__(self, fails: bool = False) -> None:
        self.seen: list[bool] = []
        self.fails = fails

    def __call__(self, source: Any, *args: Any, **kwargs: Any) -> int:
        self.seen.append(gc.isenabled())
        if self.fails:
            raise RuntimeError("a reader bug")
        return visit_traces(source, *args, **kwargs)


def _env(read: _Watched) -> Environment:
    return Environment(io.StringIO(), io.StringIO(), io.StringIO(), {}, read=read)


@pytest.mark.usefixtures("collector_on")
@pytest.mark.parametrize(
    ("command", "paused"),
    [(["check", TRACE, "--contract", CONTRACT], True), (["show", TRACE], False)],
)
def test_check_reads_with_the_collector_paused_and_show_with_it_running(
    command: list[str], paused: bool
) -> None:
    read = _Watched()
    assert main(command, env=_env(read)) == ExitCode.OK
    assert read.seen == [not paused]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_on_again_after_a_command_that_breaks() -> None:
    read = _Watched(fails=True)
    code = main(["check", TRACE, "--contract", CONTRACT], env=_env(read))
    assert code != ExitCode.OK
    assert read.seen == [False]
    assert gc.isenabled()


def test_a_paused_collector_stays_paused() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        assert main(["check", TRACE, "--contract", CONTRACT], env=_env(_Watched())) == 0
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


@pytest.mark.usefixtures("collector_on")
def test_the_shipper_keeps_the_collector(tmp_path: Path) -> None:
    httpx = pytest.importorskip("httpx", reason="ship is in the serve extra")
    seen: list[bool] = []

    def ingest(request: Any) -> Any:
        seen.append(gc.isenabled())
        return httpx.Response(200, json={"accepted": 11, "rejected": []})

    environ = {
        "TANGLE_INGEST_URL": "https://ingest.example.test",
        "TANGLE_INGEST_API_KEY": "tk_" + "live_" + "FAKEfake" + "0123456789abcdef",
        "TANGLE_TENANT_ID": "acme-test",
        "TRACECHECK_STATE_DIR": str(tmp_path / "state"),  # where ship keeps its checkpoint
    }
    stderr = io.StringIO()
    env = Environment(
        io.StringIO(),
        io.StringIO(),
        stderr,
        environ,
        transport=httpx.MockTransport(ingest),
        sleep=lambda seconds: None,
    )
    assert main(["ship", TRACE], env=env) == ExitCode.OK, stderr.getvalue()
    assert seen and all(seen)


@pytest.mark.parametrize("command", ["show", "verify-safe", "redact"])
def test_a_command_leaves_no_span_or_redaction_state_in_a_reference_cycle(
    command: str, tmp_path: Path
) -> None:
    # What a cycle holds lives until the cyclic collector runs: the spans of every trace shown,
    # the prescan of every batch redacted or judged.
    words = {
        "show": ["show", TRACE],
        "verify-safe": ["verify-safe", TRACE],
        "redact": ["redact", TRACE, "--profile", "share", "-o", str(tmp_path / "out.jsonl")],
    }[command]

    def held() -> Counter[str]:
        kinds = {"Span", "Inspector", "Assessor", "Redactor", "QuietMappings"}
        return Counter(
            name for thing in gc.get_objects() if (name := type(thing).__qualname__) in kinds
        )

    gc.collect()
    was = gc.isenabled()
    gc.disable()  # what a cycle holds stays, what refcounting frees goes
    try:
        before = held()
        main(words, env=_env(_Watched()))
        after = held()
    finally:
        if was:
            gc.enable()
    assert after == before
