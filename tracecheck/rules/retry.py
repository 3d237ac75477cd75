"""`retries`: a repeated call is proven safe, or reported (§4.10)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tracecheck.rules.base import (
    at,
    listed,
)
from tracecheck.rules.canonical import canonical_json, canonical_number
from tracecheck.rules.pointers import resolve, without_member
from tracecheck.rules.subject import Subject
from tracecheck.spans import Span
from tracecheck.verdict import Violation

__all__ = ["RetrySafe", "WriteTool"]


@dataclass(frozen=True)
class WriteTool:
    tool: str
    idempotency_key: str | None = None  # a JSON Pointer into the call's arguments


def _idempotency_key(span: Span, pointer: str) -> str | None:
    """The call's key as a string (`42` and `"42"` are one key), or None when it has none."""
    arguments = span.arguments
    if not arguments.known:
        return None
    key = resolve(arguments.value, pointer)
    if isinstance(key, str):
        return key or None
    if isinstance(key, bool) or not isinstance(key, (int, float)):
        return None
    if isinstance(key, float) and not math.isfinite(key):
        return None
    return canonical_number(key)


@dataclass(frozen=True)
class RetrySafe:
    """`retries`: a repeated call is proven safe, or reported (§4.10)."""

    label: str
    reads: tuple[str, ...] = ()
    writes: tuple[WriteTool, ...] = ()
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        reads = frozenset(self.reads)
        writes = {write.tool: write for write in self.writes}
        violations: list[Violation] = []
        flagged: set[int] = set()  # id() of spans that already carry a violation
        calls: dict[str, int] = {}
        unseen: dict[str, list[Span]] = {}
        groups: dict[tuple[str, str], list[Span]] = {}
        for span in subject.tool_spans:
            name = span.tool_name
            if not name:
                violations.append(
                    at(
                        span,
                        f"span {subject.ref(span)} has no tool name, "
                        "so whether it repeats a call is unknown",
                    )
                )
                flagged.add(id(span))
                continue
            if name in reads:
                continue
            calls[name] = calls.get(name, 0) + 1
            arguments = span.arguments
            if not arguments.known:
                unseen.setdefault(name, []).append(span)
                continue
            identity = arguments.value
            write = writes.get(name)
            if write is not None and write.idempotency_key is not None:
                identity = without_member(identity, write.idempotency_key)
            groups.setdefault((name, canonical_json(identity)), []).append(span)

        for name, spans in unseen.items():
            if calls[name] > 1:
                first = spans[0]
                violations.append(
                    at(
                        first,
                        f"{name} was called {calls[name]} times and span {subject.ref(first)} "
                        "has no captured arguments, so whether a call repeats another is unknown",
                    )
                )
                flagged.add(id(first))

        for (name, _), spans in groups.items():
            if len(spans) < 2:
                continue
            refs = listed([subject.ref(span) for span in spans])
            times = f"{len(spans)} times with the same arguments (spans {refs})"
            second = spans[1]
            write = writes.get(name)
            if write is None:
                violations.append(
                    at(
                        second,
                        f"{name} was called {times} and its side effect is not declared, "
                        "so the repeat is not proven safe",
                    )
                )
                flagged.add(id(second))
                continue
            pointer = write.idempotency_key
            if pointer is None:
                violations.append(
                    at(
                        second,
                        f"write {name} was called {times} and declares no idempotency key, "
                        "so it may have applied more than once",
                    )
                )
                flagged.add(id(second))
                continue
            keys: list[str] = []
            for span in spans:
                key = _idempotency_key(span, pointer)
                if key is None:
                    violations.append(
                        at(
                            span,
                            f"write {name} was called {times}; span {subject.ref(span)} has no "
                            f"idempotency key at {pointer}, so it may have applied more than once",
                        )
                    )
                    flagged.add(id(span))
                elif key not in keys:
                    keys.append(key)
            if len(keys) > 1:
                violations.append(
                    at(
                        second,
                        f"write {name} was called {times} under {len(keys)} different "
                        "idempotency keys, so the target cannot tell they are one operation",
                    )
                )
                flagged.add(id(second))

        for span in subject.tool_spans:
            if not span.failed or id(span) in flagged:
                continue
            name = span.tool_name
            write = writes.get(name) if name else None
            if write is None:
                continue
            if write.idempotency_key is None:
                why = "declares no idempotency key"
            elif _idempotency_key(span, write.idempotency_key) is None:
                why = f"has no idempotency key at {write.idempotency_key}"
            else:
                continue
            violations.append(
                at(
                    span,
                    f"write {name} (span {subject.ref(span)}) errored and {why}; "
                    "its outcome is unknown, so a retry cannot be proven safe",
                )
            )
        return violations

    def describe(self) -> str:
        parts = []
        if self.reads:
            parts.append(f"reads {', '.join(self.reads)}")
        if self.writes:
            shown = [
                write.tool
                if write.idempotency_key is None
                else f"{write.tool} keyed by {write.idempotency_key}"
                for write in self.writes
            ]
            parts.append(f"writes {', '.join(shown)}")
        return f"repeated calls are proven safe: {'; '.join(parts)}"
