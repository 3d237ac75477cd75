"""Every convention, in the order they claim spans: producers first, shared families last."""

from __future__ import annotations

from tracecheck.conventions.families import GENERIC, OPENINFERENCE, OTEL_GENAI
from tracecheck.conventions.model import Convention
from tracecheck.conventions.select import Selector

__all__ = ["CONVENTIONS", "GENERIC", "select"]

CONVENTIONS: tuple[Convention, ...] = (
    OTEL_GENAI,
    OPENINFERENCE,
)

select = Selector(CONVENTIONS, GENERIC)
