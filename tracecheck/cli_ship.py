"""`tracecheck ship`: not built yet."""

from __future__ import annotations

import argparse
import sys

__all__ = ["DESCRIPTION", "configure", "run"]

DESCRIPTION = "Redact traces and send them to a hosted-ingest endpoint (wire 2026-07-24.v1)."


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""


def run(args: argparse.Namespace) -> int:
    print("tracecheck: error: this command is not built yet", file=sys.stderr)
    return 2
