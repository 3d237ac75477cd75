"""How far `fleet check` has got: a line every few seconds in a log, a line redrawn in place on a
terminal, nothing with `-q`; read off a clock the test turns, never the wall clock."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tracecheck.cli import Environment, ExitCode, main
from tracecheck.cli.progress import RunProgress

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_a_line_every_interval_and_nothing_more() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = RunProgress(stream, 10.0, tty=False, clock=clock)
    clock.now += 4
    progress.add(read=30, failures=0)
    assert stream.getvalue() == ""  # a short run prints nothing
    clock.now += 6
    progress.add(read=20, failures=1)
    assert stream.getvalue() == (
        "tracecheck: 50 traces read from 2 inputs (5 traces/s), 1 not read\n"
    )
    clock.now += 1
    progress.add(read=5, failures=0)
    progress.done()
    assert stream.getvalue().count("\n") == 1


def test_a_terminal_line_is_drawn_again_in_place_wiped_and_ended() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = RunProgress(stream, 10.0, tty=True, clock=clock)
    clock.now += 1
    progress.add(read=10, failures=0)
    clock.now += 1
    progress.add(read=10, failures=0)
    assert stream.getvalue() == (
        "\rtracecheck: 10 traces read from 1 inputs (10 traces/s), 0 not read"
        "\rtracecheck: 20 traces read from 2 inputs (10 traces/s), 0 not read"
    )
    progress.clear()
    assert stream.getvalue().endswith("\r\x1b[K")
    clock.now += 1
    progress.add(read=10, failures=0)
    progress.done()
    assert stream.getvalue().endswith("(10 traces/s), 0 not read\n")


def test_a_run_that_printed_nothing_ends_with_nothing() -> None:
    stream = io.StringIO()
    progress = RunProgress(stream, 10.0, tty=True, clock=Clock())
    progress.add(read=1, failures=0)
    progress.done()
    assert stream.getvalue() == ""


@pytest.mark.parametrize("quiet", [False, True])
def test_fleet_check_says_how_far_it_got_unless_quiet(quiet: bool) -> None:
    pytest.importorskip("pyarrow", reason="the fleet extra is not installed")
    stderr = io.StringIO()
    # Every outcome is past the interval: a line for each input.
    env = Environment(io.StringIO(), io.StringIO(), stderr, {}, progress_seconds=0.0)
    traces = [
        str(ROOT / "fixtures" / "otel-genai" / name)
        for name in ("clean.otlp.jsonl", "leaky.otlp.pb")
    ]
    argv = ["fleet", "check", *traces, "--contract", str(ROOT / "contracts" / "refund-desk.json")]
    code = main([*argv, "-j", "1", *(["-q"] if quiet else [])], env=env)
    assert code in (ExitCode.OK, ExitCode.FAILED)
    lines = [line for line in stderr.getvalue().splitlines() if "traces read from" in line]
    if quiet:
        assert lines == []
        return
    assert [line.split(" (")[0] for line in lines] == [
        "tracecheck: 1 traces read from 1 inputs",
        "tracecheck: 2 traces read from 2 inputs",
    ]
    assert all(line.endswith("traces/s), 0 not read") for line in lines)


def test_a_directory_read_says_how_many_files_and_how_fast() -> None:
    from tracecheck.cli.inputs import Progress

    stream, clock = io.StringIO(), Clock()
    progress = Progress("runs", 10**9, stream, large=1, slow=2.0, clock=clock)  # said at once
    assert stream.getvalue() == "tracecheck: reading runs (1000 MB)…\n"
    clock.now += 1
    progress.advance(500, 20_000, 9_000)
    assert stream.getvalue().count("\n") == 1  # too soon after the last line
    clock.now += 1
    progress.advance(1_000, 20_000, 18_000)
    assert stream.getvalue().splitlines()[-1] == (
        "tracecheck: reading runs: 1,000 of 20,000 files, 18,000 spans (9,000 spans/s)…"
    )
    # Lines come less often as the run goes on: a third of the time taken, at most 30 s.
    clock.now += 40
    progress.advance(15_000, 20_000, 270_000)
    clock.now += 10
    progress.advance(16_000, 20_000, 288_000)
    assert stream.getvalue().count("\n") == 3  # 10 s after the last line, 52 s in: not yet
    clock.now += 12
    progress.advance(17_000, 20_000, 306_000)
    assert stream.getvalue().count("\n") == 4  # 22 s after it, 64 s in
    progress.stop()
    progress.done(360_000)
    assert stream.getvalue().splitlines()[-1] == "tracecheck: read 360000 spans in 64.0 s"


def test_a_quick_read_says_nothing_of_its_files() -> None:
    from tracecheck.cli.inputs import Progress

    stream, clock = io.StringIO(), Clock()
    progress = Progress("runs", 10, stream, large=10**9, slow=2.0, clock=clock)
    clock.now += 5
    progress.advance(10, 20, 100)
    progress.stop()
    progress.done(200)
    assert stream.getvalue() == ""
