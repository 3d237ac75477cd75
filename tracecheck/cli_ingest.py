"""`tracecheck ingest-server`: not built yet."""

from __future__ import annotations

import argparse
import sys

__all__ = ["DESCRIPTION", "configure", "run"]

DESCRIPTION = "The reference hosted-ingest receiver, on SQLite, for local development and tests."


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""


def run(args: argparse.Namespace) -> int:
    print("tracecheck: error: this command is not built yet", file=sys.stderr)
    return 2
