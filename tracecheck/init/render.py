"""A draft from runs written out: each section with comments that say what it holds, where it
came from and what to review. A section the runs gave nothing for is left out, and why goes
into the header."""

from __future__ import annotations

from collections.abc import Sequence

from tracecheck.init.draft import Draft
from tracecheck.init.plan import ArgumentEntry, RunsPlan
from tracecheck.init.runs import Run
from tracecheck.init.yaml_writer import Item, Map, Node, Seq

__all__ = ["flow_list", "render_runs", "section"]

_REVIEW = (
    "Each rule holds on these runs. A draft says what the runs did, not what the agent must do: "
    'review every rule, above all the lines marked "review:".'
)


def render_runs(plan: RunsPlan, runs: Sequence[Run]) -> Draft:
    doubt = [note for run in runs for note in _doubt(run)]
    header = [_from(runs), *(f"  {run.described}" for run in runs)]
    if plan.skipped:
        header += [
            "Not taken for runs (no tool call and no model call):",
            *(f"  {trace}" for trace in plan.skipped),
        ]
    header += [_REVIEW, *doubt]
    items = [
        Item(plan.name, key="name"),
        Item(
            f"Drafted by tracecheck init from {_count(runs)}; review before use", key="description"
        ),
    ]
    left_out: list[str] = []
    for key, (children, above, missing) in (
        ("tools", _tools(plan)),
        ("trajectory", _trajectory(plan)),
        ("retries", _retries(plan)),
        ("llm", _llm(plan)),
    ):
        found = section(key, children, [*missing, *above])
        if found is None:
            left_out += missing
        else:
            items.append(found)
    left_out += plan.notes_of("checked")
    if left_out:
        header += ["Left out:", *(f"  {note}" for note in left_out)]
    return Draft(Map(tuple(items)), tuple(header), tuple([*doubt, *plan.notes_of("checked")]))


def section(key: str, children: list[Item], notes: Sequence[str]) -> Item | None:
    """A top-level key holding `children`, with `notes` above it; None when it holds none."""
    if not children:
        return None
    return Item(Map(tuple(children)), key=key, notes=tuple(notes))


def flow_list(names: Sequence[str]) -> Seq:
    return Seq(tuple(Item(name) for name in names), flow=True)


def _from(runs: Sequence[Run]) -> str:
    return f"A contract draft written by `tracecheck init` from {_count(runs)}:"


def _count(runs: Sequence[Run]) -> str:
    return "1 run" if len(runs) == 1 else f"{len(runs)} runs"


def _doubt(run: Run) -> list[str]:
    """What the header says about a run whose calls may not all have been recognised."""
    kinds = [
        (what, reason)
        for what, reason in (("tool", run.tools_in_doubt), ("model", run.models_in_doubt))
        if reason is not None
    ]
    if not kinds:
        return []
    rules = " and ".join(f"{what} calls" for what, _ in kinds)
    reasons = dict.fromkeys(reason for _, reason in kinds)
    return [
        f"Capture doubt in {run.name}: {' '.join(reasons)}",
        f"  On that run, check reports the rules about {rules} as could not be evaluated "
        "(exit 2). `capture: lenient` would judge them anyway; this draft does not write it: "
        "whether to trust the capture is your decision (docs/init.md).",
    ]


Parts = tuple[list[Item], list[str], list[str]]  # entries, comments above, what is left out


def _tools(plan: RunsPlan) -> Parts:
    items: list[Item] = []
    if plan.required:
        items.append(
            Item(flow_list(plan.required), key="required", notes=("Called in every run.",))
        )
    if plan.allowed:
        notes: tuple[str, ...] = (
            "Every tool the runs called: a call of any other tool fails.",
            "review: add the tools the agent may also call.",
        )
        items.append(Item(flow_list(plan.allowed), key="allowed", notes=notes))
    if plan.arguments:
        entries = tuple(Item(_argument(entry)) for entry in plan.arguments)
        notes = (
            "The arguments every call of a required tool had: JSON Pointers and JSON types,",
            "never values (arguments may hold secrets); `exists` where the calls' types differ.",
            "review: add equals, oneOf or regex checks for the values that matter.",
        )
        items.append(Item(Seq(entries), key="arguments", notes=notes))
    missing = [f"tools.allowed {note}" for note in plan.notes_of("allowed")]
    missing += [f"tools.arguments: {note}" for note in plan.notes_of("arguments")]
    return items, [], missing


def _argument(entry: ArgumentEntry) -> Map:
    check = Item(entry.type, key="type") if entry.type else Item(True, key="exists")
    return Map((Item(entry.tool, key="tool"), Item(entry.pointer, key="pointer"), check), flow=True)


def _trajectory(plan: RunsPlan) -> Parts:
    trajectory = plan.trajectory
    if trajectory is None:
        return [], [], []
    if not trajectory.steps:
        return [], [], [f"trajectory left out: {trajectory.problem}"]
    calls = tuple(
        Item(names[0]) if len(names) == 1 else Item(Map((Item(flow_list(names), key="parallel"),)))
        for names in trajectory.steps
    )
    notes = [
        "The tool calls every run made, in the order they made them; in-order lets other calls",
        "come between. A parallel group is calls that overlapped in time or followed one model",
        "response: their order is not established.",
        "review: mode exact forbids other calls; ignore: [...] leaves out tools whose calls do",
        "not matter.",
    ]
    if trajectory.left_out:
        count = trajectory.left_out
        notes.append(
            f"{count} call{'' if count == 1 else 's'} of the runs "
            f"{'is' if count == 1 else 'are'} not in every run in this order, so left out."
        )
    return [Item("in-order", key="mode"), Item(Seq(calls), key="calls")], notes, []


def _retries(plan: RunsPlan) -> Parts:
    retries = plan.retries
    if retries is None:
        return [], [], []
    if retries.problem is not None:
        return [], [], [f"retries left out: {retries.problem}"]
    items: list[Item] = []
    if retries.reads:
        reads = tuple(Item(tool, notes=(why,)) for tool, why in retries.reads)
        items.append(Item(Seq(reads), key="reads"))
    if retries.writes:
        writes = tuple(
            Item(_write(write.tool, write.idempotency_key), notes=(why,))
            for write, why in retries.writes
        )
        items.append(Item(Seq(writes), key="writes"))
    if not items:
        return (
            [],
            [],
            [
                "retries left out: no tool repeated a call with equal arguments and none is named "
                "like a write"
            ],
        )
    notes = [
        "Which repeated calls are safe. A read may repeat; a write repeated with equal",
        "arguments, or failed, needs an idempotency key; any other tool must not repeat a call",
        "with equal arguments.",
    ]
    return items, notes, []


def _write(tool: str, key: str | None) -> Node:
    entries = [Item(tool, key="tool")]
    if key is not None:
        entries.append(Item(key, key="idempotencyKey"))
    return Map(tuple(entries), flow=True)


def _llm(plan: RunsPlan) -> Parts:
    items: list[Item] = []
    if plan.models:
        notes: tuple[str, ...] = ("The models the runs' model responses name.",)
        items.append(Item(flow_list(plan.models), key="allowedModels", notes=notes))
    if plan.ceiling is not None:
        notes = (
            f"The largest run ({plan.largest_run}) {plan.ceiling.explain()}.",
            "review: set the budget you mean.",
        )
        items.append(Item(plan.ceiling.budget, key="maxTotalTokens", notes=notes))
    missing = [*plan.notes_of("models"), *plan.notes_of("tokens")]
    return items, [], missing
