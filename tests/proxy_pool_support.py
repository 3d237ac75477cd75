"""Scrub collaborators for the proxy's worker processes (tests/test_proxy_pool.py). A worker
imports them by name, so they live here, in a module that imports little."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from redact.model import ShareFinding, ShareStatus, ShareVerdict
from redact.spans import DroppedSpan, ScrubbedSpans, scrub_spans


def slow_scrub(spans: Any, **options: Any) -> ScrubbedSpans:
    """`scrub_spans` after 0.3 s: a batch keeps its worker busy, so the next goes to another."""
    time.sleep(0.3)
    return scrub_spans(spans, **options)


def scrub_or_die(spans: Any, **options: Any) -> ScrubbedSpans:
    """`scrub_spans`, except that a batch holding a span named `kill-worker` kills its worker."""
    spans = list(spans)
    if any(span.name == "kill-worker" for span in spans):
        os.kill(os.getpid(), signal.SIGKILL)
    return scrub_spans(spans, **options)


def hold_back_unsafe(spans: Any, **options: Any) -> ScrubbedSpans:
    """`scrub_spans`, then spans named `held-back…` held back as UNSAFE (credential/known-secret)."""
    out = scrub_spans(spans, **options)
    finding = ShareFinding("credential", "known-secret", "error", 1, ("span:x/attributes/k",))
    verdict = ShareVerdict(ShareStatus.UNSAFE, "share", (finding,))
    held = [s for s in out.kept if s.name.startswith("held-back")]
    kept = tuple(s for s in out.kept if not s.name.startswith("held-back"))
    dropped = tuple(DroppedSpan(s.trace_id, s.span_id, verdict) for s in held)
    return ScrubbedSpans(kept, out.dropped + dropped, out.report)


def always_fails(spans: Any, **options: Any) -> ScrubbedSpans:
    raise RuntimeError("the redactor broke on this batch")
