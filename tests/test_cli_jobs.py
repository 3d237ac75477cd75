"""`tracecheck check --jobs N`: worker processes read and check (`tracecheck.run` on a local
process pool), and every report, note, failure and exit code is the one `--jobs 1` gives, in the
same order."""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tracecheck.cli.arguments as arguments
import tracecheck.cli.running as running
import tracecheck.run.executors as executors
from tracecheck.cli import Environment, ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
NO_SHELL = str(ROOT / "contracts" / "no-shell.yaml")
# Files of distinct traces (each trace in one file), of several formats and producers.
DISTINCT = (
    "otel-genai/clean.otlp.jsonl",
    "otel-genai/forbidden.otlp.jsonl",
    "otel-genai/leaky.otlp.pb",
    "otel-genai/timeout.otlp.jsonl",
    "otel-genai/repeated-write.otlp.pb",
    "otel-genai/clean-batched.otlp.pbstream",
    "openinference/cache.otlp.jsonl",
    "openinference/forbidden.otlp.pb",
    "producers/crewai/wrappers/tool-error.otlp.jsonl",
    "producers/autogen/team/clean.otlp.pb",
)
# A trace held by two files: a directory holding both is read by the parent again.
TWICE = ("openinference/cache.otlp.pb", "otel-genai/clean.otlp.pb")


def _copy(tmp_path: Path, names: tuple[str, ...] | list[str], folder: str = "traces") -> Path:
    """The fixture files `names` in one directory, each named after its place in `fixtures/`
    (so that their sorted order is the order given)."""
    target = tmp_path / folder
    target.mkdir()
    for number, name in enumerate(names):
        flat = f"{number:02d}-" + name.replace("/", "-")
        shutil.copyfile(FIXTURES / name, target / flat)
    return target


def _run(argv: list[str], tmp_path: Path, jobs: int, stdin: str = "") -> dict[str, Any]:
    """One run of `check` with `--jobs jobs`, in-process, with its own streams, its JSON and
    JUnit reports and GitHub's annotations and job summary; all it wrote, and its exit code."""
    out = tmp_path / f"jobs{jobs}"
    shutil.rmtree(out, ignore_errors=True)  # what an earlier run wrote
    out.mkdir()
    summary = out / "summary.md"
    summary.write_text("")
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    env = Environment(io.TextIOWrapper(io.BytesIO(stdin.encode())), stdout, stderr, environ)
    reports = ["--json", str(out / "report.json"), "--junit", str(out / "junit.xml")]
    code = main(["check", *argv, *reports, "--jobs", str(jobs)], env=env)
    junit = (out / "junit.xml").read_text() if (out / "junit.xml").exists() else None
    return {
        "code": code,
        "stdout": stdout.getvalue(),
        "stderr": stderr.getvalue(),
        "json": (out / "report.json").read_text() if (out / "report.json").exists() else None,
        # How long each check took, and when, are the one thing two runs never share.
        "junit": re.sub(r' (time|timestamp)="[^"]+"', r' \1="-"', junit) if junit else None,
        "summary": summary.read_text(),
    }


def _same(argv: list[str], tmp_path: Path, jobs: int = 2, stdin: str = "") -> dict[str, Any]:
    one = _run(argv, tmp_path, 1, stdin)
    many = _run(argv, tmp_path, jobs, stdin)
    assert many == one
    return one


class _Watch:
    """Which inputs this process read itself while workers were at hand, and how many pools
    of workers were started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.here: list[str] = []
        self.pools = 0
        self.working = False
        watch = self

        class Here(executors._Here):
            def submit(self, units: tuple[Any, ...]) -> Any:
                if watch.working:
                    watch.here.extend(dict.fromkeys(unit.source for unit in units))
                return super().submit(units)

        class Pool(executors._Pool):
            def __init__(self, *args: Any) -> None:
                watch.pools += 1
                watch.working = True
                super().__init__(*args)

            def close(self) -> None:
                watch.working = False
                super().close()

        monkeypatch.setattr(executors, "_Here", Here)
        monkeypatch.setattr(executors, "_Pool", Pool)


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> _Watch:
    return _Watch(monkeypatch)


@pytest.fixture(autouse=True)
def small_inputs_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixtures are small: here, workers read them all the same."""
    monkeypatch.setattr(running, "WORTH_BYTES", 0)


def test_a_directory_of_traces_reports_the_same_with_two_jobs(
    tmp_path: Path, watch: _Watch
) -> None:
    traces = _copy(tmp_path, DISTINCT)
    one = _same([str(traces), "--contract", CONTRACT, "--contract", NO_SHELL], tmp_path)
    assert one["code"] == ExitCode.USAGE  # some rules cannot be judged on some producers' spans
    assert one["stdout"].count("contract ") > len(DISTINCT)  # every trace, both contracts
    assert '"unread": []' in (one["json"] or "")
    assert (watch.pools, watch.here) == (1, [])  # read by the workers, not again here


@pytest.mark.parametrize("flags", [["-q"], ["-v"], ["--strict-capture"], ["--json", "-"]])
def test_every_output_is_the_same_with_three_jobs(
    tmp_path: Path, watch: _Watch, flags: list[str]
) -> None:
    traces = _copy(tmp_path, DISTINCT)
    argv = [str(traces), "--contract", CONTRACT, *flags]
    if flags == ["--json", "-"]:  # the report on stdout, the text on stderr
        one = _run([*argv[:-2], "--json", "-"], tmp_path, 1)
        many = _run([*argv[:-2], "--json", "-"], tmp_path, 3)
        assert many["stdout"] == one["stdout"] and many["stderr"] == one["stderr"]
        return
    _same(argv, tmp_path, jobs=3)
    assert watch.here == []


def test_a_broken_file_fails_alone_at_its_place(tmp_path: Path, watch: _Watch) -> None:
    traces = _copy(tmp_path, DISTINCT)
    broken = traces / "04-broken.otlp.jsonl"
    broken.write_text('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5}]}]}]}\n')
    (traces / "README.md").write_text("not a trace\n")
    one = _same([str(traces), "--contract", CONTRACT], tmp_path)
    assert one["code"] == ExitCode.UNREADABLE
    assert one["stderr"].startswith(f"tracecheck: error: {broken}: resourceSpans[0]")
    assert str(broken) in (one["json"] or "") and str(broken) in (one["junit"] or "")
    assert watch.here == []


def test_shares_holding_one_trace_are_read_again_together(tmp_path: Path, watch: _Watch) -> None:
    # The same runs as JSON Lines and as protobuf: each trace is in two files.
    names = [
        f"otel-genai/{s}.otlp.{x}" for s in ("clean", "leaky", "timeout") for x in ("jsonl", "pb")
    ]
    traces = _copy(tmp_path, names)
    one = _same([str(traces), "--contract", CONTRACT], tmp_path)
    # The notes of the whole directory, printed under the verdicts of the traces they concern.
    assert "  note: " in one["stdout"] and "recorded more than once" in one["stdout"]
    assert (watch.pools, watch.here) == (1, [])  # by the workers, not here


def test_several_inputs_and_standard_input_keep_their_order(tmp_path: Path, watch: _Watch) -> None:
    first = _copy(tmp_path, DISTINCT[:4], "first")
    second = _copy(tmp_path, DISTINCT[4:], "second")
    stdin = (FIXTURES / "otel-genai/cache.otlp.jsonl").read_text()
    argv = [str(second), "-", str(FIXTURES / "otel-genai/leaky.otlp.jsonl"), str(first)]
    one = _same([*argv, "--contract", CONTRACT], tmp_path, stdin=stdin)
    assert one["stdout"].index(str(second)) < one["stdout"].index("<stdin>")
    assert one["stdout"].index("<stdin>") < one["stdout"].index(str(first))
    assert watch.here == ["-"]


def test_trace_id_and_an_empty_or_missing_input(tmp_path: Path) -> None:
    traces = _copy(tmp_path, DISTINCT)
    empty = tmp_path / "empty"
    empty.mkdir()
    wanted = "942f74be67bab4fa7e8a31d4c6fac772"  # otel-genai/leaky
    one = _same([str(traces), "--contract", CONTRACT, "--trace-id", wanted.upper()], tmp_path)
    assert one["stdout"].count("contract ") == 1
    missing = str(tmp_path / "missing")
    one = _same([str(traces), str(empty), missing, "--contract", CONTRACT], tmp_path)
    assert one["code"] == ExitCode.UNREADABLE
    one = _same([str(traces), "--contract", CONTRACT, "--trace-id", "0" * 32], tmp_path)
    assert "no trace has id" in one["stderr"]


POOL = DISTINCT + TWICE + ("otel-genai/cache.otlp.pb", "openinference/clean-batched.otlp.jsonl")


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    names=st.lists(st.sampled_from(POOL), min_size=2, max_size=8, unique=True),
    jobs=st.sampled_from([2, 3]),
    quiet=st.booleans(),
)
def test_any_subset_of_fixtures_reports_the_same(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], jobs: int, quiet: bool
) -> None:
    tmp_path = tmp_path_factory.mktemp("subset")
    traces = _copy(tmp_path, names)
    flags = ["-q"] if quiet else []
    _same([str(traces), "--contract", CONTRACT, *flags], tmp_path, jobs=jobs)


def test_a_single_file_or_standard_input_is_read_by_one_process(
    tmp_path: Path, watch: _Watch
) -> None:
    single = str(FIXTURES / "otel-genai/forbidden.otlp.jsonl")
    _same([single, "--contract", CONTRACT], tmp_path)
    stdin = Path(single).read_text()
    _same(["-", "--contract", CONTRACT], tmp_path, stdin=stdin)
    assert (watch.pools, watch.here) == (0, [])


def _die(*args: object, **kwargs: object) -> int:
    """A reader that takes its worker down with it."""
    os._exit(7)


def test_a_worker_that_dies_fails_its_inputs_without_hanging(tmp_path: Path) -> None:
    traces = _copy(tmp_path, DISTINCT)
    stderr = io.StringIO()
    env = Environment(io.StringIO(), io.StringIO(), stderr, {}, read=_die)
    code = main(["check", str(traces), "--contract", CONTRACT, "--jobs", "2"], env=env)
    assert code == ExitCode.UNREADABLE
    # A reading that outlasts 2 s on a loaded machine prints a progress line before the error.
    errors = [
        line for line in stderr.getvalue().splitlines() if line.startswith("tracecheck: error")
    ]
    assert errors == [
        f"tracecheck: error: {file}: could not be checked: internal error: BrokenProcessPool"
        for file in sorted(traces.iterdir())
    ]


def _die_on_leaky(source: str, *args: Any, **kwargs: Any) -> object:
    """A reader that takes its worker down on one file of a directory, and reads the rest."""
    from tracecheck.readers.by_trace import visit_traces

    if any("leaky" in str(path) for path in kwargs.get("share") or ()):
        os._exit(7)
    return visit_traces(source, *args, **kwargs)


def test_only_the_file_that_kills_its_worker_fails(tmp_path: Path) -> None:
    traces = _copy(tmp_path, DISTINCT)
    one = _run([str(traces), "--contract", CONTRACT, "-q"], tmp_path, 1)
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(io.StringIO(), stdout, stderr, {}, read=_die_on_leaky)
    code = main(["check", str(traces), "--contract", CONTRACT, "-q", "--jobs", "2"], env=env)
    assert code == ExitCode.UNREADABLE
    errors = [line for line in stderr.getvalue().splitlines() if line.startswith("tracecheck: e")]
    leaky = next(file for file in sorted(traces.iterdir()) if "leaky" in file.name)
    assert errors == [
        f"tracecheck: error: {leaky}: could not be checked: internal error: BrokenProcessPool"
    ]
    verdicts = [line for line in one["stdout"].splitlines() if not line.startswith("::")]
    assert stdout.getvalue().splitlines() == [line for line in verdicts if "leaky" not in line]


def test_a_reader_that_cannot_be_sent_to_workers_reads_in_this_process(
    tmp_path: Path, watch: _Watch
) -> None:
    from tracecheck.readers.by_trace import visit_traces

    traces = _copy(tmp_path, DISTINCT[:3])
    read: list[object] = []

    def counted(source: object, *args: Any, **kwargs: Any) -> object:  # a closure: no pickle
        read.append(source)
        return visit_traces(source, *args, **kwargs)  # type: ignore[arg-type]

    env = Environment(io.StringIO(), io.StringIO(), io.StringIO(), {}, read=counted)
    assert main(["check", str(traces), "--contract", CONTRACT, "-j", "2"], env=env) == 1
    assert read and watch.pools == 0


def test_jobs_takes_a_count_or_auto() -> None:
    cores = arguments.available_cores()
    assert arguments.jobs_count("3") == 3
    assert arguments.jobs_count("0") == arguments.jobs_count("auto") == cores
    for wrong in ("-1", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            arguments.jobs_count(wrong)
    assert main(["check", "x", "--contract", CONTRACT, "--jobs", "-2"]) == ExitCode.USAGE


def test_small_inputs_are_read_by_one_process(
    tmp_path: Path, watch: _Watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(running, "WORTH_BYTES", 16 << 20)
    traces = _copy(tmp_path, DISTINCT)
    _same([str(traces), "--contract", CONTRACT], tmp_path)
    assert watch.pools == 0


def _many_traces(target: Path, copies: int) -> Path:
    """One JSON Lines file of `copies` runs of the OTel GenAI fixtures, each under its own
    trace id: over 4 MiB from 300 runs, so that the reader indexes it record by record."""
    names = ("clean", "forbidden", "leaky", "timeout", "repeated-write", "cache")
    with target.open("w") as out:
        for copy in range(copies):
            text = (FIXTURES / f"otel-genai/{names[copy % len(names)]}.otlp.jsonl").read_text()
            for trace_id in sorted(set(re.findall(r'"traceId":\s*"([0-9a-f]{32})"', text))):
                text = text.replace(trace_id, f"{copy:08x}{trace_id[8:]}")
            out.write(text if text.endswith("\n") else text + "\n")
    return target


def test_a_large_file_of_many_traces_is_split_by_trace(tmp_path: Path, watch: _Watch) -> None:
    from tracecheck.readers.by_trace import splits_by_trace

    many = _many_traces(tmp_path / "many.otlp.jsonl", 300)
    assert splits_by_trace(str(many))
    one = _same([str(many), "--contract", CONTRACT, "-q"], tmp_path, jobs=3)
    assert one["stdout"].count("contract ") == 300
    assert (watch.pools, watch.here) == (1, [])
    wanted = "000000c7d96edde63163f0a84510227f"  # run 199: otel-genai/forbidden's trace
    one = _same([str(many), "--contract", CONTRACT, "--trace-id", wanted], tmp_path)
    assert one["stdout"].count("contract ") == 1 and wanted in one["stdout"]


def test_a_large_file_broken_late_fails_as_with_one_process(tmp_path: Path, watch: _Watch) -> None:
    many = _many_traces(tmp_path / "many.otlp.jsonl", 300)
    with many.open("a") as out:
        out.write('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5}]}]}]}\n')
    one = _same([str(many), "--contract", CONTRACT, "-q"], tmp_path, jobs=3)
    assert one["code"] == ExitCode.UNREADABLE
    assert one["stderr"].count("tracecheck: error:") == 1  # every part failed alike: said once
    assert (watch.pools, watch.here) == (1, [])


@pytest.mark.parametrize("parts", [2, 3, 5])
def test_the_parts_of_a_file_are_its_traces_in_order(tmp_path: Path, parts: int) -> None:
    from tracecheck.readers.by_trace import visit_traces
    from tracecheck.spans import ReadNote, Trace

    many = str(_many_traces(tmp_path / "many.otlp.jsonl", 300))

    def read(part: tuple[int, int] | None) -> tuple[list[Trace], list[ReadNote]]:
        traces: list[Trace] = []
        unplaced: list[ReadNote] = []
        visit_traces(many, traces.append, part=part, unplaced=unplaced)
        return traces, unplaced

    whole, unplaced = read(None)
    joined: list[Trace] = []
    for k in range(parts):
        traces, notes = read((k, parts))
        assert notes == unplaced
        assert len(traces) in (len(whole) // parts, len(whole) // parts + 1)
        joined.extend(traces)
    assert joined == whole


def _fail(*args: object, **kwargs: object) -> int:
    """A reader with a bug."""
    raise RuntimeError("a bug")


def test_a_reader_bug_in_a_worker_is_reported_as_with_one_process(tmp_path: Path) -> None:
    traces = _copy(tmp_path, DISTINCT)
    outputs = []
    for jobs in ("1", "2"):
        stderr = io.StringIO()
        env = Environment(io.StringIO(), io.StringIO(), stderr, {}, read=_fail)
        code = main(["check", str(traces), "--contract", CONTRACT, "--jobs", jobs], env=env)
        outputs.append((code, stderr.getvalue()))
    assert outputs[0] == outputs[1]
    assert outputs[0] == (
        ExitCode.UNREADABLE,
        "".join(
            f"tracecheck: error: {file}: could not be read: internal error: RuntimeError\n"
            for file in sorted(traces.iterdir())
        ),
    )


def test_every_bundled_contract_can_be_sent_to_a_worker() -> None:
    import pickle

    from tracecheck.contract.model import compile_contract

    paths = sorted((ROOT / "contracts").glob("*.json")) + sorted(
        (ROOT / "contracts").glob("*.yaml")
    )
    compiled = [compile_contract(str(p)) for p in paths if p.name != "contract.schema.json"]
    assert len(compiled) >= 5
    for contract in compiled:
        assert pickle.loads(pickle.dumps(contract, pickle.HIGHEST_PROTOCOL)) == contract


def test_contracts_that_cannot_be_sent_to_workers_are_checked_here(
    tmp_path: Path, watch: _Watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pickle

    from tracecheck.contract.model import Contract, compile_contract

    def refuse(self: Contract) -> object:
        raise TypeError("cannot pickle")

    traces = _copy(tmp_path, DISTINCT)
    one = _run([str(traces), "--contract", CONTRACT, "--contract", NO_SHELL], tmp_path, 1)
    monkeypatch.setattr(Contract, "__reduce_ex__", refuse, raising=False)
    with pytest.raises(TypeError):
        pickle.dumps(compile_contract(CONTRACT))
    many = _run([str(traces), "--contract", CONTRACT, "--contract", NO_SHELL], tmp_path, 2)
    assert many == one
    assert watch.pools == 0


def test_a_file_descriptor_is_read_by_this_process(tmp_path: Path, watch: _Watch) -> None:
    """`/dev/fd/N` names another file (or none) in a worker: the parent reads it."""
    traces = _copy(tmp_path, DISTINCT)
    with sorted(traces.iterdir())[0].open("rb") as held:
        source = f"/dev/fd/{held.fileno()}"
        if not Path(source).exists():
            pytest.skip("no /dev/fd here")
        one = _same([str(traces), source, "--contract", CONTRACT], tmp_path)
    assert watch.here == [source]  # with two jobs, read here and not by a worker
    assert "could not be read" not in one["stderr"] and "is empty" not in one["stderr"]
