"""Options several commands share, and argument types; argparse-level only, so that building
the parser loads no reader, checker or redactor."""

from __future__ import annotations

import argparse

from tracecheck.formats import FORMATS

__all__ = ["positive_int", "positive_seconds", "trace_arguments"]


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
