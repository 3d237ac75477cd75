"""The framework guides in examples/ run as they are written.

Each guide is a pytest project of its own, run here in a subprocess with its folder as the
rootdir, against the scripted fake model of `examples/fake_model.py`: its passing test passes,
and its deliberately failing test fails on the one rule it breaks, in the contract's words. The
frameworks come with the `examples` extra; a guide whose framework is not installed is skipped.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
INSTALL = "pip install -e '.[examples]'"


@dataclass(frozen=True)
class Guide:
    directory: str
    modules: tuple[str, ...]  # what its code imports


GUIDES = (
    Guide("openai-agents", ("agents", "openinference.instrumentation.openai_agents")),
    Guide(
        "langgraph-langchain",
        ("langgraph", "langchain_openai", "openinference.instrumentation.langchain"),
    ),
    Guide("pydantic-ai", ("pydantic_ai",)),
    Guide("openllmetry-openai", ("openai", "opentelemetry.instrumentation.openai")),
    Guide("smolagents-openinference", ("smolagents", "openinference.instrumentation.smolagents")),
    Guide("strands-agents", ("strands", "strands.models.openai")),
)


def _missing(modules: tuple[str, ...]) -> str | None:
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:  # a parent package is missing
            found = False
        if not found:
            return module
    return None


def _run(directory: Path) -> subprocess.CompletedProcess[str]:
    # The guide's own pytest settings only: none of this session's, no model or exporter setup.
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PYTEST_", "OPENAI_", "OTEL_", "LANGSMITH_", "LANGCHAIN_"))
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(directory), "-p", "no:cacheprovider", "-q"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_every_guide_is_run_here() -> None:
    folders = {p.parent.name for p in EXAMPLES.glob("*/test_agent.py")}
    assert folders == {guide.directory for guide in GUIDES}


@pytest.mark.parametrize("guide", GUIDES, ids=[guide.directory for guide in GUIDES])
def test_a_guide_passes_and_fails_where_it_should(guide: Guide) -> None:
    missing = _missing(guide.modules)
    if missing is not None:
        pytest.skip(f"examples/{guide.directory}: module {missing} is not installed; {INSTALL}")
    result = _run(EXAMPLES / guide.directory)
    output = result.stdout + result.stderr
    where = f"pytest examples/{guide.directory} said:\n{output}"

    assert result.returncode == 1, where
    assert re.search(r"^1 failed, 1 passed in ", result.stdout, re.MULTILINE), where
    assert "FAILED test_agent.py::test_payment_log_opens_a_shell" in result.stdout, where
    assert 'trace contract "refund-desk" failed: 1 of 4 rules' in result.stdout, where
    assert "  - tools.forbidden[run_shell]: run_shell was called (span " in result.stdout, where
    assert "no spans were captured" not in output, where
    assert "Processor is already shutdown" not in output, where
