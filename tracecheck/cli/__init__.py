"""The `tracecheck` command line, one module per command.

`main(argv)` runs one command and returns its exit code (`ExitCode`); the console script and
`python -m tracecheck` call it. Each command module (`check`, `show`, `lint`, `explain`,
`contracts`, `redact`, `verify_safe`, `proxy`, `ship`, `ingest`) adds its options with `add_parser`, which
imports only argparse-level things, and does its work in `run(args, env)`, which imports what it
needs when it runs. `inputs` and `output` are the helpers they share for reading traces and
writing what they produce; `environment.Environment` is what a command reads and writes.
"""

from __future__ import annotations

from tracecheck.cli.app import main
from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment

__all__ = ["Environment", "ExitCode", "main"]
