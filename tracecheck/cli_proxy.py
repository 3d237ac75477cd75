"""`tracecheck proxy`: not built yet."""

from __future__ import annotations

import argparse
import sys

__all__ = ["DESCRIPTION", "configure", "run"]

DESCRIPTION = "An OTLP/HTTP receiver for POST /v1/traces that redacts every span and forwards what is share-safe to an upstream OTLP endpoint."


def configure(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""


def run(args: argparse.Namespace) -> int:
    print("tracecheck: error: this command is not built yet", file=sys.stderr)
    return 2
