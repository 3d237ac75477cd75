"""Trace contracts in tests: `assert_contract` (no pytest needed) and its failure messages, and
the pytest plugin (`plugin`, loaded through the `pytest11` entry point) with what it runs on
first use: the capture of each test's spans (`capture`), the evidence a failing check writes
(`evidence`) and golden runs (`golden`).

This package sits on top: it may import the checker, contracts, rules, readers, writers,
reports, the run-to-run diff and the redaction core; nothing in tracecheck or redact imports it.
pytest imports `tracecheck.testing.plugin`, and so this package, in every run, used or not: this
module imports nothing heavy, its names are imported on first use (a module here imports from
the module that defines a name, never from this package), and the plugin imports the rest when
a test first uses the fixture or a marker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracecheck.lazy import lazy_names

if TYPE_CHECKING:
    from tracecheck.testing.assertion import (
        MAX_VIOLATIONS_SHOWN,
        ContractInput,
        assert_contract,
        failure_message,
        no_spans_message,
    )

__all__ = [
    "MAX_VIOLATIONS_SHOWN",
    "ContractInput",
    "assert_contract",
    "failure_message",
    "no_spans_message",
]

_HOMES = dict.fromkeys(__all__, "tracecheck.testing.assertion")

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
