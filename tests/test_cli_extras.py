"""Extras that match the users: the base install runs every command but the serving ones, and
a serving command without the `serve` extra says which extra to install and exits 2."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main
from tracecheck.cli.extras import SERVE
from tracecheck.distribution import DISTRIBUTION, install_hint

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CLEAN = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")


def names(requirements: list[str]) -> set[str]:
    """Distribution names of requirement strings (`uvicorn>=0.30` -> `uvicorn`)."""
    return {re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0] for requirement in requirements}


def test_the_base_install_holds_no_server_client_or_sdk() -> None:
    base = names(PROJECT["dependencies"])
    assert base.isdisjoint({"uvicorn", "httpx", "starlette", "opentelemetry-sdk"})
    extras = PROJECT["optional-dependencies"]
    # zstandard and cramjam are installed with the extra but not required: without them the
    # proxy refuses zstd and Snappy bodies with 415, as any other coding it does not know.
    assert names(extras["serve"]) == {"uvicorn", "httpx", "zstandard", "cramjam"}
    assert set(SERVE) == {"uvicorn", "httpx"}
    assert names(extras["otel"]) == {"opentelemetry-sdk"}


def test_the_test_extra_brings_every_other_extra_the_suite_runs() -> None:
    assert PROJECT["name"] == DISTRIBUTION
    assert f"{DISTRIBUTION}[serve,otel,fleet,report]" in PROJECT["optional-dependencies"]["test"]
    assert names(PROJECT["optional-dependencies"]["fleet"]) == {"dask", "pyarrow", "fsspec"}
    assert names(PROJECT["optional-dependencies"]["report"]) == {"matplotlib"}


@pytest.mark.parametrize(
    ("argv", "hidden", "subject"),
    [
        (["proxy", "--upstream", "http://127.0.0.1:9"], "uvicorn", "the proxy"),
        (["proxy", "--upstream", "http://127.0.0.1:9"], "httpx", "the proxy"),
        (["ingest-server", "--db", "unused.db"], "uvicorn", "the ingest server"),
        (["ship", CLEAN, "--dry-run"], "httpx", "shipping"),
    ],
)
def test_a_command_whose_extra_is_missing_names_it(
    argv: list[str],
    hidden: str,
    subject: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, hidden, None)  # as if not installed
    assert main(argv) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"tracecheck: error: {subject} needs the serve extra: "
        f"pip install 'agent-tracecheck[serve]'\n"
    )


def test_the_install_hints_name_the_distribution() -> None:
    import tracecheck.testing.plugin as pytest_plugin

    assert install_hint("serve") == "pip install 'agent-tracecheck[serve]'"
    assert pytest_plugin.MISSING_SDK.endswith(install_hint("otel"))
    otel = (ROOT / "redact" / "otel.py").read_text(encoding="utf-8")
    assert f"needs the OpenTelemetry SDK: {install_hint('otel')}" in otel
