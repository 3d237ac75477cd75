"""What a draft from runs holds, as data, before it is written: each part with the reasons a
reviewer reads beside it, and how a part that fails a run is taken out."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tracecheck.init.budget import Ceiling
from tracecheck.init.common_steps import Trajectory
from tracecheck.init.retry_plan import RetryPlan
from tracecheck.verdict import Violation

__all__ = ["ArgumentEntry", "Failure", "RunsPlan"]

_ARGUMENT_LABEL = re.compile(r"tools\.arguments\[(\d+)\] ")
_REQUIRED_LABEL = re.compile(r"tools\.required\[(.*)\]\Z", re.S)


@dataclass(frozen=True, slots=True)
class ArgumentEntry:
    """A check of one pointer of a tool's arguments: its JSON type, or (None) that it exists."""

    tool: str
    pointer: str
    type: str | None


@dataclass(frozen=True, slots=True)
class Failure:
    """A rule of the plan that failed a run it came from: the run, and what the rule said."""

    run: str
    violations: tuple[Violation, ...]

    def detail(self) -> str:
        first = self.violations[0].detail if self.violations else "it failed"
        more = len(self.violations) - 1
        return first + (f" (and {more} more)" if more > 0 else "")


@dataclass(frozen=True)
class RunsPlan:
    """A draft from runs, section by section; `notes` are (section, text) for the reviewer."""

    name: str
    required: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    arguments: tuple[ArgumentEntry, ...] = ()
    trajectory: Trajectory | None = None
    retries: RetryPlan | None = None
    models: tuple[str, ...] = ()
    ceiling: Ceiling | None = None
    largest_run: str | None = None
    notes: tuple[tuple[str, str], ...] = ()
    skipped: tuple[str, ...] = ()  # traces not taken for runs: no tool call, no model call

    def noted(self, section: str, text: str) -> RunsPlan:
        return dataclasses.replace(self, notes=(*self.notes, (section, text)))

    def notes_of(self, section: str) -> tuple[str, ...]:
        return tuple(text for key, text in self.notes if key == section)

    def has_rules(self) -> bool:
        trajectory = self.trajectory is not None and bool(self.trajectory.steps)
        retries = self.retries is not None and bool(self.retries.reads or self.retries.writes)
        return bool(
            self.required
            or self.allowed
            or self.arguments
            or trajectory
            or retries
            or self.models
            or self.ceiling
        )

    def without(self, failures: Mapping[str, Failure]) -> RunsPlan:
        """The plan without the rules labelled in `failures`, each noted with its failure."""
        plan = self
        dropped_arguments = set()
        for label, failure in failures.items():
            why = f"{label} left out: it fails {failure.run}: {failure.detail()}"
            plan = plan.noted("checked", why)
            if found := _ARGUMENT_LABEL.match(label):
                dropped_arguments.add(int(found.group(1)))
            elif found := _REQUIRED_LABEL.match(label):
                plan = dataclasses.replace(plan, required=_but(plan.required, found.group(1)))
            else:
                plan = plan._without_key(label)
        # A tool no longer required keeps no argument check: a run without it would fail one.
        kept = tuple(
            entry
            for i, entry in enumerate(plan.arguments)
            if i not in dropped_arguments and entry.tool in plan.required
        )
        return dataclasses.replace(plan, arguments=kept)

    def _without_key(self, label: str) -> RunsPlan:
        fields = {
            "tools.allowed": {"allowed": ()},
            "trajectory": {"trajectory": None},
            "retries": {"retries": None},
            "llm.allowedModels": {"models": ()},
            "llm.maxTotalTokens": {"ceiling": None},
        }
        if label not in fields:
            raise ValueError(f"the draft has no rule labelled {label!r}")
        return dataclasses.replace(self, **fields[label])  # type: ignore[arg-type]


def _but(names: Sequence[str], name: str) -> tuple[str, ...]:
    return tuple(n for n in names if n != name)
