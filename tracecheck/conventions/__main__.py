"""`python -m tracecheck.conventions`: print the conventions page (docs/conventions.md)."""

from __future__ import annotations

import sys

from tracecheck.conventions.describe import markdown
from tracecheck.conventions.registry import CONVENTIONS, GENERIC

sys.stdout.write(markdown(CONVENTIONS, GENERIC))
