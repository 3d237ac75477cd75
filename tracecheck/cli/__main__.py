"""`python -m tracecheck.cli` runs the command line, as `python -m tracecheck` does."""

from __future__ import annotations

import sys

from tracecheck.cli import main

sys.exit(main())
