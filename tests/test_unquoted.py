"""A verdict, a note or the span tree quotes what the trace recorded (span, tool and model names)
but never a credential someone pasted into one; ordinary names, ids and model versions are
quoted as they are, without loading the redactor."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracecheck import check, compile_contract
from tracecheck.cli import main
from tracecheck.spans import Span, Trace
from tracecheck.unquoted import without_credentials

_RNG = random.Random(20261205)
TOKEN = "gh" + "p_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
# A key whose prefix a dash joins to its random part: cut at the dash, no part reads as a key.
DASHED = (
    "sk-" + "proj-" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(43))
)
PASSWORD_URL = (
    "postgres://app:"
    + "Hx9"
    + "".join(_RNG.choice(string.ascii_letters) for _ in range(8))
    + "@db:5432/x"
)

ORDINARY = [
    "execute_tool run_shell",
    "chat gpt-4o-2024-08-06",
    "chat claude-sonnet-4-5-20250929",
    "span 4f2a9b0c1d2e3f40 of trace 764ed4f7dac2f67c9059740638f8c6cf",
    "GET /orders/8f3a9b2c4d5e6f708192a3b4c5d6e7f8",
    "invoke_agent refund_desk_supervisor_agent",
    "https://api.example.com/v1/chat/completions",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_names_are_quoted_as_they_are(text: str) -> None:
    assert without_credentials(text) == text


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        (f"execute_tool {TOKEN}", "[REDACTED:github-token]"),
        (f"connect {PASSWORD_URL}", "[REDACTED:url-credentials]"),
        (f"execute_tool {DASHED}", "[REDACTED:provider-key]"),
    ],
)
def test_a_credential_in_a_name_is_its_marker(text: str, marker: str) -> None:
    shown = without_credentials(text)
    assert marker in shown
    assert TOKEN not in shown and "Hx9" not in shown and DASHED[8:] not in shown
    assert shown.split()[0] == text.split()[0]


@given(st.text(alphabet=string.ascii_letters + " ._-:/", max_size=60))
def test_text_without_digits_is_never_changed(text: str) -> None:
    assert without_credentials(text) == text


def _trace(name: str, tool: str) -> Trace:
    span = Span(
        "a" * 32,
        "b" * 16,
        name=name,
        start_ns=1,
        end_ns=2,
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool},
    )
    return Trace("a" * 32, [span])


def test_a_verdict_quotes_no_credential_from_a_span_or_tool_name() -> None:
    contract = compile_contract({"name": "c", "tools": {"forbidden": ["run_shell"]}})
    verdict = check(_trace(f"execute_tool run_shell {TOKEN}", "run_shell"), contract)
    assert verdict.status == "fail"
    assert TOKEN not in repr(verdict)
    assert "[REDACTED:github-token]" in verdict.rules[0].violations[0].detail

    allowed = compile_contract({"name": "c", "tools": {"allowed": ["search"]}})
    verdict = check(_trace("execute_tool", f"run_{TOKEN}"), allowed)
    assert verdict.status == "fail"
    assert TOKEN not in repr(verdict)


def test_check_and_show_print_no_credential_from_a_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spans = [
        {
            "traceId": "5982fe77008310cc80f1da5e10147517",
            "spanId": "bd7a977555f6b982",
            "name": f"execute_tool run_shell {TOKEN}",
            "kind": 1,
            "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000001000000000",
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "run_shell"}},
            ],
        }
    ]
    trace = tmp_path / "run.otlp.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    contract = tmp_path / "c.json"
    contract.write_text(json.dumps({"name": "c", "tools": {"forbidden": ["run_shell"]}}))
    for argv in (
        ["check", str(trace), "--contract", str(contract)],
        ["check", str(trace), "--contract", str(contract), "--json", "-"],
        ["check", str(trace), "--contract", str(contract), "--junit", str(tmp_path / "j.xml")],
        ["show", str(trace)],
        ["show", str(trace), "--json"],
    ):
        main(argv)
        out, err = capsys.readouterr()
        assert TOKEN not in out + err, argv
    assert TOKEN not in (tmp_path / "j.xml").read_text()


def test_an_ordinary_check_does_not_load_the_redactor() -> None:
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "otel-genai"
    code = (
        "import sys\nfrom tracecheck.cli import main\n"
        f"main(['check', {str(fixtures / 'forbidden.otlp.jsonl')!r}, '--contract', "
        f"{str(Path(__file__).resolve().parent.parent / 'contracts' / 'refund-desk.json')!r}, '-q'])\n"
        "print('redact' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "False"
