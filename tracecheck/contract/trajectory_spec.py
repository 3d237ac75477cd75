"""The `trajectory` section of a contract path: a reference list of calls, or a golden run.

The trajectory rule's module (and the alignment it loads) is imported when a path has a
trajectory: a contract without one does not load it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from tracecheck.contract.matcher_spec import MATCHER_OPTIONS
from tracecheck.contract.section_spec import ARGUMENT_CHECKS, SectionChecker

if TYPE_CHECKING:
    from tracecheck.rules.matchers import ArgumentCheck
    from tracecheck.rules.trajectory import Expected, ExpectedStep, TrajectoryMode

__all__ = [
    "ARGUMENT_MATCHES",
    "ENTRY_KEYS",
    "TRAJECTORY_KEYS",
    "TrajectoryChecker",
    "TrajectorySpec",
]

TRAJECTORY_KEYS = ("mode", "calls", "golden", "ignore", "matchArguments")
ENTRY_KEYS = ("tool", "status", "arguments")
ENTRY_ARGUMENT_KEYS = ("pointer", *ARGUMENT_CHECKS, *MATCHER_OPTIONS)
STATUSES = ("ok", "error")
ARGUMENT_MATCHES = ("ignore", "exact")


class TrajectorySpec(NamedTuple):
    """`steps` for a reference written out, `golden` (a path as written) for a golden run,
    whose steps are read when the contract is compiled from its file."""

    mode: TrajectoryMode
    steps: tuple[ExpectedStep, ...] = ()
    golden: str | None = None
    ignore: tuple[str, ...] = ()
    # For a golden run: how its calls' arguments are compared, by default and per tool:
    # "ignore", "exact", or the pointers compared.
    match_arguments: str = "ignore"
    match_per_tool: tuple[tuple[str, str | tuple[str, ...]], ...] = ()


class TrajectoryChecker(SectionChecker):
    def trajectory(self, value: Any, where: str) -> TrajectorySpec | None:
        from tracecheck.rules.trajectory import MODES

        doc = self.obj(value, where, TRAJECTORY_KEYS, required=("mode",))
        if doc is None:
            return None
        mode = self.enum(doc["mode"], f"{where}.mode", MODES) if "mode" in doc else None
        if ("calls" in doc) == ("golden" in doc):
            self.add(where, "needs exactly one of calls (the reference) and golden (a run)")
            return None
        ignore = self.names(doc["ignore"], f"{where}.ignore") if "ignore" in doc else ()
        steps: tuple[ExpectedStep, ...] | None = ()
        golden: str | None = None
        if "calls" in doc:
            steps = self.reference(doc["calls"], f"{where}.calls")
            if "matchArguments" in doc:
                self.add(f"{where}.matchArguments", "is allowed only with golden")
        else:
            golden = self.text(doc["golden"], f"{where}.golden", blank_ok=False)
        matches = self.match_arguments(doc.get("matchArguments", "ignore"), where)
        if mode is None or steps is None or ignore is None or matches is None:
            return None
        if golden is None and not steps:
            return None  # the calls were refused: reported already
        default, per_tool = matches
        return TrajectorySpec(
            cast("TrajectoryMode", mode), steps, golden, tuple(ignore), default, per_tool
        )

    def reference(self, value: Any, where: str) -> tuple[ExpectedStep, ...] | None:
        from tracecheck.rules.trajectory import ExpectedStep

        items = self.array(value, where, "expected calls")
        if items is None:
            return None
        steps: list[ExpectedStep] = []
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            if isinstance(item, Mapping) and "parallel" in item:
                step = self.parallel(item, at)
            else:
                call = self.expected(item, at)
                step = None if call is None else ExpectedStep((call,))
            if step is not None:
                steps.append(step)
        return tuple(steps) if len(steps) == len(items) else None

    def parallel(self, item: Mapping[str, Any], where: str) -> ExpectedStep | None:
        from tracecheck.rules.trajectory import Expected, ExpectedStep

        doc = self.obj(item, where, ("parallel",), required=("parallel",))
        members = (
            self.array(doc["parallel"], f"{where}.parallel", "expected calls") if doc else None
        )
        if members is None:
            return None
        if len(members) < 2:
            self.add(f"{where}.parallel", "needs two or more calls; one call is a step of its own")
            return None
        calls = [
            self.expected(member, f"{where}.parallel[{j}]") for j, member in enumerate(members)
        ]
        if any(call is None for call in calls):
            return None
        return ExpectedStep(tuple(cast(Expected, call) for call in calls), parallel=True)

    def expected(self, item: Any, where: str) -> Expected | None:
        from tracecheck.rules.trajectory import Expected

        if isinstance(item, str):
            name = self.name(item, where)
            return None if name is None else Expected(name)
        doc = self.obj(item, where, ENTRY_KEYS, required=("tool",))
        if doc is None or "tool" not in doc:
            return None
        tool = self.name(doc["tool"], f"{where}.tool")
        status = self.enum(doc["status"], f"{where}.status", STATUSES) if "status" in doc else None
        checks = (
            self.entry_arguments(doc["arguments"], f"{where}.arguments")
            if ("arguments" in doc)
            else ()
        )
        if tool is None or checks is None or ("status" in doc and status is None):
            return None
        return Expected(tool, cast(Any, status), checks)

    def entry_arguments(
        self, value: Any, where: str
    ) -> tuple[tuple[str, ArgumentCheck], ...] | None:
        items = self.array(value, where, "argument checks")
        if items is None:
            return None
        parsed: list[tuple[str, ArgumentCheck]] = []
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            entry = self.obj(item, at, ENTRY_ARGUMENT_KEYS, required=("pointer",))
            if entry is None or "pointer" not in entry:
                continue
            pointer = self.pointer(entry["pointer"], f"{at}.pointer")
            check = self.entry_check(entry, at, pointer)
            if pointer is not None and check is not None:
                parsed.append((pointer, check))
        return tuple(parsed) if len(parsed) == len(items) else None

    def match_arguments(
        self, value: Any, where: str
    ) -> tuple[str, tuple[tuple[str, str | tuple[str, ...]], ...]] | None:
        at = f"{where}.matchArguments"
        if isinstance(value, str):
            found = self.enum(value, at, ARGUMENT_MATCHES)
            return None if found is None else (found, ())
        if not isinstance(value, Mapping):
            self.add(
                at, "must be ignore, exact, or an object of tool name → ignore, exact or pointers"
            )
            return None
        per_tool: list[tuple[str, str | tuple[str, ...]]] = []
        for tool, how in value.items():
            tool_at = f"{at}.{tool}"
            if isinstance(how, str):
                found = self.enum(how, tool_at, ARGUMENT_MATCHES)
                if found is not None:
                    per_tool.append((str(tool), found))
                continue
            pointers = self.array(how, tool_at, "JSON Pointers")
            parsed = [self.pointer(p, f"{tool_at}[{j}]") for j, p in enumerate(pointers or ())]
            if pointers is not None and None not in parsed:
                per_tool.append((str(tool), tuple(cast(str, p) for p in parsed)))
        return "ignore", tuple(per_tool)
