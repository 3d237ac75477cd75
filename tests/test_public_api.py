"""The flat public API: every name in __all__ exists, and nothing else is advertised."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "module", ["tracecheck", "redact", "tracecheck.readers", "tracecheck.spans"]
)
def test_all_names_exist(module: str) -> None:
    imported = importlib.import_module(module)
    assert sorted(set(imported.__all__)) == sorted(imported.__all__)
    for name in imported.__all__:
        assert hasattr(imported, name), f"{module}.{name}"


def test_tracecheck_exports_the_reading_api() -> None:
    import tracecheck

    for name in ("read_traces", "iter_spans", "spans_from_otel", "Span", "Trace", "TraceReadError"):
        assert name in tracecheck.__all__
