"""`python -m tracecheck` runs the command line."""

from __future__ import annotations

import sys

from tracecheck.cli import main

sys.exit(main())
