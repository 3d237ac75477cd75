"""Fleets for the fleet tests: generated runs of an OpenTelemetry GenAI agent as OTLP JSON
Lines, a Dask scheduler and workers started as processes on 127.0.0.1, a checker that kills its
worker on one trace, and verdicts compared row for row."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DOOMED = "dead" * 8  # the trace id on which `dying_check` kills its worker
CONTRACT = """{
  "name": "payments",
  "tools": {
    "forbidden": ["run_shell"],
    "required": ["lookup_order"],
    "maxCallsPerTool": {"issue_refund": 1}
  },
  "llm": {"allowedModels": ["gpt-4.1-mini"], "maxTotalTokens": 4000}
}
"""


def _attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(
    trace_id: str, number: int, parent: str | None, name: str, start: int, **attributes: Any
) -> dict[str, Any]:
    span = {
        "traceId": trace_id,
        "spanId": f"{number + 1:016x}",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 40_000_000),
        "attributes": [_attribute(k.replace("__", "."), v) for k, v in attributes.items()],
        "status": {},
    }
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def run_spans(
    trace_id: str, tools: list[str], *, model: str = "gpt-4.1-mini", tokens: int = 300
) -> list[dict[str, Any]]:
    """One agent run: an agent span, a model call, then one tool call per name in `tools`."""
    start = 1_796_204_000_000_000_000
    root = _span(
        trace_id,
        0,
        None,
        "invoke_agent refund-desk",
        start,
        gen_ai__operation__name="invoke_agent",
        gen_ai__agent__name="refund-desk",
    )
    root["endTimeUnixNano"] = str(start + 1_000_000_000)
    spans = [
        root,
        _span(
            trace_id,
            1,
            "0000000000000001",
            f"chat {model}",
            start + 1_000,
            gen_ai__operation__name="chat",
            gen_ai__request__model=model,
            gen_ai__usage__input_tokens=tokens,
            gen_ai__usage__output_tokens=20,
        ),
    ]
    for number, tool in enumerate(tools, start=2):
        spans.append(
            _span(
                trace_id,
                number,
                "0000000000000001",
                f"execute_tool {tool}",
                start + number * 50_000_000,
                gen_ai__operation__name="execute_tool",
                gen_ai__tool__name=tool,
            )
        )
    return spans


def otlp_line(spans: list[dict[str, Any]]) -> str:
    scope = {"scope": {"name": "fleet.generator"}, "spans": spans}
    return json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]})


def generated_fleet(root: Path, runs: int, *, seed: int = 7) -> list[Path]:
    """`runs` files of one run each (a few with several runs, some breaking the contract),
    plus a file that is not a trace and one that is broken."""
    chooser = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    files = []
    for number in range(runs):
        trace_id = f"{number + 1:032x}"
        tools = ["lookup_order", "issue_refund"]
        roll = chooser.random()
        if roll < 0.15:
            tools.append("run_shell")
        elif roll < 0.3:
            tools.append("issue_refund")
        elif roll < 0.4:
            tools = ["issue_refund"]
        model = "gpt-4.1" if chooser.random() < 0.1 else "gpt-4.1-mini"
        tokens = chooser.choice([300, 900, 5000])
        lines = [otlp_line(run_spans(trace_id, tools, model=model, tokens=tokens))]
        if number % 7 == 3:  # a file of two runs
            lines.append(otlp_line(run_spans(f"{number + 1:030x}ff", ["lookup_order"])))
        path = root / f"run-{number:04d}.otlp.jsonl"
        path.write_text("\n".join(lines) + "\n")
        files.append(path)
    return files


def dying_check(trace: Any, contract: Any, **options: Any) -> Any:
    """The real check, but the worker process dies on the trace `DOOMED`."""
    from tracecheck.check import check

    if trace.trace_id == DOOMED:
        os._exit(3)
    return check(trace, contract, **options)


def slow_check(trace: Any, contract: Any, **options: Any) -> Any:
    """The real check, half a second late, after touching the file $TRACECHECK_TEST_STARTED
    names (a test waits for it to know that the run has begun)."""
    import time

    from tracecheck.check import check

    Path(os.environ["TRACECHECK_TEST_STARTED"]).touch()
    time.sleep(0.5)
    return check(trace, contract, **options)


def rows_of_check_report(
    report: dict[str, Any], rename: dict[str, str] | None = None
) -> list[tuple[Any, ...]]:
    """The verdict rows of `check --json`, as the fleet's Parquet rows name them."""
    rename = rename or {}
    return sorted(
        (
            rename.get(result["source"], result["source"]),
            result["trace_id"],
            result["contract"],
            rule["label"],
            rule["status"],
            len(rule["violations"]),
            rule["violations"][0]["span_id"] if rule["violations"] else None,
        )
        for result in report["results"]
        for rule in result["rules"]
    )


def rows_of_parquet(path: Path) -> list[tuple[Any, ...]]:
    import pyarrow.parquet as pq

    return sorted(
        (
            r["source"],
            r["trace_id"],
            r["contract"],
            r["rule"],
            r["status"],
            r["violations"],
            r["first_violating_span"],
        )
        for r in pq.read_table(path).to_pylist()
        if r["rule"] is not None
    )


@contextmanager
def dask_cluster(
    tmp_path: Path,
    workers: int = 2,
    environ: dict[str, str] | None = None,
    cwd: Path | None = None,
    started: list[subprocess.Popen[bytes]] | None = None,
) -> Iterator[str]:
    """A Dask scheduler and `workers` single-threaded workers, each its own process on
    127.0.0.1 (working in `cwd`, when given), for as long as the block runs; yields the
    scheduler's address. `started` is given the processes, the scheduler first."""
    scheduler_file = tmp_path / "scheduler.json"
    env = {**os.environ, **(environ or {})}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    logs = (tmp_path / "dask.log").open("wb")
    processes = [
        subprocess.Popen(
            [
                *dask,
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
            ],
            env=env,
            stdout=logs,
            stderr=subprocess.STDOUT,
        )
    ]
    try:
        address = _address(scheduler_file, processes[0])
        for _ in range(workers):
            processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "distributed.cli.dask_worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                    ],
                    env=env,
                    cwd=cwd,
                    stdout=logs,
                    stderr=subprocess.STDOUT,
                )
            )
        _wait_for_workers(address, workers)
        if started is not None:
            started.extend(processes)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        logs.close()


def _address(scheduler_file: Path, process: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the Dask scheduler exited at start")
        try:
            return str(json.loads(scheduler_file.read_text())["address"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise TimeoutError("the Dask scheduler did not start")


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout="30s") as client:
        client.wait_for_workers(count, timeout=60)
