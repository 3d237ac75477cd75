"""Contract-check benchmark: evaluation rate, and `read + check` against `read` alone.

    python bench/check_bench.py                  # 1k, 10k, 100k spans; best of 3
    python bench/check_bench.py --sizes 1000,10000 --repeat 5

Evaluation is timed in this process on spans already read (the cyclic GC paused, as
`read_traces` does): span-rule evaluations per second = spans × compiled rules ÷ seconds.
`read` and `read + check` of the JSONL workload are timed side by side in fresh subprocesses,
best of K each, so their ratio is what checking adds to reading a recorded file.

Three rates: *cold* is the first `check` of freshly read spans (it derives every field the
check reads); *warm* a second `check` of the same spans (the reading of what the spans leave
uncertain, the rules and the verdict); *rules alone* every compiled rule's `evaluate` on the
trace's subject, after a warm check, which is what a contract adds per rule.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

TOOLS = (
    "read_file",
    "list_files",
    "search_code",
    "run_shell",
    "web_search",
    "query_orders",
    "get_customer",
    "issue_refund",
    "write_file",
    "http_get",
)
READS = (
    "read_file",
    "list_files",
    "search_code",
    "web_search",
    "query_orders",
    "get_customer",
    "http_get",
)
MODELS = (
    "gpt-4o-2024-08-06",
    "gpt-4.1-mini-2025-04-14",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5-20251001",
)
# Every kind of check a realistic contract holds: required, forbidden, allowed, an ordered pair
# in finish-before-start, argument checks, retry safety, a token ceiling and a model allow-list.
CONTRACT: dict[str, Any] = {
    "name": "bench-agent",
    "description": "A realistic contract over the generated agent runs",
    "tools": {
        "required": ["read_file", "query_orders"],
        "forbidden": ["delete_database", "drop_table"],
        "allowed": list(TOOLS),
        "requiredOrder": ["query_orders", "issue_refund"],
        "orderMode": "finish-before-start",
        "arguments": [
            {"tool": "read_file", "pointer": "/path", "type": "string"},
            {"tool": "query_orders", "pointer": "/order_id", "exists": True, "occurrence": "any"},
        ],
    },
    "retries": {
        "reads": list(READS),
        "writes": [
            {"tool": "issue_refund", "idempotencyKey": "/order_id"},
            {"tool": "write_file"},
            {"tool": "run_shell"},
        ],
    },
    "llm": {"maxTotalTokens": 10**12, "allowedModels": list(MODELS)},
}
# Today's contract with trajectories added (`--trajectory`): what a trajectory check costs on
# the same run, one (in-order, in the base), and in every mode over every tool call of it.
ONE_TRAJECTORY: dict[str, Any] = {
    **CONTRACT,
    "trajectory": {"mode": "in-order", "calls": ["read_file", "query_orders", "issue_refund"]},
}
TRAJECTORY: dict[str, Any] = {
    **ONE_TRAJECTORY,
    "alternatives": {
        "anyOf": [
            {"id": mode, "trajectory": {"mode": mode, "calls": list(TOOLS)}}
            for mode in ("exact", "any-order", "subset", "superset")
        ]
    },
}

# The argument matchers and a precondition (`--matchers`): each reads what it needs once per
# check (sameAs and requires index the earlier calls' values, reading their results as JSON).
MATCHERS: dict[str, Any] = {
    "name": "bench-matchers",
    "tools": {
        "arguments": [
            {"tool": "query_orders", "pointer": "/order_id", "regex": "^ord_[0-9a-f]{10}\\Z"},
            {"tool": "web_search", "pointer": "/max_results", "range": {"min": 3, "max": 10}},
            {
                "tool": "list_files",
                "pointer": "",
                "partial": {"limit": 200, "target_id": 0},
                "ignore": ["*_id"],
            },
            {"tool": "read_file", "pointer": "", "schema": {"required": ["path"]}},
            {
                "tool": "issue_refund",
                "pointer": "/order_id",
                "sameAs": {"tool": "query_orders", "pointer": "/order_id"},
            },
            {
                "tool": "get_customer",
                "pointer": "/order_id",
                "sameAs": {"tool": "query_orders", "result": "/results/0/order_id"},
            },
        ],
        "requires": [{"tool": "issue_refund", "after": "query_orders", "same": ["/order_id"]}],
    },
}

# The cost ceiling (`--cost`): every model call priced by its model's prefix entry, the cached
# reads of the OpenAI calls at their own price, the total added up exactly.
COST: dict[str, Any] = {
    "name": "bench-cost",
    "llm": {"maxCostUsd": 10**9},
    "prices": {
        "gpt-4o*": {"input": 2.5, "output": 10, "cacheRead": 1.25},
        "gpt-4.1-mini*": {"input": 0.4, "output": 1.6, "cacheRead": 0.1},
        "claude-sonnet-4-5*": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        "claude-haiku-4-5*": {"input": 1, "output": 5, "cacheRead": 0.1, "cacheWrite": 1.25},
    },
}

# Status, timing and loops (`--limits`): error shares, step counts, duration percentiles, the
# three loop rules and a predicate on status and duration, with the limits real contracts set.
LIMITS: dict[str, Any] = {
    "name": "bench-limits",
    "tools": {
        "durations": {
            "read_file": {"p50": 60_000, "p95": 60_000, "max": 60_000},
            "query_orders": {"p99": 60_000},
        }
    },
    "errors": {"TOOL": {"maxPercent": 50}, "LLM": {"max": 10**6}},
    "steps": {"TOOL": {"max": 10**6}, "LLM": {"min": 1}},
    "loops": {"maxRepeats": 3, "maxConsecutive": 3, "maxCycles": 2},
    "rules": [
        {
            "kind": "atMost",
            "label": "slow failures",
            "p": {"kind": "TOOL", "status": "error", "durationMs": {"min": 60_000}},
            "max": 0,
        }
    ],
}


def evaluation(path: Path, repeat: int) -> dict[str, Any]:
    import tracecheck
    from tracecheck.rules.subject import Subject

    contract = tracecheck.compile_contract(CONTRACT)
    rules = len(contract.rules)
    traces = tracecheck.read_traces(path)
    spans = sum(len(trace.spans) for trace in traces)
    cold = warm = alone = float("inf")
    for _ in range(repeat):
        # Fresh spans each time: derived fields (kind, tool, tokens, arguments) are computed
        # on first use, so the first check pays for normalisation ("cold"), as a CI run does;
        # a second check of the same spans measures the rules alone ("warm").
        traces = tracecheck.read_traces(path)
        gc.disable()
        started = time.perf_counter()
        verdicts = [tracecheck.check(trace, contract) for trace in traces]
        middle = time.perf_counter()
        again = [tracecheck.check(trace, contract) for trace in traces]
        ended = time.perf_counter()
        subjects = [Subject(trace.spans) for trace in traces]
        began = time.perf_counter()
        for subject in subjects:
            for rule in contract.rules:
                rule.evaluate(subject)
        alone = min(alone, time.perf_counter() - began)
        gc.enable()
        assert again == verdicts
        cold, warm = min(cold, middle - started), min(warm, ended - middle)
    statuses = sorted({verdict.status for verdict in verdicts})
    return {
        "spans": spans,
        "rules": rules,
        "cold": cold,
        "warm": warm,
        "alone": alone,
        "statuses": statuses,
    }


def worker(mode: str, path: str) -> None:
    import tracecheck

    documents = {"check": CONTRACT, "trajectory": TRAJECTORY, "one-trajectory": ONE_TRAJECTORY}
    contract = tracecheck.compile_contract(documents[mode]) if mode in documents else None
    started = time.perf_counter()
    traces = tracecheck.read_traces(path)
    if contract is not None:
        for trace in traces:
            tracecheck.check(trace, contract)
    print(json.dumps({"seconds": time.perf_counter() - started}))


def timed(mode: str, path: Path) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--worker", mode, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout)["seconds"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--worker", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--matchers",
        action="store_true",
        help="time the argument matchers and a precondition alone, per tool call",
    )
    parser.add_argument(
        "--cost",
        action="store_true",
        help="time the cost ceiling (llm.maxCostUsd) alone, per model call",
    )
    parser.add_argument(
        "--limits",
        action="store_true",
        help="time errors, steps, tools.durations, loops and a status/duration predicate alone",
    )
    parser.add_argument(
        "--trajectory",
        action="store_true",
        help="compare read + check with and without trajectories, and time the trajectory rules",
    )
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    if args.trajectory:
        return trajectories(args)
    if args.matchers:
        return matchers(args)
    if args.cost:
        return costs(args)
    if args.limits:
        return limits(args)
    print(
        "| spans | rules | check, cold | check, warm | rules alone "
        "| span-rule evaluations/s (cold / warm / rules alone) "
        "| verdicts | read | read + check | ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        workload = Workload(size)
        ensure(workload, args.data)
        path = workload.path(args.data, "otlp-jsonl")
        result = evaluation(path, args.repeat)
        evaluations = result["spans"] * result["rules"]
        read = min(timed("read", path) for _ in range(args.repeat))
        both = min(timed("check", path) for _ in range(args.repeat))
        print(
            f"| {result['spans']:,} | {result['rules']} | {result['cold'] * 1000:.1f} ms "
            f"| {result['warm'] * 1000:.1f} ms | {result['alone'] * 1000:.1f} ms "
            f"| {evaluations / result['cold'] / 1e6:.2f} M / "
            f"{evaluations / result['warm'] / 1e6:.2f} M / "
            f"{evaluations / result['alone'] / 1e6:.2f} M | {', '.join(result['statuses'])} "
            f"| {read:.2f} s | {both:.2f} s | {both / read:.2f}× |",
            flush=True,
        )
    return 0


def trajectories(args: argparse.Namespace) -> int:
    """read + check with today's contract against the same with five trajectories (one per
    mode), fresh processes side by side, and the trajectory rules alone in this process."""
    import tracecheck
    from tracecheck.rules.subject import Subject

    print(
        "| spans | tool calls | check | check + one trajectory | ratio "
        "| check + five trajectories | ratio | five trajectory rules alone |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        workload = Workload(size)
        ensure(workload, args.data)
        path = workload.path(args.data, "otlp-jsonl")
        plain = min(timed("check", path) for _ in range(args.repeat))
        one = min(timed("one-trajectory", path) for _ in range(args.repeat))
        both = min(timed("trajectory", path) for _ in range(args.repeat))
        contract = tracecheck.compile_contract(TRAJECTORY)
        rules = [contract.rules[-1], *(a.rules[0] for a in contract.alternatives)]
        traces = tracecheck.read_traces(path)
        subjects = [Subject(trace.spans) for trace in traces]
        calls = sum(len(subject.tool_spans) for subject in subjects)
        alone = float("inf")
        for _ in range(args.repeat):
            gc.disable()
            began = time.perf_counter()
            for subject in subjects:
                for rule in rules:
                    rule.evaluate(subject)
            alone = min(alone, time.perf_counter() - began)
            gc.enable()
        print(
            f"| {size:,} | {calls:,} | {plain:.2f} s | {one:.2f} s | {one / plain:.2f}× "
            f"| {both:.2f} s | {both / plain:.2f}× | {alone * 1000:.1f} ms |",
            flush=True,
        )
    return 0


def matchers(args: argparse.Namespace) -> int:
    """The matcher and precondition rules alone (MATCHERS) on spans already read and checked
    once (their arguments derived), per size: linear when the time per tool call stays flat."""
    import tracecheck
    from tracecheck.rules.subject import Subject

    contract = tracecheck.compile_contract(MATCHERS)
    print("| spans | tool calls | rules | matchers + requires alone | per tool call | verdicts |")
    print("|---:|---:|---:|---:|---:|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        workload = Workload(size)
        ensure(workload, args.data)
        traces = tracecheck.read_traces(workload.path(args.data, "otlp-jsonl"))
        verdicts = [tracecheck.check(trace, contract, capture="lenient") for trace in traces]
        alone = float("inf")
        for _ in range(args.repeat):
            subjects = [Subject(trace.spans) for trace in traces]  # fresh indexes each time
            gc.disable()
            began = time.perf_counter()
            for subject in subjects:
                for rule in contract.rules:
                    rule.evaluate(subject)
            alone = min(alone, time.perf_counter() - began)
            gc.enable()
        calls = sum(len(subject.tool_spans) for subject in subjects)
        statuses = ", ".join(sorted({verdict.status for verdict in verdicts}))
        print(
            f"| {size:,} | {calls:,} | {len(contract.rules)} | {alone * 1000:.1f} ms "
            f"| {alone / calls * 1e6:.2f} µs | {statuses} |",
            flush=True,
        )
    return 0


def costs(args: argparse.Namespace) -> int:
    """The cost rule alone (COST) on spans already read and checked once (their models and
    tokens derived), per size: linear when the time per model call stays flat."""
    import tracecheck
    from tracecheck.rules.cost import run_cost
    from tracecheck.rules.subject import Subject

    contract = tracecheck.compile_contract(COST)
    (rule,) = contract.rules
    assert contract.prices is not None
    print("| spans | model calls | cost rule alone | per model call | total | verdicts |")
    print("|---:|---:|---:|---:|---:|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        workload = Workload(size)
        ensure(workload, args.data)
        traces = tracecheck.read_traces(workload.path(args.data, "otlp-jsonl"))
        verdicts = [tracecheck.check(trace, contract) for trace in traces]
        alone = float("inf")
        for _ in range(args.repeat):
            subjects = [Subject(trace.spans) for trace in traces]  # fresh indexes each time
            gc.disable()
            began = time.perf_counter()
            for subject in subjects:
                rule.evaluate(subject)
            alone = min(alone, time.perf_counter() - began)
            gc.enable()
        calls = sum(len(subject.of_kind(tracecheck.Kind.LLM)) for subject in subjects)
        total = sum(run_cost(subject, contract.prices).total for subject in subjects)
        statuses = ", ".join(sorted({verdict.status for verdict in verdicts}))
        print(
            f"| {size:,} | {calls:,} | {alone * 1000:.1f} ms | {alone / calls * 1e6:.2f} µs "
            f"| ${total:.2f} | {statuses} |",
            flush=True,
        )
    return 0


def limits(args: argparse.Namespace) -> int:
    """Each LIMITS rule alone on spans already read and checked once, per size (as `check`
    runs it, with the duration doubt of its predicates), then the loop rules on a run whose
    calls go round the whole way (A, B, A, B, …: the cycle finder's worst case). Linear or
    n log n when the time per span stays flat or grows by a log factor."""
    import tracecheck
    from tracecheck.rules.subject import Subject
    from tracecheck.rules.timing import unknown_durations

    contract = tracecheck.compile_contract(LIMITS)
    labels = [rule.label for rule in contract.rules]
    print(f"| spans | tool calls | {' | '.join(labels)} | all, per span | verdicts |")
    print(f"|---:|---:|{'---:|' * len(labels)}---:|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        workload = Workload(size)
        ensure(workload, args.data)
        traces = tracecheck.read_traces(workload.path(args.data, "otlp-jsonl"))
        verdicts = [tracecheck.check(trace, contract, capture="lenient") for trace in traces]
        best = [float("inf")] * len(labels)
        for _ in range(args.repeat):
            subjects = [Subject(trace.spans) for trace in traces]  # fresh indexes each time
            gc.disable()
            for i, rule in enumerate(contract.rules):
                began = time.perf_counter()
                for subject in subjects:
                    rule.evaluate(subject) or unknown_durations(rule, subject)
                best[i] = min(best[i], time.perf_counter() - began)
            gc.enable()
        calls = sum(len(subject.tool_spans) for subject in subjects)
        spans = sum(len(subject.spans) for subject in subjects)
        statuses = ", ".join(sorted({verdict.status for verdict in verdicts}))
        cells = " | ".join(f"{seconds * 1000:.1f} ms" for seconds in best)
        print(
            f"| {spans:,} | {calls:,} | {cells} | {sum(best) / spans * 1e6:.2f} µs | {statuses} |",
            flush=True,
        )
    print()
    print("| tool calls, A B A B … | loops.maxRepeats | loops.maxConsecutive | loops.maxCycles |")
    print("|---:|---:|---:|---:|")
    loops = [rule for rule in contract.rules if rule.label.startswith("loops.")]
    for size in (int(s) for s in args.sizes.split(",")):
        subject = Subject(_alternating(size))
        best = [float("inf")] * len(loops)
        for _ in range(args.repeat):
            gc.disable()
            for i, rule in enumerate(loops):
                began = time.perf_counter()
                rule.evaluate(subject)
                best[i] = min(best[i], time.perf_counter() - began)
            gc.enable()
        cells = " | ".join(f"{seconds * 1000:.1f} ms" for seconds in best)
        print(f"| {size:,} | {cells} |", flush=True)
    return 0


def _alternating(count: int) -> list[Any]:
    """`count` tool calls of two tools taking turns, one millisecond apart, new arguments each
    time (the GenAI attributes a reader would give them)."""
    from tracecheck.spans import Span

    return [
        Span(
            "0" * 32,
            f"{i:016x}",
            None,
            f"execute_tool {('lookup', 'search')[i % 2]}",
            i * 1_000_000,
            i * 1_000_000 + 500_000,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": ("lookup", "search")[i % 2],
                "gen_ai.tool.call.arguments": f'{{"page": {i}}}',
            },
        )
        for i in range(count)
    ]


if __name__ == "__main__":
    sys.exit(main())
