"""Redaction benchmark: `redact_spans` and `assess_spans` against one combined regex scan.

    python bench/redact_bench.py                  # 10k and 100k spans; best of 3
    python bench/redact_bench.py --sizes 10000 --repeat 5

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
import random
import string
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


def run(spans_count: int, repeat: int) -> list[tuple[str, float]]:
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
        for _ in prefilter._pattern.finditer(data):
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
    print(f"\n{spans_count} spans, {len(strings)} strings, {megabytes:.1f} MB of string data")
    print(f"{'case':<38} {'seconds':>8} {'MB/s':>8} {'spans/s':>10} {'× floor':>8}")
    results = []
    floor = 0.0
    for name, fn in cases:
        seconds = best(fn, repeat)
        floor = floor or seconds
        results.append((name, seconds))
        print(
            f"{name:<38} {seconds:8.3f} {megabytes / seconds:8.1f} "
            f"{spans_count / seconds:10.0f} {seconds / floor:8.2f}",
            flush=True,
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.repeat)


if __name__ == "__main__":
    main()
