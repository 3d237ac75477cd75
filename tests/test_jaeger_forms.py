"""Jaeger's other real forms: Go-style durations in model JSON, typed tags written as strings."""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracecheck import check, compile_contract, read_traces
from tracecheck.errors import TraceReadError
from tracecheck.readers import detect_format
from tracecheck.readers.jaeger_values import go_bool, go_duration, go_float, go_int
from tracecheck.spans import Span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
JAEGER = FIXTURES / "jaeger"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "53995c3f42cd8ad8"
CONTRACT = {
    "name": "refund-desk",
    "tools": {"required": ["lookup_order"], "forbidden": ["run_shell"]},
}


def b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def facts(span: Span) -> tuple[Any, ...]:
    return (
        span.span_id,
        span.parent_span_id,
        span.name,
        span.kind,
        span.tool_name,
        span.model,
        span.tokens.total,
        span.arguments.value,
        span.status,
        span.start_ns,
        span.end_ns,
        dict(span.attributes),
    )


def verdicts(path: Path) -> list[tuple[str, str]]:
    (trace,) = read_traces(path)
    verdict = check(trace, compile_contract(CONTRACT))
    return [(rule.label, rule.status) for rule in verdict.rules]


# --- the fixtures, written from the recorded runs ----------------------------------------------


@pytest.mark.parametrize("run", ["clean", "forbidden"])
def test_model_json_with_nanosecond_durations_reads_as_the_chunks_it_was_written_from(
    run: str,
) -> None:
    path = JAEGER / f"{run}.jaeger-model-ns.json"
    assert '"duration": "' in path.read_text() and 'ns"' in path.read_text()
    assert detect_format(path) == "jaeger-model"
    (trace,) = read_traces(path)
    (original,) = read_traces(JAEGER / f"{run}.jaeger-model.json")
    assert not trace.notes
    assert [facts(s) for s in trace.spans] == [facts(s) for s in original.spans]


@pytest.mark.parametrize("run", ["forbidden"])
def test_a_download_with_string_typed_tags_reads_as_the_download_it_was_written_from(
    run: str,
) -> None:
    path = JAEGER / f"{run}.jaeger-string-tags.json"
    assert detect_format(path) == "jaeger"
    (trace,) = read_traces(path)
    (original,) = read_traces(JAEGER / f"{run}.jaeger.json")
    assert [facts(s) for s in trace.spans] == [facts(s) for s in original.spans]
    chat = next(s for s in trace.spans if s.kind == "LLM")
    assert isinstance(chat.attributes["gen_ai.usage.input_tokens"], int)


def test_a_string_bool_error_tag_marks_the_failed_tool_call() -> None:
    (trace,) = read_traces(JAEGER / "timeout.jaeger-string-tags.json")
    (failed,) = [s for s in trace.spans if s.status == "error"]
    assert (failed.kind, failed.tool_name, failed.attributes["error"]) == (
        "TOOL",
        "slow_lookup",
        True,
    )
    (recorded,) = read_traces(FIXTURES / "otel-genai" / "timeout.otlp.jsonl")
    assert [(s.span_id, s.kind, s.tool_name, s.status) for s in trace.spans] == [
        (s.span_id, s.kind, s.tool_name, s.status) for s in recorded.spans
    ]


def test_the_new_forms_get_the_verdicts_of_their_runs() -> None:
    forbidden = verdicts(FIXTURES / "otel-genai" / "forbidden.otlp.jsonl")
    assert ("tools.forbidden", "fail") in [(label.split("[")[0], s) for label, s in forbidden]
    assert verdicts(JAEGER / "forbidden.jaeger-string-tags.json") == forbidden
    assert verdicts(JAEGER / "forbidden.jaeger-model-ns.json") == forbidden
    clean = verdicts(FIXTURES / "otel-genai" / "clean.otlp.jsonl")
    assert {status for _, status in clean} == {"pass"}
    assert verdicts(JAEGER / "clean.jaeger-model-ns.json") == clean


# --- Jaeger's own fixtures' shapes ---------------------------------------------------------------


def model_span(**fields: Any) -> dict[str, Any]:
    span = {
        "traceId": b64(TRACE),
        "spanId": b64(SPAN),
        "operationName": "get",
        "startTime": "2017-01-26T16:46:31.639875-05:00",
        "duration": "22938000ns",
        "process": {"serviceName": "api"},
    }
    span.update(fields)
    return span


@pytest.mark.parametrize(
    ("duration", "nanos"),
    [
        ("22938000ns", 22_938_000),
        ("0.022938s", 22_938_000),
        ("22.938ms", 22_938_000),
        ("22938us", 22_938_000),
        ("22938\u00b5s", 22_938_000),
        ("22938\u03bcs", 22_938_000),
        ("1m30.5s", 90_500_000_000),
        ("1h", 3_600_000_000_000),
        ("0", 0),
        ("+5ns", 5),
        ("1.s", 1_000_000_000),
        (".5s", 500_000_000),
    ],
)
def test_model_durations_read_as_go_parses_them(duration: str, nanos: int) -> None:
    (trace,) = read_traces(json.dumps({"spans": [model_span(duration=duration)]}).encode())
    (span,) = trace.spans
    assert span.start_ns == 1_485_467_191_639_875_000
    assert span.end_ns is not None and span.end_ns - span.start_ns == nanos


@pytest.mark.parametrize("duration", ["22938000", "5 ns", "1d", ".s", "s", "", "1e3s", "NaNs"])
def test_a_duration_go_does_not_parse_is_refused_at_its_place(duration: str) -> None:
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps({"spans": [model_span(duration=duration)]}).encode())
    assert str(info.value) == (
        f"<bytes>: spans[0].duration: a string of {len(duration)} character(s) is not a "
        'Duration such as "0.0015s" or "1500000ns"'
    )


def test_a_negative_duration_is_refused() -> None:
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps({"spans": [model_span(duration="-5ns")]}).encode())
    assert str(info.value) == "<bytes>: spans[0].duration: a string of 4 character(s) is negative"


def ui_span(*tags: dict[str, Any]) -> dict[str, Any]:
    return {
        "traceID": TRACE,
        "spanID": SPAN,
        "operationName": "op2",
        "references": [],
        "startTime": 1542666453104000,
        "duration": 33000,
        "tags": list(tags),
        "logs": [],
        "processID": "p1",
        "warnings": None,
    }


def download(span: dict[str, Any], **process: Any) -> bytes:
    processes = {"p1": {"serviceName": "svc", "tags": [], **process}}
    document = {"data": [{"traceID": TRACE, "spans": [span], "processes": processes}]}
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("bool", "true", True),
        ("bool", "false", False),
        ("bool", "True", True),
        ("bool", "FALSE", False),
        ("bool", "1", True),
        ("bool", "f", False),
        ("int64", "23456", 23456),
        ("int64", "-7", -7),
        ("int64", "+7", 7),
        ("int64", "9223372036854775222", 9223372036854775222),
        ("float64", "72.5", 72.5),
        ("float64", "1e-05", 1e-05),
        ("float64", "0x1p-2", 0.25),
        ("float64", "-Inf", -math.inf),
    ],
)
def test_typed_tag_values_written_as_strings_read_as_their_type(
    kind: str, text: str, value: Any
) -> None:
    tag = {"key": "k", "type": kind, "value": text}
    (trace,) = read_traces(download(ui_span(tag)))
    read = trace.spans[0].attributes["k"]
    assert read == value and type(read) is type(value)


def test_a_string_error_tag_is_the_span_status() -> None:
    error = {"key": "error", "type": "bool", "value": "true"}
    (trace,) = read_traces(download(ui_span(error)))
    assert trace.spans[0].status == "error"
    quiet = {"key": "error", "type": "bool", "value": "false"}
    (trace,) = read_traces(download(ui_span(quiet)))
    assert trace.spans[0].status is None


@pytest.mark.parametrize(
    ("kind", "text", "reason"),
    [
        ("bool", "yes", "a string of 3 character(s) is not true or false"),
        ("bool", "", "a string of 0 character(s) is not true or false"),
        ("int64", "12.5", "a string of 4 character(s) is not a whole number"),
        (
            "int64",
            "9223372036854775808",
            "a string of 19 character(s) is outside the range of a 64-bit integer",
        ),
        ("float64", "1,5", "a string of 3 character(s) is not a number"),
        ("float64", "1e999", "a string of 5 character(s) is outside the range of a 64-bit float"),
    ],
)
def test_a_malformed_string_value_names_file_span_and_key_never_the_value(
    kind: str, text: str, reason: str
) -> None:
    tag = {"key": "payment.approved", "type": kind, "value": text}
    with pytest.raises(TraceReadError) as info:
        read_traces(download(ui_span({"key": "a", "type": "string", "value": "x"}, tag)))
    message = str(info.value)
    assert message == (
        f'<bytes>: data[0].spans[0].tags[1].value: span {SPAN}, tag "payment.approved": {reason}'
    )


def test_process_and_log_field_values_name_where_they_are() -> None:
    bad = {"key": "sampled", "type": "bool", "value": "maybe"}
    with pytest.raises(TraceReadError) as info:
        read_traces(download(ui_span(), tags=[bad]))
    assert str(info.value) == (
        f"<bytes>: data[0].spans[0].process.tags[0].value: span {SPAN}, process tag "
        '"sampled": a string of 5 character(s) is not true or false'
    )
    span = ui_span()
    span["logs"] = [{"timestamp": 1542666453104000, "fields": [bad]}]
    with pytest.raises(TraceReadError) as info:
        read_traces(download(span))
    assert str(info.value) == (
        f"<bytes>: data[0].spans[0].logs[0].fields[0].value: span {SPAN}, log field "
        '"sampled": a string of 5 character(s) is not true or false'
    )


def test_model_tags_name_the_span_and_key_and_read_doubles_written_as_strings() -> None:
    tags = [{"key": "temperature", "vType": "FLOAT64", "vFloat64": "72.5"}]
    (trace,) = read_traces(json.dumps({"spans": [model_span(tags=tags)]}).encode())
    assert trace.spans[0].attributes["temperature"] == 72.5
    tags = [{"key": "error", "vType": "BOOL", "vBool": "sometimes"}]
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps({"spans": [model_span(tags=tags)]}).encode())
    assert str(info.value) == (
        f'<bytes>: spans[0].tags[0].vBool: span {SPAN}, tag "error": '
        "a string of 9 character(s) is not a value of type BOOL"
    )


# --- properties -------------------------------------------------------------------------------

UNITS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "ms": 10**6, "s": 10**9}
NANOS = st.integers(min_value=0, max_value=2**63 - 1)


def protobuf_form(nanos: int) -> str:
    """How protobuf JSON writes a Duration: seconds, 0, 3, 6 or 9 decimals, `s`."""
    seconds, rest = divmod(nanos, 10**9)
    fraction = f"{rest:09d}"
    while fraction.endswith("000"):
        fraction = fraction[:-3]
    return f"{seconds}.{fraction}s" if fraction else f"{seconds}s"


def go_form(nanos: int) -> str:
    """How Go's `Duration.String` writes one: `1h2m3.5s`, `22.938ms`, `5µs`, `0s`."""
    if nanos < 10**3:
        return f"{nanos}ns"
    if nanos < 10**6:
        return decimal(nanos, 10**3) + "\u00b5s"
    if nanos < 10**9:
        return decimal(nanos, 10**6) + "ms"
    hours, rest = divmod(nanos, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    text = decimal(rest, 10**9) + "s"
    if hours:
        return f"{hours}h{minutes}m{text}"
    return f"{minutes}m{text}" if minutes else text


def decimal(nanos: int, unit: int) -> str:
    whole, rest = divmod(nanos, unit)
    digits = len(str(unit)) - 1
    fraction = f"{rest:0{digits}d}".rstrip("0") if digits else ""
    return f"{whole}.{fraction}" if fraction else str(whole)


@given(NANOS)
def test_protobuf_and_go_duration_forms_give_back_their_nanoseconds(nanos: int) -> None:
    assert go_duration(protobuf_form(nanos)) == nanos
    assert go_duration(go_form(nanos)) == nanos
    assert go_duration(f"{nanos}ns") == nanos


@given(st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(sorted(UNITS))), min_size=1))
def test_components_add_up(parts: list[tuple[int, str]]) -> None:
    text = "".join(f"{count}{unit}" for count, unit in parts)
    assert go_duration(text) == sum(count * UNITS[unit] for count, unit in parts)


@given(NANOS.filter(lambda n: n > 0))
def test_a_duration_read_from_a_span_is_its_end_minus_its_start(nanos: int) -> None:
    document = {"spans": [model_span(duration=protobuf_form(nanos))]}
    (trace,) = read_traces(json.dumps(document).encode())
    (span,) = trace.spans
    assert span.start_ns is not None and span.end_ns == span.start_ns + nanos


@given(st.text(max_size=12))
def test_any_text_is_a_duration_or_a_value_error(text: str) -> None:
    try:
        nanos = go_duration(text)
    except ValueError as exc:
        assert str(exc).startswith(f"a string of {len(text)} character(s) ")
    else:
        assert isinstance(nanos, int)


@given(st.text(max_size=12))
def test_any_text_is_a_go_value_or_a_value_error(text: str) -> None:
    for parse in (go_bool, go_int, go_float):
        try:
            parse(text)
        except ValueError as exc:
            assert str(exc).startswith(f"a string of {len(text)} character(s) ")


@given(st.booleans(), st.integers(-(2**63), 2**63 - 1))
def test_formatted_values_read_back(flag: bool, number: int) -> None:
    assert go_bool(str(flag).lower()) is flag
    assert go_int(str(number)) == number
    assert go_float(repr(float(number))) == float(number)
