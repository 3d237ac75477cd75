"""Redaction benchmark: `redact_spans` and `assess_spans` against one combined regex scan.

    python bench/redact_bench.py                  # 10k and 100k spans; best of 3
    python bench/redact_bench.py --sizes 10000 --repeat 5
    git archive <rev> redact tracecheck | tar -x -C /tmp/before
    python bench/redact_bench.py --compare-with /tmp/before --rounds 3   # side by side, one run

`--compare-with DIR` times another source tree of redact and tracecheck against this one in the
same run: each round runs both trees, one after the other, in fresh processes (the other tree
first on PYTHONPATH), and the table keeps each case's best MB/s per tree and the change.

Spans are read once (not timed). Each figure is the best of N in this process, the cyclic GC
paused as on the reading side. The string data is every string a span carries (name, status
message, event names, and the keys and string values of its attributes, event and link
attributes — resource attributes included, as the readers merge them into each span's
attributes); MB/s is its UTF-8 size over the time. Two floors, timed in the same run over the same strings:

- `floor: one RE2 scan` — the redactor's own combined prefilter (every detector's RE2 pattern
  and every known-secret form in one alternation), run once over all the strings joined: the
  least any redactor of this design can spend.
- `floor: RE2 per string` — the same pattern searched string by string, which is what a scan
  loop over span attributes costs before it does anything with a match.

20 known secrets (random, seeded) are passed to every run; `share, 1 known secret` shows the
per-string cost does not grow with their number.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import string
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

import redact  # noqa: E402
from redact.known import KnownSecrets  # noqa: E402
from redact.scan import prefilter_for  # noqa: E402
from tracecheck import read_traces  # noqa: E402
from tracecheck.spans import Span  # noqa: E402


def known_secrets(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + " /+-_"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(12, 40))) for _ in range(count)]


def surfaces(spans: list[Span]) -> list[str]:
    """Every string the redactor reads: names, keys and string values of every surface."""
    out: list[str] = []
    for span in spans:
        out.append(span.name)
        if span.status_message:
            out.append(span.status_message)
        mappings = [span.attributes, *(e.attributes for e in span.events)]
        mappings.extend(link.attributes for link in span.links)
        out.extend(event.name for event in span.events)
        for mapping in mappings:
            out.extend(mapping)
            out.extend(v for v in mapping.values() if isinstance(v, str))
    return out


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
        gc.enable()
    return min(times)


def run(spans_count: int, repeat: int, as_json: bool = False) -> list[tuple[str, float]]:
    workload = Workload(spans=spans_count)
    ensure(workload, DEFAULT_DIR)
    spans: list[Span] = [
        s for t in read_traces(workload.path(DEFAULT_DIR, "otlp-jsonl")) for s in t.spans
    ]
    strings = surfaces(spans)
    megabytes = sum(len(s.encode("utf-8", "surrogatepass")) for s in strings) / 1e6
    secrets20 = KnownSecrets.build(known_secrets(20))
    secrets1 = KnownSecrets.build(known_secrets(1))
    share = redact.PROFILES["share"]
    prefilter = prefilter_for(share.credential_detectors + share.personal_detectors, secrets20)

    def joined_scan() -> None:
        data = "\n".join(strings).encode("utf-8", "surrogatepass")
        # The patterns of the prescan (one before known secrets were scanned apart).
        for pattern in getattr(prefilter, "patterns", None) or (prefilter._pattern,):
            for _ in pattern.finditer(data):
                pass

    def per_string_scan() -> None:
        for text in strings:
            prefilter.may_hold(text)

    cases: list[tuple[str, Callable[[], Any]]] = [
        ("floor: one RE2 scan", joined_scan),
        ("floor: RE2 per string", per_string_scan),
        ("redact_spans default", lambda: redact.redact_spans(spans, known_secrets=secrets20)),
        (
            "redact_spans share",
            lambda: redact.redact_spans(spans, profile="share", known_secrets=secrets20),
        ),
        (
            "redact_spans share, 1 known secret",
            lambda: redact.redact_spans(spans, profile="share", known_secrets=secrets1),
        ),
        ("assess_spans default", lambda: redact.assess_spans(spans, known_secrets=secrets20)),
        (
            "assess_spans share",
            lambda: redact.assess_spans(spans, profile="share", known_secrets=secrets20),
        ),
    ]
    if not as_json:
        print(f"\n{spans_count} spans, {len(strings)} strings, {megabytes:.1f} MB of string data")
        print(f"{'case':<38} {'seconds':>8} {'MB/s':>8} {'spans/s':>10} {'× floor':>8}")
    results = []
    floor = 0.0
    for name, fn in cases:
        seconds = best(fn, repeat)
        floor = floor or seconds
        results.append((name, seconds))
        if as_json:
            record = {"spans": spans_count, "case": name, "mb_s": megabytes / seconds}
            print(json.dumps(record), flush=True)
            continue
        print(
            f"{name:<38} {seconds:8.3f} {megabytes / seconds:8.1f} "
            f"{spans_count / seconds:10.0f} {seconds / floor:8.2f}",
            flush=True,
        )
    return results


def compare(other: Path, sizes: str, repeat: int, rounds: int) -> None:
    """Both trees, side by side: best MB/s per case over `rounds` alternating runs."""
    best: dict[tuple[str, int, str], float] = {}
    trees = (("before", str(other)), ("after", None))
    for _ in range(rounds):
        for label, path in trees:
            env = dict(os.environ)
            if path is not None:
                env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
            command = [sys.executable, __file__, "--sizes", sizes, "--repeat", str(repeat)]
            out = subprocess.run(
                [*command, "--json"], env=env, capture_output=True, text=True, check=True
            )
            for line in out.stdout.splitlines():
                record = json.loads(line)
                key = (label, record["spans"], record["case"])
                best[key] = max(best.get(key, 0.0), record["mb_s"])
    print(f"{'spans':>7} {'case':<38} {'before MB/s':>11} {'after MB/s':>10} {'change':>7}")
    for (label, spans, case), before in sorted(best.items(), key=lambda kv: kv[0][1]):
        if label != "before":
            continue
        after = best[("after", spans, case)]
        change = 100 * (after - before) / before
        print(f"{spans:>7} {case:<38} {before:>11.1f} {after:>10.1f} {change:>+6.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one JSON line per case")
    parser.add_argument("--compare-with", type=Path, help="another source tree to time too")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.compare_with:
        compare(args.compare_with, args.sizes, args.repeat, args.rounds)
        return
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.repeat, args.json)


if __name__ == "__main__":
    main()
