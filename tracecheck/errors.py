"""Errors a reader raises: each names the file, the place in it, and what was wrong."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AmbiguousFormatError",
    "ContractError",
    "ContractProblem",
    "TraceReadError",
    "UnrecognizedFormatError",
]


class TraceReadError(Exception):
    """A trace input could not be read.

    `source` is the file (or `<bytes>`), `where` the place inside it (`line 3, column 7`,
    `line 12`, `resourceSpans[0].scopeSpans[0].spans[4].traceId`), `reason` what was wrong.
    """

    def __init__(self, source: str, reason: str, *, where: str | None = None) -> None:
        self.source = source
        self.where = where
        self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        place = f"{self.source}: {self.where}" if self.where else self.source
        return f"{place}: {self.reason}"


class UnrecognizedFormatError(TraceReadError):
    """No reader recognises the content."""


class AmbiguousFormatError(TraceReadError):
    """More than one reader recognises the content; the user must choose."""

    def __init__(self, source: str, formats: tuple[str, ...]) -> None:
        self.formats = formats
        names = " and ".join(formats)
        choices = " or ".join(f"--format {name}" for name in formats)
        super().__init__(source, f"reads as {names}; pass {choices}")

    def __str__(self) -> str:
        return f"{self.source} {self.reason}"


@dataclass(frozen=True, slots=True)
class ContractProblem:
    """One thing wrong in a contract document, at its place (`tools.required[0]`), and where
    that place is written in its file (1-based line and column) when it can be followed."""

    path: str
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    @classmethod
    def duplicate_key(cls, where: str, key: object, at: str = "") -> ContractProblem:
        """A key written twice in one object (`at` places the second, when known)."""
        from tracecheck.naming import quote

        return cls(where, f"duplicate key {quote(key)}{at}")


class ContractError(Exception):
    """A contract that cannot be compiled; `problems` lists every problem found, in order."""

    def __init__(self, problems: list[ContractProblem], *, source: str | None = None) -> None:
        self.problems = tuple(problems)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(self._located(problem) for problem in self.problems)

    def _located(self, problem: ContractProblem) -> str:
        """`file:line:column: place: message`, as compilers write it, for an editor to open."""
        if not self.source:
            return str(problem)
        at = f":{problem.line}:{problem.column}" if problem.line is not None else ""
        return f"{self.source}{at}: {problem}"
