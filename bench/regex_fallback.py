"""What redaction costs where google-re2 cannot install (no musl wheel): `redact_spans` and
`assess_spans` under the `share` profile on the reader workload's spans, with RE2 and with it
hidden (`sys.modules['re2'] = None`, so `redact/engine.py` falls back to `regex`). Each engine runs
in fresh interpreters, interleaved; the spans are read before the clock starts; best of N. The
two must give the same result (tests/test_redact_engine.py proves it on the corpus and fixtures;
here the count of findings is compared).

    python bench/regex_fallback.py                   # 10k spans, best of 3
    python bench/regex_fallback.py --spans 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

ENGINES = ("re2", "regex")


def _worker(engine: str, path: str) -> dict[str, object]:
    if engine == "regex":
        sys.modules["re2"] = None  # type: ignore[assignment]
    import gc
    import time

    from redact import assess_spans, redact_spans
    from redact.engine import ENGINE
    from tracecheck import read_traces

    assert engine == ENGINE, ENGINE
    spans = [span for trace in read_traces(path) for span in trace.spans]
    size = sum(len(text.encode()) for span in spans for text in _strings(span))
    gc.collect()
    started = time.perf_counter()
    out = redact_spans(spans, profile="share", pseudonym_key=b"bench-pseudonym-key-16+")
    redacted = time.perf_counter() - started
    started = time.perf_counter()
    verdict = assess_spans(spans, profile="share")
    assessed = time.perf_counter() - started
    return {
        "redact": redacted,
        "assess": assessed,
        "megabytes": size / 1e6,
        "findings": len(out.report.findings),
        "verdict": verdict.status.value,
    }


def _strings(span: object) -> list[str]:
    """The attribute strings of a span (the bulk of what redaction reads), for the MB/s."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, Mapping):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(getattr(span, "attributes", {}))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        return
    workload = Workload(spans=args.spans)
    ensure(workload, DEFAULT_DIR, verbose=False)
    path = workload.path(DEFAULT_DIR, "otlp-jsonl")
    best: dict[str, dict[str, object]] = {}
    for _ in range(args.repeat):
        for engine in ENGINES:
            done = subprocess.run(
                [sys.executable, __file__, "--worker", engine, str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(done.stdout.splitlines()[-1])
            print(engine, got, file=sys.stderr)
            for key in ("redact", "assess"):
                kept = best.setdefault(engine, dict(got))
                kept[key] = min(float(kept[key]), float(got[key]))  # type: ignore[arg-type]
    assert best["re2"]["findings"] == best["regex"]["findings"], best
    assert best["re2"]["verdict"] == best["regex"]["verdict"], best
    megabytes = float(best["re2"]["megabytes"])  # type: ignore[arg-type]
    print(f"{args.spans:,} spans, {megabytes:.1f} MB of attribute strings; best of {args.repeat}\n")
    print("| engine | redact_spans s | MB/s | assess_spans s | MB/s |")
    print("|---|---:|---:|---:|---:|")
    for engine in ENGINES:
        red = float(best[engine]["redact"])  # type: ignore[arg-type]
        ass = float(best[engine]["assess"])  # type: ignore[arg-type]
        label = "google-re2" if engine == "re2" else "regex (re2 hidden)"
        print(
            f"| {label} | {red:.2f} | {megabytes / red:.1f} | {ass:.2f} | {megabytes / ass:.1f} |"
        )


if __name__ == "__main__":
    main()
