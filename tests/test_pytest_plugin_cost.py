"""An unused plugin costs its hooks and nothing more: a pytest run whose tests never use the
fixture or the marker imports none of tracecheck's checker, readers or redaction, nor the
OpenTelemetry SDK (what that saves is measured by bench/plugin_startup.py)."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

# Written at the end of the session: the modules the run imported, of the packages that matter.
CONFTEST = """
import json
import sys


def pytest_sessionfinish(session):
    loaded = sorted(
        name for name in sys.modules
        if name.split(".")[0] in ("tracecheck", "redact", "opentelemetry", "orjson", "re2")
    )
    with open("modules.json", "w") as out:
        json.dump(loaded, out)
"""


def _modules(pytester: pytest.Pytester, test: str, *options: str) -> list[str]:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", *options).assert_outcomes(passed=1)
    loaded: list[str] = json.loads((pytester.path / "modules.json").read_text())
    return loaded


def test_a_run_that_never_uses_the_plugin_imports_only_the_plugin(
    pytester: pytest.Pytester,
) -> None:
    plain = "def test_plain():\n    assert 1 + 1 == 2\n"
    loaded = _modules(pytester, plain)
    # Other installed plugins (langsmith's, say) may import OpenTelemetry themselves: what
    # counts is what loading tracecheck's plugin adds to a run without it.
    without = _modules(pytester, plain, "-p", "no:tracecheck")
    assert sorted(set(loaded) - set(without)) == [
        "tracecheck",
        "tracecheck.lazy",
        "tracecheck.testing",
        "tracecheck.testing.plugin",
    ]


def test_a_run_that_uses_the_fixture_imports_what_it_needs(pytester: pytest.Pytester) -> None:
    pytest.importorskip("opentelemetry.sdk")
    loaded = _modules(
        pytester,
        "def test_capture(trace_spans):\n"
        "    with trace_spans.tracer('t').start_as_current_span('work'):\n"
        "        pass\n"
        "    assert [s.name for s in trace_spans.spans()] == ['work']\n",
    )
    assert {"tracecheck.testing.capture", "tracecheck.readers", "opentelemetry.sdk.trace"} <= set(
        loaded
    )
    assert "redact" not in loaded  # evidence was not asked for
