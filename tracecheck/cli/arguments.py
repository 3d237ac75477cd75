"""Options several commands share, and argument types; argparse-level only, so that building
the parser loads no reader, checker or redactor."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from tracecheck.formats import FORMATS

__all__ = [
    "available_cores",
    "cores_or",
    "jobs_count",
    "positive_int",
    "positive_seconds",
    "trace_arguments",
]


def trace_arguments(parser: argparse.ArgumentParser) -> None:
    """`TRACE...`, `--format` and `--trace-id`, as `check` and `show` take them."""
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="trace file or directory")
    parser.add_argument("--format", choices=FORMATS, help="read as this format instead of sniffing")
    parser.add_argument("--trace-id", help="only the trace with this id")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one; a
    container's CPU quota is not seen)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def cores_or(text: str, parse: Callable[[str], int]) -> int:
    """`auto` as the cores this process may run on; anything else as `parse` reads it."""
    return available_cores() if text.strip().lower() == "auto" else parse(text)


def jobs_count(text: str) -> int:
    """`--jobs`: a number of processes, or 0 or `auto` for one per available core."""
    return cores_or(text, _jobs)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number or auto") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 (auto) or more")
    return value or available_cores()
