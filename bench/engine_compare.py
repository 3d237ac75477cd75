"""`tracecheck check` against the parse floor and the reference TypeScript engine, one run.

    python bench/engine_compare.py                       # 10k and 100k spans, median of 7
    python bench/engine_compare.py --sizes 10000 --repeat 9
    python bench/engine_compare.py --agent-eval ~/src/agent-eval   # a checkout or a git dir
    python bench/engine_compare.py --no-ts                # floor and tracecheck only

Three programs read the same OTLP/JSON Lines workload (`bench/workload.py`, one trace, 512
spans per line), each in a fresh process, interleaved (the order rotates every repetition):

- **floor**: `orjson.loads` of every line and every span's attributes into a dict of key ->
  Python value (the OTLP AnyValue unwrapped), all dicts kept in one list, GC disabled;
- **check**: `tracecheck check FILE --contract bench/engine_compare_contract.json`, the
  command as installed (plus, separately, the same `main()` called in a Python process that
  has imported tracecheck before its clock starts);
- **TS engine**: agent-eval's `evaluateTraceContract` (its public source, bundled with esbuild
  at benchmark time with `bench/ts_engine/runner.mjs`) under Node, reading, parsing and
  converting the file inside its clock, with the same contract translated to its operators.

Wall time is the driver's clock around each process (start to exit); work time is what each
process measures after its imports. Peak memory is the kernel's high-water RSS of each process
(`VmHWM`, from the process itself where it can report it, and from `/usr/bin/time`). Before
the clock: every file is read once into the page cache, and each program runs once untimed.
The verdicts of the two engines are compared rule by rule (and on a contract whose five rules
all fail, violation by violation). The report is Markdown on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# bench/workload.py and bench/run.py are imported by the driver only (in main()): the workers
# this script starts import nothing of the benchmark but the standard library.
sys.path.insert(0, str(HERE))
DEFAULT_DIR = HERE / ".data"

CONTRACT = HERE / "engine_compare_contract.json"
TS_SOURCE = HERE / "ts_engine"
# The agent-eval commit the TS engine is built from (its src/trace-contracts.ts last changed in
# 94c3ced6, 2026-08-11); another commit is used only when this one is not in the given repository.
AGENT_EVAL_COMMIT = "8062370629c2ddad63d7d69771ef398dc70287fe"
AGENT_EVAL_DEFAULTS = (
    os.environ.get("AGENT_EVAL_SRC", ""),
    "/work/.mirror/tangle-network+agent-eval/repo",
)
# The contract whose five rules all fail on the workload: the verdicts are compared violation
# by violation on it (never timed).
FAILING: dict[str, Any] = {
    "name": "engine-compare-failing",
    "tools": {
        "required": ["delete_database"],
        "forbidden": ["run_shell"],
        "requiredOrder": ["issue_refund", "query_orders"],
        "orderMode": "start-order",
        "arguments": [{"tool": "query_orders", "pointer": "/order_id", "type": "number"}],
    },
    "llm": {"maxTotalTokens": 1000},
}
TARGETS = {"floor": 1.3, "ts": 0.5, "memory": 1.2}
PROGRAMS = ("floor", "check", "check-inproc", "ts")
TIME = Path("/usr/bin/time")  # GNU time: the peak RSS of a command it runs


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _status(name: str) -> int:
    """A `/proc/self/status` figure (VmRSS, VmHWM) in bytes."""
    with Path("/proc/self/status").open() as status:
        for line in status:
            if line.startswith(name + ":"):
                return int(line.split()[1]) * 1024
    raise LookupError(name)


# ---------------------------------------------------------------------------------------------
# Workers: one measurement in a fresh interpreter, printed as one JSON line (the last line).


# The floor is a program of its own (`python -c FLOOR FILE`): the interpreter, orjson and the
# loop, nothing else imported, so its wall time is the least a Python checker can take.
FLOOR = """
import gc, sys, time
import orjson

def any_value(value):
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return value["boolValue"]
    if "arrayValue" in value:
        return [any_value(v) for v in value["arrayValue"].get("values", ())]
    if "kvlistValue" in value:
        return {kv["key"]: any_value(kv["value"]) for kv in value["kvlistValue"].get("values", ())}
    if "bytesValue" in value:
        return value["bytesValue"]
    return None

def status(name):
    with open("/proc/self/status") as lines:
        for line in lines:
            if line.startswith(name + ":"):
                return int(line.split()[1]) * 1024

gc.disable()
gc.freeze()
base = status("VmRSS")
started = time.perf_counter()
spans = []  # every span's attributes, kept, as a checker holding one trace keeps them
with open(sys.argv[1], "rb") as lines:
    for line in lines:
        if not line.strip():
            continue
        request = orjson.loads(line)
        for resource in request.get("resourceSpans", ()):
            for scope in resource.get("scopeSpans", ()):
                for span in scope.get("spans", ()):
                    spans.append({a["key"]: any_value(a["value"]) for a in span.get("attributes", ())})
seconds = time.perf_counter() - started
print('{"work_s": %r, "spans": %d, "vmhwm": %d, "base": %d}'
      % (seconds, len(spans), status("VmHWM"), base), flush=True)
import os
os._exit(0)
"""


def worker_check_inproc(path: str, contract: str) -> dict[str, Any]:
    import contextlib
    import io

    import tracecheck  # noqa: F401  (imported before the clock, like orjson for the floor)
    from tracecheck.cli import main

    baseline = _status("VmRSS")
    sink = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(sink):
        code = main(["check", path, "--contract", contract])
    seconds = time.perf_counter() - started
    return {"work_s": seconds, "exit": code, "vmhwm": _status("VmHWM"), "base": baseline}


# ---------------------------------------------------------------------------------------------
# The TypeScript engine: npm install esbuild, extract agent-eval's source, bundle the runner.


@dataclass
class TsEngine:
    bundle: Path
    node_bin: str
    node: str  # its version
    esbuild: str
    commit: str
    version: str
    digest: str  # sha-256 of src/trace-contracts.ts (first 12 hex digits)


def _git_dir(path: Path) -> Path | None:
    if (path / "objects").is_dir() and (path / "HEAD").is_file():
        return path
    if (path / ".git").exists():
        return path / ".git"
    return None


def build_ts_engine(source: str | None, work: Path) -> TsEngine:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        raise RuntimeError("node and npm are needed for the TypeScript engine (or pass --no-ts)")
    node_version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    work.mkdir(parents=True, exist_ok=True)
    # esbuild from npm, pinned in bench/ts_engine/package.json, installed under bench/.data.
    package = (TS_SOURCE / "package.json").read_bytes()
    installed = work / "package.json"
    if not installed.exists() or installed.read_bytes() != package:
        (work / "package.json").write_bytes(package)
        shutil.rmtree(work / "node_modules", ignore_errors=True)
    esbuild_bin = work / "node_modules" / ".bin" / "esbuild"
    if not esbuild_bin.exists():
        _progress(f"  npm install (esbuild) in {work}")
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    esbuild_version = subprocess.run(
        [str(esbuild_bin), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()

    # agent-eval's public source: a git repository (checked out at the pinned commit with
    # `git archive`) or a source tree used as it is.
    candidates = [source] if source else [c for c in AGENT_EVAL_DEFAULTS if c]
    tree = work / "agent-eval"
    commit = "unknown (a source tree)"
    for candidate in candidates:
        path = Path(candidate).expanduser()
        if not path.exists():
            continue
        git_dir = _git_dir(path)
        if git_dir is not None:
            git = ["git", f"--git-dir={git_dir}"]
            have = subprocess.run(
                [*git, "cat-file", "-e", f"{AGENT_EVAL_COMMIT}^{{commit}}"], capture_output=True
            )
            commit = AGENT_EVAL_COMMIT
            if have.returncode != 0:
                commit = subprocess.run(
                    [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
                ).stdout.strip()
                _progress(f"  agent-eval {AGENT_EVAL_COMMIT[:8]} not in {path}; using {commit[:8]}")
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir(parents=True)
            archive = subprocess.run(
                [*git, "archive", commit, "src", "package.json"], capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
            break
        if (path / "src" / "trace-contracts.ts").exists():
            tree = path
            break
    else:
        raise RuntimeError(
            "agent-eval's source not found: pass --agent-eval with a clone of "
            "github.com/tangle-network/agent-eval (a work tree or a git directory), or --no-ts"
        )
    contracts_ts = tree / "src" / "trace-contracts.ts"
    version = json.loads((tree / "package.json").read_text()).get("version", "?")
    digest = hashlib.sha256(contracts_ts.read_bytes()).hexdigest()[:12]
    # Bundled into <agent-eval>/dist/ so that its packageVersion() finds its own package.json.
    bundle = work / "engine" / "dist" / "engine.mjs"
    bundle.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tree / "package.json", bundle.parent.parent / "package.json")
    subprocess.run(
        [
            str(esbuild_bin),
            str(TS_SOURCE / "runner.mjs"),
            "--bundle",
            "--platform=node",
            "--format=esm",
            "--target=node20",
            "--log-level=warning",
            f"--outfile={bundle}",
            f"--alias:agent-eval-trace-contracts={contracts_ts}",
            # The one dependency of the checker's import chain that is not on npm.
            f"--alias:@tangle-network/agent-interface={TS_SOURCE / 'agent-interface-shim.mjs'}",
        ],
        check=True,
    )
    return TsEngine(bundle, node, node_version, esbuild_version, commit, version, digest)


# ---------------------------------------------------------------------------------------------
# Driver.


@dataclass
class Sample:
    wall: float
    work: float | None = None
    vmhwm: int | None = None  # reported by the process itself
    maxrss: int | None = None  # reported by /usr/bin/time (wait4's ru_maxrss)
    cpu: float | None = None  # user + system CPU seconds, from /usr/bin/time
    base: int | None = None  # RSS when the process's clock started (after its imports)
    extra: dict[str, Any] = field(default_factory=dict)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # Let the untimed first run cache bytecode, as an installed package has it.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("NO_COLOR", "1")
    return env


def command(program: str, path: Path, ts: TsEngine | None) -> list[str]:
    if program == "floor":
        return [sys.executable, "-c", FLOOR, str(path)]
    if program == "check":
        return [_tracecheck(), "check", str(path), "--contract", str(CONTRACT)]
    if program == "check-inproc":
        return [sys.executable, __file__, "--worker", "check-inproc", str(path)]
    assert ts is not None
    return [ts.node_bin, str(ts.bundle), "--contract", str(CONTRACT), str(path)]


def _tracecheck() -> str:
    beside = Path(sys.executable).with_name("tracecheck")
    found = str(beside) if beside.exists() else shutil.which("tracecheck")
    if not found:
        raise RuntimeError("the tracecheck command is not installed (pip install -e .)")
    return found


def run_once(program: str, path: Path, ts: TsEngine | None) -> Sample:
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        argv = command(program, path, ts)
        if TIME.exists():
            argv = [str(TIME), "-o", report.name, "-f", "%M %U %S", *argv]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=_child_env())
        wall = time.perf_counter() - started
        timed = Path(report.name).read_text().split()
    if done.returncode != 0:  # the timed contract passes on the workload
        tail = (done.stderr.strip().splitlines() or [""])[-1]
        raise RuntimeError(f"{program} exited {done.returncode}: {tail}")
    sample = Sample(wall)
    if len(timed) >= 3 and timed[-3].isdigit():  # "Command exited ..." may come first
        sample.maxrss = int(timed[-3]) * 1024
        sample.cpu = float(timed[-2]) + float(timed[-1])
    if program != "check":
        result = json.loads(done.stdout.strip().splitlines()[-1])
        sample.work = result.get("work_s")
        sample.vmhwm = result.get("vmhwm")
        sample.base = result.get("base")
        sample.extra = result
        if program == "check-inproc" and result.get("exit") != 0:
            raise RuntimeError(f"tracecheck check exited {result.get('exit')} in process")
    return sample


def _warm(path: Path) -> None:
    with path.open("rb") as stream:
        while stream.read(1 << 24):
            pass


# ---------------------------------------------------------------------------------------------
# Verdicts of the two engines, compared.


def _tracecheck_verdict(path: Path, contract: Path) -> dict[str, Any]:
    done = subprocess.run(
        [_tracecheck(), "check", str(path), "--contract", str(contract), "--json", "-"],
        capture_output=True,
        text=True,
        env=_child_env(),
    )
    report = json.loads(done.stdout)
    (result,) = report["results"]
    rules = {}
    for rule in result["rules"]:
        rules[rule["label"]] = {
            "pass": rule["status"] == "pass",
            "spans": sorted(v["span_id"] for v in rule["violations"] if v["span_id"]),
            "details": [v["detail"] for v in rule["violations"]],
        }
    return rules


def _ts_verdict(path: Path, contract: Path, ts: TsEngine) -> dict[str, Any]:
    done = subprocess.run(
        [ts.node_bin, str(ts.bundle), "--contract", str(contract), str(path), "--verdict"],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def compare_verdicts(path: Path, contract: Path, ts: TsEngine) -> tuple[bool, list[str]]:
    """Whether the two engines agree rule by rule, and a line per disagreement or note."""
    ours = _tracecheck_verdict(path, contract)
    theirs = _ts_verdict(path, contract, ts)
    agree, notes = True, []
    for label, rule in ours.items():
        if label not in theirs["scores"]:
            agree = False
            notes.append(f"`{label}`: no such rule in the TS engine's verdict")
            continue
        ts_pass = theirs["scores"][label] == 1
        ts_spans = sorted(s for s in theirs.get("violating_spans", {}).get(label, []) if s)
        if ts_pass != rule["pass"]:
            agree = False
            notes.append(f"`{label}`: tracecheck {rule['pass']}, TS engine {ts_pass}")
        elif label == "llm.maxTotalTokens":
            # tracecheck reports one violation with the sum; the TS engine one per span past it.
            match = re.match(r"(\d+) tokens across (\d+) span", " ".join(rule["details"]))
            if match and int(match.group(1)) != theirs["tokens_total"]:
                agree = False
                notes.append(
                    f"`{label}`: {match.group(1)} tokens (tracecheck) vs "
                    f"{theirs['tokens_total']} (TS engine)"
                )
            elif match:
                notes.append(
                    f"`{label}`: both fail, the same total ({int(match.group(1)):,} tokens over "
                    f"{match.group(2)} model calls; the TS engine counted {theirs['llm_spans']})"
                )
        elif rule["spans"] or ts_spans:
            if rule["spans"] != ts_spans:
                agree = False
                only_ours = len(set(rule["spans"]) - set(ts_spans))
                only_theirs = len(set(ts_spans) - set(rule["spans"]))
                notes.append(
                    f"`{label}`: violating spans differ ({only_ours} only in tracecheck's, "
                    f"{only_theirs} only in the TS engine's)"
                )
            else:
                notes.append(f"`{label}`: the same {len(ts_spans)} violating span(s)")
    return agree, notes


# ---------------------------------------------------------------------------------------------
# Report.


def _secs(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _mb(n: float | None) -> str:
    return "—" if n is None else f"{n / 1e6:.0f} MB"


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _spread(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return "—"
    return f"{_secs(min(known))}–{_secs(max(known))}"


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _verdict_word(ratio: float | None, target: float) -> str:
    if ratio is None:
        return "not measured"
    return f"**met** ({ratio:.2f}×)" if ratio <= target else f"**not met** ({ratio:.2f}×)"


def report(
    results: dict[int, dict[str, list[Sample]]],
    files: dict[int, int],
    args: argparse.Namespace,
    ts: TsEngine | None,
    header: list[str],
    verification: list[str],
) -> list[str]:
    lines = [*header, ""]
    lines += [
        f"Median of {args.repeat} interleaved runs, each a fresh process, file in the page "
        "cache. *Wall*: the driver's clock around the process, start to exit (interpreter, "
        "imports, reading, checking, exit). *Work*: the process's own clock after its imports "
        "(floor: reading + parsing + attribute dicts; `check` in process: `main()`, its lazy "
        "imports included; TS engine: reading + `JSON.parse` + conversion + evaluation). "
        "*CPU*: user + system seconds of the whole process and all its threads (from "
        "`/usr/bin/time`), which other work on the machine inflates less than wall time; "
        "Node's garbage collector and compiler run on helper threads, so its CPU time can "
        "exceed its wall time.",
        "",
        "| spans | file | measure | floor | `tracecheck check` | TS engine | check/floor | "
        "check/TS | floor/TS |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for size, runs in results.items():
        label = f"{size:,}"
        for measure in ("wall", "cpu", "work"):
            check_key = "check-inproc" if measure == "work" else "check"

            def med(
                program: str, measure: str = measure, runs: dict[str, list[Sample]] = runs
            ) -> float | None:
                return _median([getattr(s, measure) for s in runs.get(program, [])])

            floor, check, tsv = med("floor"), med(check_key), med("ts")
            lines.append(
                f"| {label} | {_mb(files[size])} | {measure} | {_secs(floor)} | {_secs(check)} "
                f"| {_secs(tsv)} | {_fmt_ratio(_ratio(check, floor))} "
                f"| {_fmt_ratio(_ratio(check, tsv))} | {_fmt_ratio(_ratio(floor, tsv))} |"
            )
    lines += [
        "",
        "Spread (fastest–slowest of the runs), wall:",
        "",
        "| spans | floor | `tracecheck check` | `check` in process (work) | TS engine | "
        "TS engine: read+parse+convert / evaluate (work medians) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for size, runs in results.items():
        ts_runs = runs.get("ts", [])
        phases = "—"
        if ts_runs:
            read = _median([s.extra.get("read_s") for s in ts_runs])
            check_phase = _median([s.extra.get("check_s") for s in ts_runs])
            phases = f"{_secs(read)} / {_secs(check_phase)}"
        lines.append(
            f"| {size:,} | {_spread([s.wall for s in runs['floor']])} "
            f"| {_spread([s.wall for s in runs['check']])} "
            f"| {_spread([s.work for s in runs['check-inproc']])} "
            f"| {_spread([s.wall for s in ts_runs])} | {phases} |"
        )
    lines += [
        "",
        "Peak memory (the kernel's high-water RSS of each process; medians): `VmHWM` as the "
        "process reports it at its end, and `/usr/bin/time`'s maximum RSS (wait4's "
        "`ru_maxrss`), the only figure for the installed `tracecheck check` command. *base*: "
        "the RSS when the process's clock started.",
        "",
        "| spans | file | floor VmHWM | `check` (time) | `check` in process VmHWM (base) | "
        "TS engine VmHWM (base) | floor / file | check / file | TS engine / file | "
        "check / TS engine |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, runs in results.items():
        floor_peak = _median([s.vmhwm for s in runs["floor"]])
        cli_peak = _median([s.maxrss for s in runs["check"]])
        inproc_peak = _median([s.vmhwm for s in runs["check-inproc"]])
        inproc_base = _median([s.base for s in runs["check-inproc"]])
        ts_runs = runs.get("ts", [])
        ts_peak = _median([s.vmhwm for s in ts_runs])
        ts_base = _median([s.extra.get("base_rss") for s in ts_runs])
        check_peak = cli_peak if cli_peak is not None else inproc_peak
        lines.append(
            f"| {size:,} | {_mb(files[size])} | {_mb(floor_peak)} | {_mb(cli_peak)} "
            f"| {_mb(inproc_peak)} ({_mb(inproc_base)}) | {_mb(ts_peak)} ({_mb(ts_base)}) "
            f"| {_fmt_ratio(_ratio(floor_peak, files[size]))} "
            f"| {_fmt_ratio(_ratio(check_peak, files[size]))} "
            f"| {_fmt_ratio(_ratio(ts_peak, files[size]))} "
            f"| {_fmt_ratio(_ratio(check_peak, ts_peak))} |"
        )
    # Goals.
    lines += ["", "Goals (issue 16):", ""]
    for size, runs in results.items():
        wall = {p: _median([s.wall for s in runs.get(p, [])]) for p in PROGRAMS}
        work = {p: _median([s.work for s in runs.get(p, [])]) for p in PROGRAMS}
        lines.append(
            f"- {size:,} spans: check ≤ {TARGETS['floor']}× floor: wall "
            f"{_verdict_word(_ratio(wall['check'], wall['floor']), TARGETS['floor'])}, work "
            f"{_verdict_word(_ratio(work['check-inproc'], work['floor']), TARGETS['floor'])}; "
            f"check ≤ {TARGETS['ts']}× TS engine: wall "
            f"{_verdict_word(_ratio(wall['check'], wall['ts']), TARGETS['ts'])}, work "
            f"{_verdict_word(_ratio(work['check-inproc'], work['ts']), TARGETS['ts'])}"
            + (
                f"; the floor itself is {_fmt_ratio(_ratio(wall['floor'], wall['ts']))} the TS "
                f"engine (wall), so check ≤ {TARGETS['ts']}× TS engine needs check ≤ "
                f"{_fmt_ratio(_ratio(TARGETS['ts'] * wall['ts'], wall['floor']))} floor"
                if wall["ts"] is not None
                else ""
            )
        )
    largest = max(results)
    runs = results[largest]
    peak = _median([s.maxrss for s in runs["check"]]) or _median(
        [s.vmhwm for s in runs["check-inproc"]]
    )
    lines.append(
        f"- peak memory ≤ {TARGETS['memory']}× the file ({largest:,} spans, one trace): "
        f"{_verdict_word(_ratio(peak, files[largest]), TARGETS['memory'])}"
    )
    if verification:
        lines += ["", "Verdicts compared:", "", *verification]
    return lines


def _fmt_ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def header_lines(
    ts: TsEngine | None, load: tuple[float, float], digest: tuple[str, str]
) -> list[str]:
    from run import machine  # the same machine lines as the reader benchmark

    lines = [f"## Engine comparison, {date.today().isoformat()}", "", *machine()]
    if ts is not None:
        lines.append(
            f"- TS engine: agent-eval {ts.version} (commit {ts.commit[:12]}), "
            f"src/trace-contracts.ts sha-256 {ts.digest}, bundled by esbuild {ts.esbuild}, "
            f"Node {ts.node}"
        )
    same = digest[0] == digest[1]
    head = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h %cs"], capture_output=True, text=True
    ).stdout.strip()
    lines.append(
        f"- tracecheck at commit {head or 'unknown'}, sources digest {digest[0]}"
        + (" (unchanged during the run)" if same else f" → {digest[1]}: ⚠ changed during the run")
    )
    lines.append(
        f"- 1-minute load average {load[0]:.2f} at the start, {load[1]:.2f} at the end "
        "(2 CPUs shared with other work: single timings wander; medians are kept)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="span counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=7, help="runs of each program; median kept")
    parser.add_argument("--data", type=Path, default=DEFAULT_DIR, help="workload cache directory")
    parser.add_argument(
        "--agent-eval",
        help="agent-eval's source: a work tree or git directory of "
        "github.com/tangle-network/agent-eval (default: $AGENT_EVAL_SRC, then the local mirror)",
    )
    parser.add_argument("--no-ts", action="store_true", help="skip the TypeScript engine")
    parser.add_argument("--no-verify", action="store_true", help="skip comparing the verdicts")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        result = worker_check_inproc(args.worker[1], str(CONTRACT))
        sys.stdout.flush()
        print(json.dumps(result), flush=True)
        os._exit(0)  # skip tearing down millions of objects, as the CLI's exit would not

    from run import sources_digest
    from workload import Workload, ensure

    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    digest_before = sources_digest()
    ts = None
    if not args.no_ts:
        _progress("building the TypeScript engine")
        ts = build_ts_engine(args.agent_eval, args.data / "ts_engine")
    programs = [p for p in PROGRAMS if p != "ts" or ts is not None]

    sizes = [int(s) for s in args.sizes.split(",") if s]
    paths, files = {}, {}
    for size in sizes:
        workload = Workload(size)
        meta = ensure(workload, args.data)
        paths[size] = workload.path(args.data, "otlp-jsonl")
        files[size] = meta["files"]["otlp-jsonl"]["bytes"]

    results: dict[int, dict[str, list[Sample]]] = {}
    for size in sizes:
        path = paths[size]
        _warm(path)
        _progress(f"{size:,} spans: one untimed run of each program")
        for program in programs:
            run_once(program, path, ts)
        runs: dict[str, list[Sample]] = {p: [] for p in programs}
        for rep in range(args.repeat):
            order = programs[rep % len(programs) :] + programs[: rep % len(programs)]
            _progress(f"{size:,} spans: run {rep + 1}/{args.repeat} ({', '.join(order)})")
            for program in order:
                runs[program].append(run_once(program, path, ts))
        results[size] = runs

    verification: list[str] = []
    if ts is not None and not args.no_verify:
        _progress("comparing verdicts")
        failing = args.data / "engine_compare_failing.json"
        failing.write_text(json.dumps(FAILING, indent=2))
        for size in sizes:
            agree, notes = compare_verdicts(paths[size], CONTRACT, ts)
            verdict = "agree on every rule" if agree else "⚠ disagree"
            verification.append(f"- {size:,} spans, `{CONTRACT.name}`: the two engines {verdict}")
            verification += [f"  - {n}" for n in notes]
        smallest = min(sizes)
        agree, notes = compare_verdicts(paths[smallest], failing, ts)
        verdict = "agree on every rule" if agree else "⚠ disagree"
        verification.append(
            f"- {smallest:,} spans, a contract whose five rules fail ({', '.join(FAILING_TEXT)}): "
            f"the two engines {verdict}"
        )
        verification += [f"  - {n}" for n in notes]

    header = header_lines(ts, (load_before, os.getloadavg()[0]), (digest_before, sources_digest()))
    lines = report(results, files, args, ts, header, verification)
    lines += ["", f"_{time.perf_counter() - started:.0f} s of benchmarking._"]
    print("\n".join(lines))
    return 0


FAILING_TEXT = (
    "required `delete_database`",
    "forbidden `run_shell`",
    "order `issue_refund` before `query_orders`",
    "`/order_id` of `query_orders` a number",
    "at most 1,000 tokens",
)


if __name__ == "__main__":
    raise SystemExit(main())
