"""Hypothesis draws the same examples on every run unless asked to explore.

A CI run must be reproducible: a property that fails only on some random draw would turn a
landing red long after the change that caused it. `HYPOTHESIS_PROFILE=explore pytest` draws
new examples (and keeps failures in `.hypothesis/`) to look for what the fixed draws miss.
No example has a deadline: on a shared two-core machine one slow draw is the machine's, not the
code's; speed is measured in `bench/`.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("explore", derandomize=False, print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
