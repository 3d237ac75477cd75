"""Agent frameworks whose spans follow a shared convention with a twist of their own."""

from __future__ import annotations

from tracecheck.conventions.model import Convention, KindRule, ScopeMatch, fields

__all__ = ["SMOLAGENTS", "STRANDS"]

SMOLAGENTS = Convention(
    name="smolagents",
    title="smolagents under OpenInference",
    versions="openinference-instrumentation-smolagents 0.1.x",
    scopes=(ScopeMatch("openinference.instrumentation.smolagents"),),
    arguments_as_call=True,
    notes='A tool\'s `input.value` is the call `{"args": [], "sanitize_inputs_outputs": …, '
    '"kwargs": {…}}`: the keyword arguments are read.',
)

STRANDS = Convention(
    name="strands",
    title="Strands Agents' own tracer",
    versions="strands-agents 1.x",
    scopes=(ScopeMatch("strands.telemetry.tracer"),),
    kinds=(
        KindRule(
            attribute="gen_ai.operation.name",
            values={"execute_event_loop_cycle": "CHAIN", "execute_node": "CHAIN"},
        ),
    ),
    offered=fields("gen_ai.agent.tools"),
    notes="The agent span lists its tools in `gen_ai.agent.tools`; model spans record only the "
    "request model. Input counts are the model provider's own.",
)
