"""`redact --keep-verdicts`: a redacted copy is written only when every contract judges it as
it judges the trace as recorded."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck.check import check
from tracecheck.cli import Environment, main
from tracecheck.contract import compile_contract
from tracecheck.readers import read_traces

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
CLEAN = ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl"
LANGSMITH = ROOT / "fixtures" / "producers" / "langsmith-otel" / "langsmith-0.4"
KEY = {"TRACECHECK_PSEUDONYM_KEY": "a-pseudonym-key-of-the-tests-0123456789"}


def _redact(trace: Path, out: Path, *more: str) -> tuple[int, str]:
    err = io.StringIO()
    env = Environment(io.StringIO(), io.StringIO(), err, KEY)
    code = main(["redact", str(trace), "-o", str(out), *more], env=env)
    return code, err.getvalue()


def _judged(path: Path) -> list[tuple[Any, ...]]:
    contract = compile_contract(CONTRACT)
    return [
        (rule.label, rule.status, tuple(v.span_id for v in rule.violations))
        for trace in read_traces(path)
        for rule in check(trace, contract).rules
    ]


def test_a_copy_the_contracts_judge_alike_is_written(tmp_path: Path) -> None:
    out = tmp_path / "shared.otlp.jsonl"
    code, _ = _redact(CLEAN, out, "--profile", "share", "--keep-verdicts", CONTRACT)
    assert code == 0
    assert _judged(out) == _judged(CLEAN)


def test_a_copy_judged_otherwise_is_refused_naming_the_rules(tmp_path: Path) -> None:
    out = tmp_path / "strict.otlp.jsonl"
    # strict removes every tool's arguments: the rules that read them cannot pass after.
    code, said = _redact(CLEAN, out, "--profile", "strict", "--keep-verdicts", CONTRACT)
    assert code == 1 and not out.exists()
    lines = said.splitlines()
    assert lines[0].endswith("rule(s) judge the trace; nothing written")
    assert lines[0].startswith(f"tracecheck: error: {CLEAN}: redaction changes how 2 rule")
    assert len(lines) == 3
    assert (
        "  refund-desk / tools.arguments[1] issue_refund /amount type number on trace "
        "bdfc178765b50e0a8be66e350728be0e: pass before redaction, fail (1 violation) after"
    ) in lines
    # Without the option the same copy is written: keeping verdicts is asked for.
    assert _redact(CLEAN, out, "--profile", "strict")[0] == 0 and out.exists()


def test_arguments_recorded_as_bytes_are_lost_to_redaction_and_said_to_be(
    tmp_path: Path,
) -> None:
    """LangSmith 0.4 records tool arguments as bytes of JSON, which redaction removes whole
    (binary is never read as text, spec A1): the rules that read them cannot be kept."""
    out = tmp_path / "clean.otlp.jsonl"
    code, said = _redact(LANGSMITH / "clean.otlp.jsonl", out, "--keep-verdicts", CONTRACT)
    assert code == 1 and not out.exists()
    assert "refund-desk / tools.arguments[0] issue_refund /order_id type string" in said
    assert "pass before redaction, fail (1 violation) after" in said


def _fake_key() -> str:
    # Built here, not written down: a scanner reading this file finds no key.
    return "sk-" + "proj-" + "Zq8vX2mB7nL4kT9wR3cY6pH1dF5gJ0sA"


ARGUMENT = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["A-1001", "jane.doe@example.com", "4111 1111 1111 1111", "refund-A-1001"]),
    st.builds(_fake_key),
)


def _with_calls(calls: list[dict[str, Any]]) -> str:
    """The clean run, its one refund made with each of `calls`' arguments in turn."""
    out = []
    for line in CLEAN.read_text().splitlines():
        batch = json.loads(line)
        for resource in batch["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                spans = []
                for span in scope["spans"]:
                    if span["name"] != "execute_tool issue_refund":
                        spans.append(span)
                        continue
                    for number, arguments in enumerate(calls):
                        copy = json.loads(json.dumps(span))
                        copy["spanId"] = f"{int(span['spanId'], 16) + number:016x}"
                        for attribute in copy["attributes"]:
                            if attribute["key"] == "gen_ai.tool.call.arguments":
                                attribute["value"] = {"stringValue": json.dumps(arguments)}
                        spans.append(copy)
                scope["spans"] = spans
        out.append(json.dumps(batch))
    return "\n".join(out) + "\n"


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"order_id": ARGUMENT, "amount": ARGUMENT},
            optional={"idempotency_key": ARGUMENT},
        ),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from(["default", "share", "strict"]),
)
def test_keep_verdicts_never_writes_a_copy_judged_otherwise(
    tmp_path: Path, calls: list[dict[str, Any]], profile: str
) -> None:
    trace, out = tmp_path / "run.otlp.jsonl", tmp_path / "out.otlp.jsonl"
    trace.write_text(_with_calls(calls))
    out.unlink(missing_ok=True)
    code, _ = _redact(trace, out, "--profile", profile, "--keep-verdicts", CONTRACT)
    assert code in (0, 1)
    if code == 0:
        assert _judged(out) == _judged(trace)
    else:
        assert not out.exists()
