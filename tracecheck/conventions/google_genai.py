"""OpenTelemetry contrib's Google GenAI SDK instrumentation
(scope `opentelemetry.instrumentation.google_genai`).

Its `execute_tool <tool>` spans around the SDK's automatic function calling record the
arguments one attribute per parameter: `code.function.parameters.<name>.type` always and
`.value` with content capture on (0.2b0–0.7b2, and the contrib repository's HEAD). The 1.x line
(1.0b1–1.2b0) writes the same keys as one JSON object into `gen_ai.tool.call.arguments`, and 1.3b0
the plain arguments object there.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, ScopeMatch, fields

__all__ = ["GOOGLE_GENAI"]

GOOGLE_GENAI = Convention(
    name="google-genai",
    title="OpenTelemetry Google GenAI SDK instrumentation (contrib)",
    versions="opentelemetry-instrumentation-google-genai 0.2b0–1.3b0 (recorded: 0.7b2, 1.3b0)",
    scopes=(ScopeMatch("opentelemetry.instrumentation.google_genai"),),
    arguments_by_parameter="code.function.parameters.{}.value",
    result=fields("code.function.return.value"),
    notes="A tool's arguments are assembled from `code.function.parameters.<name>.value` "
    "(objects and lists as JSON text, strings as they are: the `.type` sibling tells which); "
    "`.type` without `.value` means content capture was off (arguments not captured). In "
    "1.0b1–1.2b0 the same keys are the members of `gen_ai.tool.call.arguments`. The SDK's "
    "automatic function calling is one `generate_content` span holding the last call's counts.",
)
