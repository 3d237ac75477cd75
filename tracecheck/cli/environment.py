"""What a command takes from outside its arguments: the streams it reads and writes, the
environment variables, and the collaborators that read and check traces.

`main` builds one from the process (`Environment.current()`) on every call; tests pass their
own, with a reader, checker or contract compiler of their making. A collaborator left `None`
is the real one, imported when a command first asks for it: building the parser imports no
reader, checker or redactor.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

if TYPE_CHECKING:
    from tracecheck.contract import Contract
    from tracecheck.verdict import Verdict

__all__ = ["CheckTrace", "CompileContract", "Environment", "VisitTraces"]

# `tracecheck.readers.by_trace.visit_traces(source, visit, **options)`
VisitTraces = Callable[..., object]
# `tracecheck.check.check(trace, contract, *, capture=...)`
CheckTrace = Callable[..., "Verdict"]
# `tracecheck.contract.compile_contract(path)`
CompileContract = Callable[[Any], "Contract"]


class Environment(NamedTuple):
    """Immutable, as a frozen dataclass would be; a named tuple because `dataclasses` (and the
    `inspect` it imports) would be a tenth of `tracecheck --version`'s start-up."""

    stdin: TextIO
    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str]
    read: VisitTraces | None = None
    check: CheckTrace | None = None
    compile: CompileContract | None = None
    # What `ship` sends through (an httpx transport) and how it waits between attempts.
    transport: Any = None
    sleep: Callable[[float], None] | None = None
    # A progress line on stderr: at once for an input larger than this many bytes, otherwise
    # once reading has taken this many seconds (gzip, directories, standard input).
    progress_bytes: int = 50_000_000  # about two seconds of reading on a modest machine
    progress_seconds: float = 2.0

    @classmethod
    def current(cls, **overrides: Any) -> Environment:
        """The process's own streams and environment variables, as they are now, but for
        `overrides` (any field)."""
        fields: dict[str, Any] = {
            "stdin": sys.stdin,
            "stdout": sys.stdout,
            "stderr": sys.stderr,
            "environ": os.environ,
        }
        return cls(**{**fields, **overrides})

    def error(self, message: str) -> None:
        """`tracecheck: error: message` on stderr."""
        print(f"tracecheck: error: {message}", file=self.stderr)

    def visit_traces(self) -> VisitTraces:
        if self.read is not None:
            return self.read
        from tracecheck.readers.by_trace import visit_traces

        return visit_traces

    def compiler(self) -> Callable[[Any], Contract]:
        if self.compile is not None:
            return self.compile
        from tracecheck.contract.model import compile_contract

        return compile_contract
