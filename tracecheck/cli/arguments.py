"""Options several commands share, and argument types; argparse-level only, so that building
the parser loads no reader, checker or redactor."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from tracecheck.formats import FORMATS

__all__ = [
    "CAPTURE_DOUBT",
    "PROFILES",
    "available_cores",
    "capture_arguments",
    "cores_or",
    "html_arguments",
    "jobs_count",
    "positive_int",
    "positive_seconds",
    "prices_argument",
    "storage_option",
    "timeline_profile",
    "trace_arguments",
]

# The redaction profiles names drawn on a page go through (redact's built-in profiles).
PROFILES = ("default", "share", "strict")


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


# What gives reason to doubt that every call was recorded, as the options' help says it.
CAPTURE_DOUBT = "a span like a call no convention maps, a tool call with no tool name"


def capture_arguments(
    parser: argparse.ArgumentParser, *, lenient: str | None = None, strict: bool = True
) -> None:
    """`--lenient-capture` (its help `lenient`, default: what it does to a check) and, when
    `strict`, `--strict-capture`, one or the other, into `args.capture`."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--lenient-capture",
        dest="capture",
        action="store_const",
        const="lenient",
        help=lenient
        or "judge rules about tools and models even when the trace gives reason to doubt "
        f"that every call was recorded ({CAPTURE_DOUBT}), with a note only; by default such "
        "rules could not be evaluated (exit 2)",
    )
    if not strict:
        return
    group.add_argument(
        "--strict-capture",
        dest="capture",
        action="store_const",
        const="strict",
        help="hold every contract to the default strict capture, even one that says "
        "`capture: lenient`",
    )


def prices_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="price table (JSON or YAML: model → input, output, cacheRead, cacheWrite in USD "
        "per million tokens) for llm.maxCostUsd; replaces the contracts' own prices",
    )


def html_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--html",
        metavar="PATH",
        help="write the verdicts as a self-contained HTML page to PATH (needs the report extra)",
    )
    parser.add_argument(
        "--html-profile",
        choices=PROFILES,
        default="default",
        help="redaction profile of the names the --html page draws (default: default)",
    )


def timeline_profile(args: argparse.Namespace) -> str | None:
    """The redaction profile of the timelines `check` keeps: only with `--html`."""
    return args.html_profile if getattr(args, "html", None) is not None else None


def storage_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument(
        "--storage-option", action="append", default=[], metavar="KEY=VALUE", help=help
    )
