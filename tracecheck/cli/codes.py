"""Exit codes, the help text that lists them, and how a command stops early with one."""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from tracecheck.bugs import internal_error

__all__ = ["EPILOG", "INTERRUPTED", "PRECEDENCE", "ExitCode", "Stop", "internal_error"]


class ExitCode(IntEnum):
    """Stable exit codes, listed in `--help`."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNREADABLE = 3
    AMBIGUOUS = 4


# Not one of tracecheck's codes: the shell's for a process ended by SIGINT (128 + 2).
INTERRUPTED: Final = 130

EPILOG = """\
exit codes:
  0  success (every verdict passes; the input is safe to share)
  1  a rule failed; the input is UNSAFE or UNKNOWN (redact writes nothing)
  2  usage error, malformed or contradictory contract, or a rule that could not be evaluated
  3  a trace or input file could not be read
  4  a trace's format is ambiguous: pass --format
"""
PRECEDENCE = """when several apply (one run fails, another cannot be read), the highest code wins;
every input is still read and every readable trace checked and reported.
"""


class Stop(Exception):
    """A command ends early with this exit code; its message is already printed."""

    def __init__(self, code: ExitCode) -> None:
        self.code = code
