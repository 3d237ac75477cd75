"""Every convention, in the order they claim spans: producers first, shared families last."""

from __future__ import annotations

from tracecheck.conventions.agent_framework import AGENT_FRAMEWORK
from tracecheck.conventions.dspy import DSPY
from tracecheck.conventions.families import GENERIC, OPENINFERENCE, OTEL_GENAI
from tracecheck.conventions.frameworks import (
    AGNO,
    BEEAI,
    LLAMA_INDEX,
    PYDANTIC_AI,
    SMOLAGENTS,
    STRANDS,
)
from tracecheck.conventions.google_adk import GOOGLE_ADK
from tracecheck.conventions.google_genai import GOOGLE_GENAI
from tracecheck.conventions.langfuse import LANGFUSE, LANGFUSE_BEFORE_3_5
from tracecheck.conventions.langfuse_export import LANGFUSE_EXPORT, LANGFUSE_EXPORT_UNTYPED
from tracecheck.conventions.langsmith import LANGSMITH
from tracecheck.conventions.litellm import LITELLM
from tracecheck.conventions.logfire import (
    LOGFIRE_CLAUDE_AGENT_SDK,
    LOGFIRE_LLM_CLIENTS,
    LOGFIRE_LLM_CLIENTS_BEFORE_4_31,
    LOGFIRE_OPENAI_AGENTS,
    LOGFIRE_OPENAI_AGENTS_UNSCOPED,
    LOGFIRE_OPENAI_AGENTS_UNSCOPED_TOOLS,
)
from tracecheck.conventions.mastra import MASTRA, MASTRA_TELEMETRY
from tracecheck.conventions.mlflow import MLFLOW
from tracecheck.conventions.model import Convention
from tracecheck.conventions.openai_agents_v2 import OTEL_OPENAI_AGENTS
from tracecheck.conventions.openinference_providers import OPENINFERENCE_BEDROCK
from tracecheck.conventions.openllmetry import (
    OPENLLMETRY,
    OPENLLMETRY_BEDROCK,
    OPENLLMETRY_LANGCHAIN,
    OPENLLMETRY_LLAMAINDEX,
    TRACELOOP_DECORATORS,
)
from tracecheck.conventions.select import Selector
from tracecheck.conventions.vercel_ai import VERCEL_AI

__all__ = ["CONVENTIONS", "GENERIC", "select"]

CONVENTIONS: tuple[Convention, ...] = (
    # A format's own mark, set only by its reader (Langfuse's exports): first of all.
    LANGFUSE_EXPORT_UNTYPED,
    LANGFUSE_EXPORT,
    # Chosen by instrumentation scope (and version): the most specific evidence.
    OPENLLMETRY,
    OPENLLMETRY_BEDROCK,
    OPENLLMETRY_LANGCHAIN,
    OPENLLMETRY_LLAMAINDEX,
    TRACELOOP_DECORATORS,
    LOGFIRE_OPENAI_AGENTS,
    LOGFIRE_CLAUDE_AGENT_SDK,
    LOGFIRE_LLM_CLIENTS_BEFORE_4_31,
    LOGFIRE_LLM_CLIENTS,
    OTEL_OPENAI_AGENTS,  # after traceloop-sdk, which claims Traceloop's spans of one scope name
    SMOLAGENTS,
    BEEAI,
    DSPY,
    LLAMA_INDEX,
    AGNO,
    OPENINFERENCE_BEDROCK,
    PYDANTIC_AI,
    STRANDS,
    LITELLM,
    GOOGLE_ADK,
    GOOGLE_GENAI,
    MASTRA,
    LANGFUSE_BEFORE_3_5,
    AGENT_FRAMEWORK,
    # Chosen by their own attribute namespaces (and scope where they have one).
    # Logfire's template-named spans that no scope above claimed.
    LOGFIRE_OPENAI_AGENTS_UNSCOPED_TOOLS,
    LOGFIRE_OPENAI_AGENTS_UNSCOPED,
    VERCEL_AI,
    MLFLOW,
    LANGSMITH,
    LANGFUSE,
    MASTRA_TELEMETRY,
    # The shared families last: many producers write their attributes beside their own.
    OTEL_GENAI,
    OPENINFERENCE,
)

select = Selector(CONVENTIONS, GENERIC)
