"""The conventions page of the documentation, written from the descriptions themselves.

`python -m tracecheck.conventions > docs/conventions.md` regenerates it; a test keeps the page
and the code in step, so the page never describes a reading the code does not do.
"""

from __future__ import annotations

from collections.abc import Iterable

from tracecheck.conventions.model import Convention, Field, KindRule, TokenFields, fields

__all__ = ["markdown"]

_INTRO = """\
# Producer conventions

Every span is read through one **convention**: a description, as data, of where one producer
family records what contracts read (kind, tool name, arguments, result, model, tokens and how
they count the cache, offered tools). `tracecheck show --json` names the convention of each span,
and the JSON report counts the spans each one read.

A span is claimed by the first convention below whose instrumentation scope (name, and version
range where given) or marker attribute it carries; the shared families come last and the common
reading (contracts.md §1) fills in every fact a convention does not describe. A declared kind
(flat span rows, Claude Code) outranks every convention. A tool call's result is read from its
convention's places alone wherever one of their attributes is recorded: a producer's wrapper is
never read as the result itself.

A `gen_ai.operation.name` the GenAI conventions define (`chat`, `execute_tool`,
`invoke_agent`, …) decides a span's kind wherever its convention's own kind rules do not. A tool
name is read from a span name only where a convention documents the shape (`execute_tool X`,
DSPy's `<tool>.__call__`, Logfire's `Function: {name}` template with its `name` attribute).

Capture in doubt stops the rules it concerns **by default**: when a trace holds spans that look
like tool or model calls which no convention maps (a known attribute namespace, a tool- or
model-like name, a message-template name), the verdict carries a note naming them and every rule
about tools or models that did not already fail is *could not be evaluated*; so is every rule
about tools when a tool call does not say which tool ran, every rule about models when tool
calls are recorded and no model call, and every rule about tools when model calls asked for
tools and no tool call is recorded at all (a producer that instruments model calls only).
`--lenient-capture` (or `capture: lenient` in the contract) judges them anyway, with the notes.
Rules about model calls are *could not be evaluated*, lenient or not, when a model call span
runs tool calls its recorded output did not ask for (a loop of calls recorded as one).

Spans of different instrumentations that record the same call (the same tool call id or
response id, or nested spans of one kind and name) are merged into one call whose evidence is
the union of theirs, with a note. A producer's own token total, where it records one, is
compared with the counted total: a disagreement is noted and the larger is used. Where a
convention says a span records the run totals of the model calls below it (`run_totals`), a token
budget over calls with no counts of their own is judged on those totals.

This page is generated from `tracecheck/conventions/` (`python -m tracecheck.conventions`).
"""


def markdown(conventions: Iterable[Convention], fallback: Convention) -> str:
    """The page: an overview table, then one section per convention."""
    conventions = tuple(conventions)
    lines = [_INTRO, "| convention | producer | versions | chosen by |", "|---|---|---|---|"]
    for convention in (*conventions, fallback):
        lines.append(
            f"| `{convention.name}` | {convention.title} | {convention.versions} | "
            f"{_chosen_by(convention)} |"
        )
    for convention in (*conventions, fallback):
        lines.extend(["", *_section(convention)])
    return "\n".join(lines) + "\n"


def _chosen_by(convention: Convention) -> str:
    names = [_scope(scope) for scope in convention.scopes]
    # `x` and `x.*` together read as one scope and the ones below it.
    shown = [
        f"{name}[.*]" if f"{name}.*" in names else name
        for name in names
        if not (name.endswith(".*") and name[:-2] in names)
    ]
    parts = [f"scope `{name}`" for name in shown]
    parts += [f"attribute `{marker}`" for marker in convention.markers]
    return ", ".join(parts) or "every other span"


def _scope(scope: object) -> str:
    name = getattr(scope, "name", "")
    low, high = getattr(scope, "min_version", None), getattr(scope, "below_version", None)
    if low is None and high is None:
        return str(name)
    if low is None:
        return f"{name} <{high}"
    return f"{name} ≥{low}" + (f" <{high}" if high else "")


def _section(convention: Convention) -> list[str]:
    lines = [f"## `{convention.name}`: {convention.title}", "", f"Versions: {convention.versions}."]
    if convention.notes:
        lines += ["", convention.notes]
    facts = [
        ("kind", _kinds(convention.kinds)),
        ("tool name", _tool_name(convention)),
        (
            "arguments",
            _places(convention.arguments)
            + (
                " (the keyword arguments of a recorded call)"
                if convention.arguments_as_call
                else ""
            )
            + (
                f" assembled from `{convention.arguments_by_parameter}` per parameter"
                if convention.arguments_by_parameter
                else ""
            ),
        ),
        (
            "result",
            _places(convention.result)
            + (
                f" (an object whose only key is `{convention.result_wrapper}`: its value)"
                if convention.result_wrapper
                else ""
            ),
        ),
        ("model", _places(convention.model)),
        (
            "offered tools",
            ", ".join(
                [_places(convention.offered)] * bool(convention.offered)
                + [f"`{pattern}`" for pattern in convention.offered_indexed]
            ),
        ),
        ("not tool names", ", ".join(f"`{name}`" for name in sorted(convention.not_tool_names))),
        ("a call may hide under", _places(fields(*convention.evidence))),
        (
            "run totals of the model calls below",
            ", ".join(f"{kind} spans" for kind in sorted(convention.run_totals)),
        ),
    ]
    rows = [(fact, text) for fact, text in facts if text]
    rows += [
        (f"tokens ({index})", _tokens(tokens)) for index, tokens in _numbered(convention.tokens)
    ]
    if not rows:
        return [*lines, "", "Reads every fact the common way."]
    lines += ["", "| fact | read from (in order; the common reading after) |", "|---|---|"]
    lines += [f"| {fact} | {text} |" for fact, text in rows]
    return lines


def _tool_name(convention: Convention) -> str:
    places = [_places(convention.tool)] if convention.tool else []
    if convention.tool_from_name is not None:
        pattern = convention.tool_from_name.replace("|", "\\|")  # inside a table row
        places.append(f"a TOOL span's name matching `{pattern}` (its group)")
    if convention.tool_from_message is not None:
        template_key, template, message_key = convention.tool_from_message
        field = template.partition("{")[2].partition("}")[0]
        places.append(
            f"a TOOL span's `{field}` where `{template_key}` is `{template}` and `{message_key}` "
            "is that template rendered with it"
        )
    return ", ".join(places)


def _numbered(tokens: tuple[TokenFields, ...]) -> list[tuple[str, TokenFields]]:
    if len(tokens) == 1:
        return [("counts", tokens[0])]
    return [(str(number), described) for number, described in enumerate(tokens, 1)]


def _kinds(rules: tuple[KindRule, ...]) -> str:
    return "; ".join(_kind(rule) for rule in rules)


def _kind(rule: KindRule) -> str:
    if rule.name is not None:
        return f"name ~ `{rule.name}` → {rule.kind}"
    if rule.values is None:
        return f"`{rule.attribute}` present → {rule.kind}"
    decoded = " (JSON-decoded)" if rule.decode_json else ""
    mapping = ", ".join(f"`{value}` → {kind}" for value, kind in rule.values.items())
    return f"`{rule.attribute}`{decoded}: {mapping}"


def _places(places: tuple[Field, ...]) -> str:
    return ", ".join(f"`{place}`" for place in places)


def _tokens(tokens: TokenFields) -> str:
    parts = []
    if tokens.requires:
        parts.append("when " + ", ".join(f"`{key}`" for key in tokens.requires) + " is present")
    for label, places in (
        ("input", tokens.input),
        ("output", tokens.output),
        ("cache read", tokens.cache_read),
        ("cache write", tokens.cache_write),
        ("cache read beside input", tokens.cache_read_beside),
        ("cache write beside input", tokens.cache_write_beside),
        ("own total", tokens.total),
    ):
        if places:
            parts.append(f"{label}: {_places(places)}")
    counting = "cache inside input" if tokens.cache == "included" else "cache beside input"
    parts.append(counting)
    for key, pattern in tokens.separate_when:
        parts.append(f"beside input when `{key}` ~ `{pattern}`")
    return "; ".join(parts)
