"""What a diff of two runs says, as values: calls, pairs of calls, changes, totals, status."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tracecheck.diff.tolerance import Tolerance

__all__ = [
    "GATED_PAIR_CHANGES",
    "ArgumentChange",
    "ArgumentMatch",
    "CallPair",
    "CallRef",
    "DiffStatus",
    "Divergence",
    "DivergenceKind",
    "ModelUse",
    "PairChange",
    "Quantity",
    "QuantityStatus",
    "RunDiff",
    "RunSummary",
]

DiffStatus = Literal["same", "different", "error"]
# What differs between two paired calls: their order against the other calls (`reordered`),
# which calls share their step (`regrouped`), the tool calls they ran inside (`position`),
# whether they failed (`status`), their arguments (`arguments`).
PairChange = Literal["reordered", "regrouped", "position", "status", "arguments"]
GATED_PAIR_CHANGES: frozenset[str] = frozenset({"reordered", "regrouped", "position", "status"})
DivergenceKind = Literal[
    "missing", "added", "reordered", "regrouped", "position", "status", "arguments"
]
QuantityStatus = Literal["within", "over", "unknown", "unrecorded", "off"]
JsonType = Literal["object", "array", "string", "number", "boolean", "null"]


@dataclass(frozen=True, slots=True)
class CallRef:
    """One tool call of one run as a diff names it: its tool, its span (id, or `#index` in the
    trace's order), its step (1-based) and whether that step is a parallel group, whether the
    call has a start time (`placed`), the tool calls it ran inside (outermost first) and
    whether it failed. Names are shown without any credential pasted into them."""

    tool: str | None
    span: str
    step: int
    parallel: bool = False
    placed: bool = True
    within: tuple[str, ...] = ()
    failed: bool = False


@dataclass(frozen=True, slots=True)
class ArgumentChange:
    """One JSON Pointer where two calls' arguments differ: `changed` (both hold a value),
    `added` (only the run's call has one) or `removed` (only the baseline's). The values are
    kept only when the redactor's `default` profile leaves them as they are (`shown`);
    otherwise only their JSON types are known. `counted` when the difference counts as a
    divergence (see `ArgumentMatch`)."""

    pointer: str
    change: Literal["changed", "added", "removed"]
    baseline_type: JsonType | None
    run_type: JsonType | None
    shown: bool = False
    baseline_value: Any = None
    run_value: Any = None
    counted: bool = False


@dataclass(frozen=True, slots=True)
class CallPair:
    """A baseline call and the run call aligned with it, and what differs between them.
    `gated` says whether a change counts as a divergence (argument changes count only where
    arguments are matched; see `ArgumentMatch`)."""

    baseline: CallRef
    run: CallRef
    changes: tuple[PairChange, ...] = ()
    arguments: tuple[ArgumentChange, ...] = ()
    # Why the arguments could not be compared (one call or both records none), if so.
    arguments_unknown: str | None = None
    gated: bool = False


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first place where the runs part: what differs, the step of each run it is at (None
    past a run's last step), each run's call there, and whose call the difference is about
    (`side`: the baseline's for a missing call, the run's for an added one, both for a
    change between two aligned calls)."""

    kind: DivergenceKind
    baseline_step: int | None
    run_step: int | None
    baseline: CallRef | None = None
    run: CallRef | None = None
    side: Literal["baseline", "run", "both"] = "both"


@dataclass(frozen=True, slots=True)
class ModelUse:
    """How many model calls each run made with one model."""

    model: str
    baseline_calls: int
    run_calls: int

    @property
    def changed(self) -> bool:
        """One run uses the model and the other does not (a count that differs is no change:
        the tokens tell what more calls cost)."""
        return (self.baseline_calls == 0) != (self.run_calls == 0)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A run total compared between the runs: `tokens` (over every model call) or
    `duration_ms` (of the run). `status` is `within` or `over` the tolerance, `unknown` when
    one run records it and the other does not, or neither does and a tolerance applies (a
    problem: it cannot be compared), `unrecorded` when neither does and no tolerance applies,
    and `off` when no tolerance applies."""

    name: Literal["tokens", "duration_ms"]
    baseline: int | float | None
    run: int | float | None
    tolerance: Tolerance | None
    status: QuantityStatus
    reason: str | None = None

    @property
    def delta(self) -> int | float | None:
        if self.baseline is None or self.run is None:
            return None
        return self.run - self.baseline

    @property
    def relative(self) -> float | None:
        """The delta as a fraction of the baseline (None when the baseline is 0 or unknown)."""
        delta = self.delta
        if delta is None or not self.baseline:
            return None
        return delta / self.baseline


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a diff says about one of its runs: its trace id, its steps, tool calls and model
    calls (after merging calls recorded twice)."""

    trace_id: str | None
    steps: int
    calls: int
    model_calls: int
    spans: int


@dataclass(frozen=True)
class ArgumentMatch:
    """Which calls' argument differences count as a divergence: `default` for every tool not
    named in `tools`; a tool's entry is `exact`, `ignore` or the JSON Pointers whose
    differences count (a difference at, above or below one of them)."""

    default: Literal["ignore", "exact"] = "ignore"
    tools: Mapping[str, Literal["ignore", "exact"] | tuple[str, ...]] = field(default_factory=dict)

    def of(self, tool: str | None) -> Literal["ignore", "exact"] | tuple[str, ...]:
        if tool is not None and tool in self.tools:
            return self.tools[tool]
        return self.default

    def describe(self) -> str:
        parts: list[str] = [self.default]
        for tool, how in self.tools.items():
            parts.append(f"{tool}={how if isinstance(how, str) else ','.join(how)}")
        return " ".join(parts)


@dataclass(frozen=True)
class RunDiff:
    """Two runs' tool calls aligned, and every difference between them.

    `pairs` holds every aligned pair in the baseline's order, changed or not; `added` the run's
    calls with no partner, `missing` the baseline's. `problems` are why the diff cannot vouch
    that the runs are the same (capture in doubt, a total one run does not record): they make
    the status `error` whatever else was found. `notes` are what reading the runs noticed."""

    baseline: RunSummary
    run: RunSummary
    pairs: tuple[CallPair, ...]
    added: tuple[CallRef, ...]
    missing: tuple[CallRef, ...]
    models: tuple[ModelUse, ...]
    tokens: Quantity
    duration: Quantity
    first_divergence: Divergence | None
    match_arguments: ArgumentMatch = field(default_factory=ArgumentMatch)
    lenient_capture: bool = False
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> tuple[CallPair, ...]:
        """The pairs with any change, gated or not."""
        return tuple(
            pair for pair in self.pairs if pair.changes or pair.arguments_unknown is not None
        )

    def with_change(self, change: PairChange) -> tuple[CallPair, ...]:
        return tuple(pair for pair in self.pairs if change in pair.changes)

    @property
    def model_changes(self) -> tuple[ModelUse, ...]:
        return tuple(use for use in self.models if use.changed)

    @property
    def over_tolerance(self) -> tuple[Quantity, ...]:
        return tuple(q for q in (self.tokens, self.duration) if q.status == "over")

    @property
    def diverged(self) -> bool:
        """The runs differ past what the diff lets through: a trajectory change, a gated
        argument change, a model one run uses and the other does not, a total past its
        tolerance."""
        return bool(self.first_divergence is not None or self.model_changes or self.over_tolerance)

    @property
    def status(self) -> DiffStatus:
        if self.problems:
            return "error"
        return "different" if self.diverged else "same"
