"""`tracecheck.run.check_many`, the one way checks run: the same outcomes (verdicts, facts,
notes, failures, counts) in the same order from this process, a process pool of its own, a
`concurrent.futures` executor of the caller's and a Dask cluster; streams as inputs; each input
once however it is spelled; progress told input by input."""

from __future__ import annotations

import dataclasses
import io
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tracecheck.run import InputOutcome, NamedStream, check_many

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CONTRACTS = [
    str(ROOT / "contracts" / "refund-desk.json"),
    str(ROOT / "contracts" / "no-shell.yaml"),
]
FILES = (
    "otel-genai/clean.otlp.jsonl",
    "otel-genai/forbidden.otlp.pb",
    "otel-genai/leaky.otlp.jsonl",
    "otel-genai/leaky.otlp.pb",  # the same trace again: read together with its twin
    "openinference/cache.otlp.jsonl",
    "producers/crewai/wrappers/tool-error.otlp.jsonl",
)
STREAMED = FIXTURES / "otel-genai" / "timeout.otlp.jsonl"


@pytest.fixture
def inputs(tmp_path: Path) -> list[Any]:
    folder = tmp_path / "runs"
    folder.mkdir()
    for number, name in enumerate(FILES):
        shutil.copyfile(FIXTURES / name, folder / f"{number:02d}-{name.replace('/', '-')}")
    (folder / "03-broken.otlp.jsonl").write_text('{"resourceSpans": [{"scopeSpans": 5}]}\n')
    (folder / "README.md").write_text("runs of the nightly suite\n")
    single = str(FIXTURES / "otel-genai" / "repeated-write.otlp.jsonl")
    return [str(folder), single, str(tmp_path / "missing.otlp.jsonl"), "stream", single]


def _given(inputs: list[Any]) -> list[Any]:
    """The inputs, the stream opened anew for each run."""
    return [NamedStream(io.BytesIO(STREAMED.read_bytes())) if i == "stream" else i for i in inputs]


def _comparable(outcomes: list[InputOutcome]) -> list[Any]:
    """The outcomes without how long each check took, the one thing two runs never share."""
    return [
        outcome._replace(
            traces=tuple(
                trace._replace(
                    checked=tuple(dataclasses.replace(c, seconds=0.0) for c in trace.checked)
                )
                for trace in outcome.traces
            )
        )
        for outcome in outcomes
    ]


def _here(inputs: list[Any]) -> list[Any]:
    return _comparable(list(check_many(_given(inputs), CONTRACTS)))


def test_this_process_reads_every_input_in_order(inputs: list[Any]) -> None:
    outcomes = _here(inputs)
    assert [outcome.source for outcome in outcomes] == [*inputs[:3], "-"]  # the repeat once
    folder, single, missing, stream = outcomes
    assert [failure.source for failure in folder.failures] == [f"{inputs[0]}/03-broken.otlp.jsonl"]
    assert len(folder.traces) == len(FILES) - 1  # the twin read with its pair, checked once
    assert [c.source for t in folder.traces for c in t.checked][:2] == [
        f"{inputs[0]}/00-otel-genai-clean.otlp.jsonl"
    ] * 2
    assert single.read == 1 and not single.failures
    assert missing.read == 0 and missing.failures[0].message.startswith(f"{inputs[2]}: ")
    assert stream.read == 1 and stream.traces[0].checked[0].source == "<stdin>"
    assert not any(outcome.rows for outcome in outcomes)


def test_a_pool_of_its_own_and_an_executor_give_the_outcomes_of_this_process(
    inputs: list[Any],
) -> None:
    here = _here(inputs)
    pooled = _comparable(list(check_many(_given(inputs), CONTRACTS, jobs=2)))
    assert pooled == here
    with ProcessPoolExecutor(2) as executor:
        given = list(check_many(_given(inputs), CONTRACTS, executor=executor))
    assert _comparable(given) == here


def test_a_dask_cluster_gives_the_outcomes_of_this_process(inputs: list[Any]) -> None:
    distributed = pytest.importorskip("distributed", reason="the fleet extra is not installed")
    here = _here(inputs)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = _comparable(list(check_many(_given(inputs), CONTRACTS, executor=client)))
    assert on_dask == here


def _elsewhere(path: Any, *args: Any, **kwargs: Any) -> None:
    """A reader on a worker that does not see this machine's files."""
    raise FileNotFoundError(2, "No such file or directory", str(path))


def test_a_file_the_dask_workers_cannot_see_is_said_to_be_so(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="the fleet extra is not installed")
    run = tmp_path / "run.otlp.jsonl"
    shutil.copyfile(FIXTURES / "otel-genai" / "clean.otlp.jsonl", run)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        (outcome,) = check_many(str(run), CONTRACTS, executor=client, read=_elsewhere)
        (failure,) = outcome.failures
        assert failure.message == (
            f"{run}: the Dask workers cannot see it, though this machine can: run them where "
            "the same path reads the same file (a shared mount), or give its URL (s3://..., "
            "gs://...)"
        )
        # Here, a file not found is one that is gone, as it is said.
        (here,) = check_many(str(run), CONTRACTS, read=_elsewhere)
        assert here.failures[0].message == f"{run}: does not exist"


class _Watched:
    def __init__(self, told: list[str], name: str) -> None:
        self.told, self.name = told, name
        told.append(f"waiting for {name}")

    def advance(self, files: int, of: int, spans: int) -> None:
        self.told.append(f"{self.name}: {files} of {of} files, {spans} spans")

    def stop(self) -> None:
        self.told.append(f"stopped {self.name}")

    def done(self, spans: int) -> None:
        self.told.append(f"{self.name}: {spans} spans")


def test_progress_is_told_input_by_input(inputs: list[Any]) -> None:
    told: list[str] = []
    outcomes = list(
        check_many(_given(inputs), CONTRACTS, progress=lambda name, _: _Watched(told, name))
    )
    names = [inputs[0], inputs[1], inputs[2], "<stdin>"]
    advanced = [line for line in told if " files, " in line]
    assert [line for line in told if line not in advanced] == [
        line
        for name, outcome in zip(names, outcomes, strict=True)
        for line in (f"waiting for {name}", f"stopped {name}", f"{name}: {outcome.spans} spans")
    ]
    # A directory's files are counted as their results come in, up to all of them.
    directory = next(n for n, o in zip(names, outcomes, strict=True) if Path(str(n)).is_dir())
    mine = [line for line in advanced if line.startswith(f"{directory}: ")]
    assert mine and all(line in told[told.index(f"waiting for {directory}") :] for line in mine)
    files = len([path for path in Path(str(directory)).rglob("*") if path.is_file()])
    (outcome,) = [o for n, o in zip(names, outcomes, strict=True) if n == directory]
    assert mine[-1] == f"{directory}: {files} of {files} files, {outcome.spans} spans"


def test_a_bare_stream_is_named_by_its_name(tmp_path: Path) -> None:
    with STREAMED.open("rb") as stream:
        (outcome,) = check_many(stream, CONTRACTS[0])
    assert outcome.source == str(STREAMED) and outcome.traces[0].checked[0].source == str(STREAMED)
    (outcome,) = check_many(io.BytesIO(b"not a trace"), CONTRACTS[0])
    assert outcome.source == "<stream>" and outcome.failures[0].message.startswith("<stream>: ")


def test_a_verdict_crosses_processes_whole(inputs: list[Any]) -> None:
    import pickle

    checked = [c for outcome in check_many(_given(inputs), CONTRACTS) for c in outcome.checked()]
    assert any(rule.violations for c in checked for rule in c.verdict.rules)
    assert [pickle.loads(pickle.dumps(c)) for c in checked] == checked


def test_traces_checked_here_wait_on_disk_and_read_back_alike(inputs: list[Any]) -> None:
    from tracecheck.run.task import Chained, Spilled

    outcomes = list(check_many(_given(inputs), CONTRACTS))
    folder = outcomes[0]
    assert isinstance(folder.traces, (Spilled, Chained))  # not held in memory
    assert len(folder.traces) == len(list(folder.traces)) == len(FILES) - 1
    assert list(folder.traces) == list(folder.traces)  # read again, the same
    assert folder.traces[0] == next(iter(folder.traces))
