"""Doubt about capture is precise: every trace recorded in `fixtures/` is read, and exactly the
traces below carry a reason to doubt that their tool or model calls were all recognised, for
exactly the reason given. A clean run of a supported producer carries none, so no rule of it is
could not be evaluated for want of capture."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

from tracecheck import read_traces
from tracecheck.readers.duplicates import merge_duplicate_calls
from tracecheck.reading import read_subject
from tracecheck.rules.subject import Subject
from tracecheck.spans import Trace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# What fixtures/ holds beside traces: generators, notes, contracts, the redaction corpus, npm
# manifests, Claude Code's sub-agent metadata, MCP tools/list answers.
NOT_TRACES = (".py", ".md", ".txt", ".mjs", ".pyc", ".contract.json", ".meta.json")
NOT_TRACE_NAMES = frozenset({"package.json", "package-lock.json"})
NOT_TRACE_FOLDERS = frozenset({"redaction", "__pycache__", "node_modules", "mcp"})

# The reason of a doubt, by the words its note opens with.
REASONS = {
    "like a tool or model call that no convention maps": "unmapped",
    "not record which tool ran": "no tool name",
    "no span has a name or a time": "misread",
    "recorded but no model call": "no model call",
    "but the trace records no tool call": "no tool call",
    "stands for several model calls": "loop",
}

NO_MODEL_CALL = (None, "no model call")
LOOP = (None, "loop")
# (doubt about tools, doubt about models) of the doubtful traces of the files each pattern
# matches (relative to fixtures/).
EXPECTED: dict[str, tuple[str | None, str | None]] = {
    # The producer records tool calls and no model call at all: AutoGen's own tracing,
    # CrewAI's OpenInference wrappers, ADK under OpenInference (each model call is written over
    # the agent span), Mastra's deprecated telemetry (only a run's first model call).
    "producers/autogen/assistant/*": NO_MODEL_CALL,
    "producers/autogen/team/*": NO_MODEL_CALL,
    "producers/crewai/wrappers/*": NO_MODEL_CALL,
    "producers/google-adk/openinference/*": NO_MODEL_CALL,
    "producers/mastra/core-0.24.9/telemetry-*": NO_MODEL_CALL,
    # A trace of its own holding one tool call: the MCP server's spans of the Claude Agent
    # SDK's calls (no context crossed), BeeAI 0.1.9's second export of each call.
    "producers/logfire-claude-agent-sdk/*": NO_MODEL_CALL,
    "producers/beeai-openinference/instrumentation-0.1.9/tool-calling/*": NO_MODEL_CALL,
    # OpenLLMetry's CrewAI instrumentation records model calls only.
    "producers/crewai/openllmetry/*": ("no tool call", None),
    # One model call span stands for a loop of calls: google-genai's automatic function
    # calling, LiteLLM writing each call over the span already open.
    "producers/google-genai/content/*": LOOP,
    "producers/google-genai/no-content/*": LOOP,
    "producers/google-genai/instrumentation-0.7b2/content/*": LOOP,
    "producers/google-genai/instrumentation-0.7b2/no-content/*": LOOP,
    "producers/litellm-otel/default/*": LOOP,
}


def trace_files() -> list[Path]:
    return sorted(
        path
        for path in FIXTURES.rglob("*")
        if path.is_file()
        and not path.name.startswith(".")
        and not path.name.endswith(NOT_TRACES)
        and path.name not in NOT_TRACE_NAMES
        and not NOT_TRACE_FOLDERS.intersection(path.relative_to(FIXTURES).parts)
    )


def reason(note: str | None) -> str | None:
    if note is None:
        return None
    found = [name for words, name in REASONS.items() if words in note]
    assert len(found) == 1, note
    return found[0]


def doubt(trace: Trace) -> tuple[str | None, str | None]:
    merged = merge_duplicate_calls(trace.spans)
    reading = read_subject(Subject(merged.spans), merged.merges)
    return reason(reading.tools_in_doubt), reason(reading.models_in_doubt)


FILES = trace_files()


def test_the_fixtures_are_found() -> None:
    # Every producer folder, the top-level recordings and Claude Code's: hundreds of files.
    assert len(FILES) > 500
    assert {path.relative_to(FIXTURES).parts[0] for path in FILES} >= {
        "otel-genai",
        "openinference",
        "claude",
        "producers",
        "zipkin",
        "jaeger",
        "otel-js",
        "frameworks",
        "langfuse-export",
    }


def expected(path: Path) -> set[tuple[str | None, str | None]]:
    name = str(path.relative_to(FIXTURES))
    return {signature for pattern, signature in EXPECTED.items() if fnmatch(name, pattern)}


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(FIXTURES)))
def test_exactly_the_expected_traces_carry_doubt_and_why(path: Path) -> None:
    found = {
        signature for trace in read_traces(path) if (signature := doubt(trace)) != (None, None)
    }
    assert found == expected(path)


def test_every_pattern_matches_fixtures() -> None:
    names = [str(path.relative_to(FIXTURES)) for path in FILES]
    assert [p for p in EXPECTED if not any(fnmatch(name, p) for name in names)] == []
