"""`tools.enforced`: every call names a tool that was offered to the model (§4.9)."""

from __future__ import annotations

from dataclasses import dataclass

from tracecheck.rules.base import (
    at,
    listed,
)
from tracecheck.rules.subject import Subject
from tracecheck.verdict import Violation

__all__ = ["ToolsOffered"]


_NO_OFFERED_RECORD = (
    "no span records the tools offered to the model (gen_ai.tool.definitions), "
    "so what the harness enforced is unknown"
)


@dataclass(frozen=True)
class ToolsOffered:
    """`tools.enforced`: every call names an offered tool, within `declared` if given (§4.9)."""

    label: str
    declared: tuple[str, ...] | None = None
    needs_tool_capture: bool = False

    def evaluate(self, subject: Subject) -> list[Violation]:
        violations: list[Violation] = []
        offered: set[str] = set()
        recorded = False
        declared = None if self.declared is None else frozenset(self.declared)
        for span in subject.spans:
            record = span.offered_tools
            if record is None:
                continue
            recorded = True
            ref = subject.ref(span)
            if record.problem is not None:
                violations.append(at(span, f"span {ref}: {record.problem}"))
            offered.update(record.names)
            if declared is not None:
                undeclared = [name for name in record.names if name not in declared]
                if undeclared:
                    violations.append(
                        at(
                            span,
                            f"span {ref} offered the model {len(undeclared)} undeclared "
                            f"tool(s): {listed(undeclared)}",
                        )
                    )
        if not recorded:
            return [Violation(None, _NO_OFFERED_RECORD)]
        for span in subject.tool_spans:
            name = span.tool_name
            if not name:
                violations.append(
                    at(
                        span,
                        f"span {subject.ref(span)} has no tool name, "
                        "so it cannot be matched to an offered tool",
                    )
                )
            elif name not in offered:
                violations.append(
                    at(
                        span,
                        f"span {subject.ref(span)} called {name}, which was never offered: "
                        "the harness did not enforce its tool set",
                    )
                )
        return violations

    def describe(self) -> str:
        text = "every tool call names a tool offered to the model"
        if self.declared is not None:
            text += f", within: {', '.join(self.declared)}"
        return text
