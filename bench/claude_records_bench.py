"""Claude Code records: `tracecheck redact` (written back as records) and `verify-safe` on one
large record file, made by repeating the recorded sessions of `fixtures/claude/recorded/`.

    python bench/claude_records_bench.py                       # 60 copies; best of 3
    git archive <rev> redact tracecheck | tar -x -C /tmp/before
    python bench/claude_records_bench.py --compare-with /tmp/before --rounds 3

Each copy of a recording gets session ids of its own, so that the file holds as many sessions
as copies. Every figure is one command in a fresh process (start-up included), best of the
rounds; with `--compare-with DIR`, each round runs the other tree (first on PYTHONPATH), then
this one, and the table gives each tree's best and their ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "fixtures" / "claude" / "recorded"
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def workload(copies: int, folder: Path) -> Path:
    """One JSONL file of `copies` copies of every recording's records, ids made unique."""
    files = sorted(p for p in RECORDED.rglob("*.jsonl") if "subagents" not in p.parts)
    lines = [line for path in files for line in path.read_bytes().splitlines() if line.strip()]
    path = folder / "sessions.jsonl"
    with path.open("wb") as out:
        for copy in range(copies):
            tag = f"{copy:08x}".encode()
            for line in lines:
                out.write(_UUID.sub(lambda m, t=tag: t + m[0][8:], line) + b"\n")
    return path


def timed(tree: Path | None, argv: list[str]) -> float:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = f"{tree}{os.pathsep}{env.get('PYTHONPATH', '')}"
    code = "import sys; from tracecheck.cli import main; sys.exit(main(sys.argv[1:]))"
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        env=env,
        cwd=tempfile.gettempdir(),
        check=False,
        capture_output=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", default="share")
    parser.add_argument("--compare-with", type=Path, help="another source tree to time too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source = workload(args.copies, Path(folder))
        out = Path(folder) / "out.jsonl"
        records = sum(1 for _ in source.open("rb"))
        print(f"{source.stat().st_size / 1e6:.1f} MB, {records} records, {args.copies} copies")
        cases = {
            "redact": ["redact", str(source), "-o", str(out), "--profile", args.profile],
            "verify-safe": ["verify-safe", str(source), "--profile", args.profile],
        }
        trees: list[tuple[str, Path | None]] = [("this tree", None)]
        if args.compare_with:
            trees.insert(0, ("other tree", args.compare_with.resolve()))
        best: dict[tuple[str, str], float] = {}
        # ROOT first on the path when no tree is given: this checkout, not an installed copy.
        for _ in range(args.rounds):
            for case, argv in cases.items():
                for name, tree in trees:
                    seconds = timed(tree or ROOT, argv)
                    key = (case, name)
                    best[key] = min(best.get(key, seconds), seconds)
        for case in cases:
            row = [f"{best[case, name]:.2f} s" for name, _ in trees]
            ratio = ""
            if args.compare_with:
                ratio = f"  this/other {best[case, 'this tree'] / best[case, 'other tree']:.2f}"
            print(f"{case:12} " + "  ".join(row) + ratio)


if __name__ == "__main__":
    main()
