"""Token usage of a Claude Code session, made to agree with the totals Claude Code reports.

Claude Code writes an assistant message as one record per content block, each with a copy of
the message's `usage` taken when the block ended. The API reports input and cache counts when
a message starts, but the output count only at its end (`message_delta`), so a record written
before that holds the start snapshot (a few output tokens). The final usage of a message is
known when one of its records has a `stop_reason`, from a `stream_event` `message_delta`
(`--include-partial-messages`), or from a Task/Agent result's `usage` (a sub-agent's last
message). The rest is reconciled against what Claude Code totals itself:

1. main thread: the session's main-thread LLM spans sum to the `usage` of its `result`
   records (one per turn, each counting the main agent's messages of its turn, not
   sub-agents'; CLI 2.1.3xx may write a turn's result after later messages, so the sum is
   taken over the session); missing output goes to the spans whose usage was a start
   snapshot (split evenly), missing input and cache counts to the last span;
2. per model: all LLM spans of a model sum to the session's `modelUsage` (the last `result`'s,
   or a transcript's `cost-state`: running totals that count sub-agents and Claude Code's own
   side calls: agent warm-ups, WebFetch summaries); missing output goes to the sub-agent spans
   of that model whose usage was a start snapshot, everything else to one LLM span per model
   standing for calls the input does not show (`claude.usage.reconciled: unattributed`);
3. a span whose usage is a start snapshot that no total settles keeps its input and cache
   counts, but its output count is unknown (`claude.usage.output_tokens_at_start` keeps the
   snapshot), so a token ceiling cannot pass on it.

Every span changed carries `claude.usage.reconciled` and the session gets a read note.
"""

from __future__ import annotations

from typing import Any

from tracecheck.readers.claude import fields
from tracecheck.readers.claude.model import USAGE_KEYS, Call, Session, span_id
from tracecheck.readers.common import ReadContext

__all__ = ["counts", "settle", "take"]

_MODEL_USAGE_KEYS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheReadInputTokens": "cache_read_input_tokens",
    "cacheCreationInputTokens": "cache_creation_input_tokens",
}


def counts(usage: dict[str, Any], where: str) -> dict[str, int | float]:
    """The four token counts a usage object records (absent ones left out)."""
    found = {}
    for key in USAGE_KEYS:
        value = fields.number(usage, key, f"{where}.{key}")
        if value is not None:
            found[key] = value
    return found


def model_counts(raw: dict[str, Any], where: str) -> dict[str, dict[str, int | float]]:
    """`modelUsage`: model → the four counts, renamed to the API's usage keys."""
    found: dict[str, dict[str, int | float]] = {}
    for model, entry in raw.items():
        if not isinstance(entry, dict):
            raise fields.Invalid(f"{where}.{model}", f"is {fields.describe(entry)}, not an object")
        found[model] = {}
        for key, name in _MODEL_USAGE_KEYS.items():
            value = fields.number(entry, key, f"{where}.{model}.{key}")
            if value is not None:
                found[model][name] = value
    return found


def take(call: Call, usage: dict[str, int | float], final: bool) -> None:
    """Keep a record's usage on its message: a final one wins over snapshots; among
    snapshots (or among finals) the one with the most output tokens, later ones on ties."""
    if call.final and not final:
        return
    output = usage.get("output_tokens", -1)
    kept = -1 if call.usage is None else call.usage.get("output_tokens", -1)
    if final and not call.final:
        call.usage, call.final = dict(usage), True
    elif output >= kept:
        call.usage = dict(usage)


def settle(session: Session, ctx: ReadContext) -> None:
    """Apply the rules above and write each LLM span's usage attributes."""
    _task_results(session)
    llm = [c for c in session.calls.values() if c.kind == "LLM"]
    for call in llm:
        final = session.final_usage.get(call.attributes.get("gen_ai.response.id", ""))
        if final is not None:
            take(call, {**(call.usage or {}), **final}, True)
    settled: set[str] = {c.span_id for c in llm if c.final}
    added: dict[str, int | float] = {}
    turns = [r.usage for r in session.results if r.usage is not None]
    if turns:
        main = [c for c in llm if c.parent_id == session.root.span_id]
        expected: dict[str, int | float] = {}
        for turn in turns:
            for key, value in turn.items():
                expected[key] = expected.get(key, 0) + value
        _reconcile(session, main, expected, added)
        settled.update(c.span_id for c in main)
    totals = _model_totals(session)
    if totals is not None:
        for model, expected in totals.items():
            of_model = [c for c in llm if c.attributes.get("gen_ai.response.model") == model]
            open_calls = [c for c in of_model if c.span_id not in settled]
            _reconcile_model(session, model, of_model, open_calls, expected, added)
            settled.update(c.span_id for c in of_model)
    unknown = 0
    for call in session.calls.values():
        if call.kind == "LLM":
            known = call.final or call.span_id in settled
            _write(call, known=known)
            unknown += call.usage is not None and not known
    _notes(session, ctx, added, unknown)


def _task_results(session: Session) -> None:
    """A Task/Agent result's usage is its sub-agent's last message's: final usage for that
    message when it was read (same input and cache counts), else a span of its own under the
    call (stream-json of CLI 2.0 and early 2.1 shows only a sub-agent's tool-use blocks)."""
    for call_id, last in session.task_usage.items():
        task_span = span_id("tool", session.key, call_id)
        below = [c for c in session.calls.values() if c.kind == "LLM" and c.parent_id == task_span]
        same = [c for c in below if _same_input(c.usage, last)]
        if same:
            take(same[-1], {**(same[-1].usage or {}), **last}, True)
            continue
        model = below[-1].attributes.get("gen_ai.response.model") if below else None
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "anthropic",
            "claude.usage.reconciled": "task result",
        }
        name = "chat (sub-agent's last message, from its result)"
        if isinstance(model, str):
            attributes["gen_ai.response.model"] = model
        session.calls[f"r:{call_id}"] = Call(
            "LLM",
            span_id("task-result", session.key, call_id),
            task_span,
            session.root.where,
            name,
            attributes,
            ctx=session.root.ctx,
            usage=dict(last),
            final=True,
        )


def _same_input(found: dict[str, int | float] | None, last: dict[str, int | float]) -> bool:
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return found is not None and all(found.get(k) == last.get(k) for k in keys)


def _model_totals(session: Session) -> dict[str, dict[str, int | float]] | None:
    for result in reversed(session.results):  # running totals: the last one has them all
        if result.model_usage is not None:
            return result.model_usage
    return session.cost_state.model_usage if session.cost_state is not None else None


def _reconcile(
    session: Session,
    calls: list[Call],
    expected: dict[str, int | float],
    added: dict[str, int | float],
) -> None:
    for key, total in expected.items():
        missing = total - sum((c.usage or {}).get(key, 0) for c in calls)
        if missing <= 0:
            continue
        if not calls:
            calls = [_unattributed(session, None, "main")]
        if key == "output_tokens":
            targets = [c for c in calls if not c.final] or calls[-1:]
        else:
            targets = calls[-1:]
        _spread(targets, key, missing, "result.usage")
        added[key] = added.get(key, 0) + missing


def _reconcile_model(
    session: Session,
    model: str,
    of_model: list[Call],
    open_calls: list[Call],
    expected: dict[str, int | float],
    added: dict[str, int | float],
) -> None:
    for key, total in expected.items():
        missing = total - sum((c.usage or {}).get(key, 0) for c in of_model)
        if missing <= 0:
            continue
        snapshots = [c for c in open_calls if not c.final]
        if key == "output_tokens" and snapshots:
            _spread(snapshots, key, missing, "modelUsage")
        else:
            extra = _unattributed(session, model, model)
            if all(extra is not c for c in of_model):
                of_model.append(extra)
            _spread([extra], key, missing, "modelUsage")
        added[key] = added.get(key, 0) + missing


def _spread(targets: list[Call], key: str, missing: int | float, source: str) -> None:
    """Split `missing` over `targets` evenly, the rounding left on the last one."""
    share = missing // len(targets) if isinstance(missing, int) else missing / len(targets)
    for index, call in enumerate(targets):
        part = missing - share * (len(targets) - 1) if index == len(targets) - 1 else share
        usage = call.usage if call.usage is not None else {}
        if key == "output_tokens" and not call.final:
            call.attributes.setdefault(
                "claude.usage.output_tokens_at_start", usage.get("output_tokens", 0)
            )
        usage[key] = usage.get(key, 0) + part
        call.usage = usage
        call.attributes.setdefault("claude.usage.reconciled", source)


def _unattributed(session: Session, model: str | None, key: str) -> Call:
    """The LLM span standing for calls whose usage a total counts but no message shows."""
    call_key = f"u:{key}"
    call = session.calls.get(call_key)
    if call is None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "anthropic",
            "claude.usage.reconciled": "unattributed",
        }
        if model:
            attributes["gen_ai.response.model"] = model
        name = f"chat {model} (calls not in the input)" if model else "chat (no message)"
        call = Call(
            "LLM",
            span_id("unattributed", session.key, key),
            session.root.span_id,
            session.root.where,
            name,
            attributes,
            ctx=session.root.ctx,
            usage=dict.fromkeys(USAGE_KEYS, 0),  # what the totals leave over, zero included
            final=True,
        )
        session.calls[call_key] = call
    return call


def _write(call: Call, *, known: bool) -> None:
    usage = call.usage
    if usage is None:
        return
    for key in USAGE_KEYS:
        if key in usage and (known or key != "output_tokens"):
            call.attributes[f"gen_ai.usage.{key}"] = usage[key]
        else:
            call.attributes.pop(f"gen_ai.usage.{key}", None)
    if not known and "output_tokens" in usage:
        call.attributes["claude.usage.output_tokens_at_start"] = usage["output_tokens"]


def _notes(session: Session, ctx: ReadContext, added: dict[str, int | float], unknown: int) -> None:
    where = f"session {session.key or '(no id)'}"
    if added:
        what = ", ".join(f"{value} {key}" for key, value in sorted(added.items()))
        ctx.note(
            where,
            "assistant records hold start-of-message usage; Claude Code's own totals add "
            f"{what} to the LLM spans marked claude.usage.reconciled",
            session.trace_id,
        )
    if unknown:
        ctx.note(
            where,
            f"{unknown} LLM span(s) record only start-of-message usage and no result or "
            "cost-state total settles it: their output token counts are unknown",
            session.trace_id,
        )
