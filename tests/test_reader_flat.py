"""The `spans` format: flat span rows from the hosted ingest, other tools, and eval stores."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tracecheck import (
    Kind,
    ReadNote,
    Span,
    TraceReadError,
    detect_format,
    read_traces,
)

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
OTHER_TRACE = "0af7651916cd43dd8448eb211c80319c"
ROOT = "00f067aa0ba902b7"
CHILD = "53995c3f42cd8ad8"
START = 1_714_564_800_123_456_789  # 2024-05-01T12:00:00.123456789Z
END = START + 2_500_000_000


def write(tmp_path: Path, content: Any, name: str = "spans.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def spans_of(tmp_path: Path, content: Any, name: str = "spans.json") -> list[Span]:
    traces = read_traces(write(tmp_path, content, name))
    return [span for trace in traces for span in trace.spans]


def one(tmp_path: Path, row: dict[str, Any]) -> Span:
    (span,) = spans_of(tmp_path, [row])
    return span


def read_error(tmp_path: Path, content: Any, name: str = "spans.json") -> tuple[Path, str]:
    path = write(tmp_path, content, name)
    with pytest.raises(TraceReadError) as info:
        read_traces(path, format="spans")
    return path, str(info.value)


def iso(ns: int, offset_hours: int = 0) -> str:
    """ISO-8601 text with all nine fractional digits, in the given UTC offset."""
    zone = UTC if offset_hours == 0 else timezone(timedelta(hours=offset_hours))
    moment = datetime.fromtimestamp(ns // 1_000_000_000, zone)
    suffix = "Z" if offset_hours == 0 else moment.strftime("%z")[:3] + ":00"
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns % 1_000_000_000:09d}" + suffix


# --- the hosted-ingest TraceSpanEvent -------------------------------------------------------


def trace_span_event(**fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "traceId": TRACE,
        "spanId": CHILD,
        "parentSpanId": ROOT,
        "name": "execute_tool lookup_order",
        "startTimeUnixNano": str(START),
        "endTimeUnixNano": str(END),
        "attributes": {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup_order",
            "gen_ai.tool.call.arguments": '{"order": 7}',
            "retry": 2,
            "cached": False,
        },
        "events": [
            {"timeUnixNano": str(START + 10), "name": "exception", "attributes": {"k": "v"}},
            {"timeUnixNano": str(START + 20), "name": "done"},
        ],
        "status": {"code": "ERROR", "message": "order not found"},
    }
    event.update(fields)
    return event


def test_trace_span_event_array(tmp_path: Path) -> None:
    span = one(tmp_path, trace_span_event())
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE, CHILD, ROOT)
    assert span.name == "execute_tool lookup_order"
    assert (span.start_ns, span.end_ns) == (START, END)
    assert dict(span.attributes) == trace_span_event()["attributes"]
    assert (span.status, span.status_message) == ("error", "order not found")
    assert [(e.name, e.time_ns, dict(e.attributes)) for e in span.events] == [
        ("exception", START + 10, {"k": "v"}),
        ("done", START + 20, {}),
    ]
    assert span.kind is Kind.TOOL
    assert span.tool_name == "lookup_order"
    assert span.arguments.value == {"order": 7}


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({"code": "OK"}, "ok"),
        ({"code": "ERROR"}, "error"),
        ({"code": "UNSET"}, None),
        ({}, None),
        (None, None),
        ("ERROR", "error"),
        ("ok", "ok"),
    ],
)
def test_trace_span_event_status_codes(tmp_path: Path, status: Any, expected: str | None) -> None:
    span = one(tmp_path, trace_span_event(status=status))
    assert span.status == expected
    assert span.status_message is None


def test_ingest_request_body(tmp_path: Path) -> None:
    body = {
        "wireVersion": "2026-07-24.v1",
        "spans": [
            trace_span_event(spanId=ROOT, parentSpanId=None, name="invoke_agent desk"),
            trace_span_event(),
        ],
    }
    traces = read_traces(write(tmp_path, body, "batch.json"))
    assert [t.trace_id for t in traces] == [TRACE]
    assert [s.span_id for s in traces[0].spans] == [ROOT, CHILD]
    assert [s.span_id for s in traces[0].roots] == [ROOT]


def test_ingest_request_body_errors_are_located_under_spans(tmp_path: Path) -> None:
    body = {"wireVersion": "2026-07-24.v1", "spans": [trace_span_event(), trace_span_event(name=3)]}
    path, message = read_error(tmp_path, body)
    assert message == f"{path}: spans[1].name: is a int, not a string"


def test_pivots_and_other_top_level_fields_become_attributes(tmp_path: Path) -> None:
    span = one(tmp_path, trace_span_event(**{"tangle.runId": "run-1", "tangle.generation": 3}))
    assert span.attributes["tangle.runId"] == "run-1"
    assert span.attributes["tangle.generation"] == 3
    for structural in ("traceId", "spanId", "name", "status", "events", "startTimeUnixNano"):
        assert structural not in span.attributes


# --- snake_case rows --------------------------------------------------------------------------


def snake_row(**fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "trace_id": TRACE,
        "span_id": CHILD,
        "parent_span_id": ROOT,
        "name": "llm call",
    }
    row.update(fields)
    return row


@pytest.mark.parametrize("offset_hours", [0, 2, -5])
def test_snake_case_iso_times_keep_nanoseconds(tmp_path: Path, offset_hours: int) -> None:
    row = snake_row(start_time=iso(START, offset_hours), end_time=iso(END, offset_hours))
    span = one(tmp_path, row)
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE, CHILD, ROOT)
    assert (span.start_ns, span.end_ns) == (START, END)


def test_iso_without_zone_is_utc_and_short_fraction_is_padded(tmp_path: Path) -> None:
    span = one(
        tmp_path, snake_row(start_time="2024-05-01T12:00:00.5", end_time="2024-05-01 12:00:01")
    )
    base = int(datetime(2024, 5, 1, 12, tzinfo=UTC).timestamp()) * 1_000_000_000
    assert (span.start_ns, span.end_ns) == (base + 500_000_000, base + 1_000_000_000)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (1_714_564_800, 1_714_564_802),  # seconds
        (1_714_564_800.5, 1_714_564_802.5),  # seconds with a fraction
        (1_714_564_800_123, 1_714_564_802_623),  # milliseconds
        (1_714_564_800_123_456, 1_714_564_802_623_456),  # microseconds
        (START, END),  # nanoseconds
        (str(START), str(END)),  # nanoseconds as strings: every digit kept
        ("1714564800", "1714564802"),  # seconds as strings
    ],
)
def test_snake_case_epoch_times_in_any_unit(tmp_path: Path, start: Any, end: Any) -> None:
    span = one(tmp_path, snake_row(start_time=start, end_time=end))

    def as_ns(value: Any) -> int:
        number = int(value) if isinstance(value, str) else value
        magnitude = abs(number)
        unit = (
            10**9
            if magnitude < 1e11
            else 10**6
            if magnitude < 1e14
            else 10**3
            if magnitude < 1e17
            else 1
        )
        return round(number * unit) if isinstance(number, float) else number * unit

    assert (span.start_ns, span.end_ns) == (as_ns(start), as_ns(end))
    assert span.start_ns is not None
    assert str(span.start_ns).startswith("17145648")


@pytest.mark.parametrize("zero", [0, "0", None])
def test_zero_or_absent_flat_times_are_not_recorded(tmp_path: Path, zero: Any) -> None:
    span = one(tmp_path, snake_row(start_time=zero, end_time=zero))
    assert (span.start_ns, span.end_ns) == (None, None)


def test_top_level_extras_become_attributes_and_own_attributes_win(tmp_path: Path) -> None:
    row = snake_row(
        model="claude-sonnet-4-5",
        input_tokens=120,
        output_tokens=30,
        note=None,
        attributes={"model": "claude-opus-4", "gen_ai.usage.input_tokens": 100},
        resource_attributes={"service.name": "desk", "model": "resource-model"},
    )
    span = one(tmp_path, row)
    assert dict(span.attributes) == {
        "service.name": "desk",
        "model": "claude-opus-4",
        "input_tokens": 120,
        "output_tokens": 30,
        "gen_ai.usage.input_tokens": 100,
    }
    assert dict(span.resource) == {"service.name": "desk", "model": "resource-model"}
    assert span.model == "claude-opus-4"
    assert span.kind is Kind.LLM
    assert (span.tokens.input, span.tokens.output) == (100, 30)


def test_resource_object_with_attributes(tmp_path: Path) -> None:
    span = one(tmp_path, snake_row(resource={"attributes": {"service.name": "svc"}}))
    assert span.attributes["service.name"] == "svc"
    assert dict(span.resource) == {"service.name": "svc"}


def test_otlp_key_value_attributes_in_a_flat_row(tmp_path: Path) -> None:
    row = snake_row(attributes=[{"key": "tool.name", "value": {"stringValue": "Read"}}])
    span = one(tmp_path, row)
    assert dict(span.attributes) == {"tool.name": "Read"}
    assert span.tool_name == "Read"


def test_ids_are_normalised(tmp_path: Path) -> None:
    span = one(
        tmp_path, snake_row(trace_id=TRACE.upper(), span_id=CHILD.upper(), parent_span_id="")
    )
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE, CHILD, None)


# --- eval-store spans -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "kind"),
    [
        ("tool", Kind.TOOL),
        ("TOOL", Kind.TOOL),
        ("llm", Kind.LLM),
        ("agent", Kind.AGENT),
        ("judge", Kind.EVALUATOR),
        ("evaluator", Kind.EVALUATOR),
        ("retrieval", Kind.RETRIEVER),
        ("guardrail", Kind.GUARDRAIL),
    ],
)
def test_eval_store_declared_kinds(tmp_path: Path, declared: str, kind: Kind) -> None:
    row = {"traceId": TRACE, "id": CHILD, "kind": declared, "name": "step", "startedAt": 1}
    span = one(tmp_path, row)
    assert span.declared_kind == declared
    assert span.kind is kind


def test_otlp_kind_in_kind_field_is_not_a_declared_contract_kind(tmp_path: Path) -> None:
    row = {"traceId": TRACE, "id": CHILD, "kind": "CLIENT", "name": "step"}
    span = one(tmp_path, row)
    assert span.kind is Kind.UNKNOWN
    assert span.otlp_kind == 3
    with_tool = one(tmp_path, {**row, "attributes": {"gen_ai.tool.name": "Bash"}})
    assert with_tool.kind is Kind.TOOL  # inferred from the tool-name attribute, not declared


def test_eval_store_tool_span(tmp_path: Path) -> None:
    rows = [
        {
            "traceId": TRACE,
            "id": ROOT,
            "kind": "agent",
            "name": "run",
            "startedAt": 1_714_564_800_000,
            "endedAt": 1_714_564_805_000,
        },
        {
            "traceId": TRACE,
            "id": CHILD,
            "parentId": ROOT,
            "kind": "tool",
            "toolName": "lookup_order",
            "startedAt": 1_714_564_801_250,
            "endedAt": 1_714_564_801_750,
        },
    ]
    root, tool = spans_of(tmp_path, rows)
    assert (root.kind, root.start_ns, root.end_ns) == (
        Kind.AGENT,
        1_714_564_800_000_000_000,
        1_714_564_805_000_000_000,
    )
    assert tool.parent_span_id == ROOT
    assert tool.kind is Kind.TOOL
    assert tool.tool_name == "lookup_order"
    assert tool.name == "lookup_order"  # no name: the tool name stands in
    assert tool.duration_ns == 500_000_000


def test_eval_store_rows_without_ids_are_sniffed_and_noted(tmp_path: Path) -> None:
    path = write(tmp_path, [{"kind": "tool", "toolName": "Read", "startedAt": 5}], "eval.json")
    assert detect_format(path) == "spans"
    (trace,) = read_traces(path)
    assert trace.trace_id is None
    assert trace.spans[0].tool_name == "Read"
    assert trace.notes == (
        ReadNote(str(path), "[0]", 'span "Read" has no trace id'),
        ReadNote(str(path), "[0]", 'span "Read" has no span id'),
    )


# --- JSON Lines and single rows --------------------------------------------------------------


def test_jsonl_rows_group_by_trace_in_first_seen_order(tmp_path: Path) -> None:
    rows = [
        snake_row(trace_id=OTHER_TRACE, span_id="1111111111111111"),
        trace_span_event(spanId="2222222222222222"),
        snake_row(trace_id=OTHER_TRACE, span_id="3333333333333333"),
    ]
    text = "\n".join(json.dumps(r) for r in rows) + "\n\n"
    path = write(tmp_path, text, "rows.jsonl")
    assert detect_format(path) == "spans"
    traces = read_traces(path)
    assert [t.trace_id for t in traces] == [OTHER_TRACE, TRACE]
    assert [s.span_id for s in traces[0].spans] == ["1111111111111111", "3333333333333333"]


def test_a_single_row_on_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(snake_row()) + "\n", "one.jsonl")
    assert detect_format(path) == "spans"
    (trace,) = read_traces(path)
    assert [s.span_id for s in trace.spans] == [CHILD]


def test_end_before_start_is_noted_with_the_row(tmp_path: Path) -> None:
    rows = [snake_row(), snake_row(span_id=ROOT, start_time=END, end_time=START)]
    path = write(tmp_path, rows)
    (trace,) = read_traces(path)
    assert trace.spans[1].end_ns is None
    assert trace.spans[1].start_ns == END
    assert trace.notes == (
        ReadNote(
            str(path), "[1]", f"span {ROOT} ends before it starts; its end time is dropped", TRACE
        ),
    )


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (snake_row(name=["x"]), "[1].name: is a list, not a string"),
        (snake_row(attributes="model=x"), "[1].attributes: is not an object of attributes"),
        (snake_row(trace_id=True), "[1].trace_id: is a bool, not a string"),
        (
            snake_row(span_id="xyz"),
            "[1].span_id: a string of 3 character(s) is neither 16 hex digits nor base64",
        ),
        (
            snake_row(start_time="yesterday"),
            "[1].start_time: a string of 9 character(s) is not an ISO-8601 time",
        ),
        (snake_row(end_time=[1]), "[1].end_time: is a list, not a time"),
        (snake_row(start_time=True), "[1].start_time: is a bool, not a time"),
        (
            snake_row(status={"code": "BROKEN"}),
            "[1].status: a string of 6 character(s) is not a status code",
        ),
        (snake_row(events={"name": "x"}), "[1].events: is not a list"),
        (snake_row(events=["x"]), "[1].events[0]: is not an object"),
        (
            trace_span_event(startTimeUnixNano="12:00"),
            "[1].startTimeUnixNano: a string of 5 character(s) is not an unsigned integer",
        ),
        ("not a row", "[1]: is not a span object"),
    ],
)
def test_wrong_types_are_located(tmp_path: Path, row: Any, message: str) -> None:
    path, got = read_error(tmp_path, [snake_row(), row])
    assert got == f"{path}: {message}"


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    text = json.dumps(snake_row()) + "\n" + json.dumps(snake_row(name=7)) + "\n"
    path, message = read_error(tmp_path, text, "rows.jsonl")
    assert message == f"{path}: line 2: name: is a int, not a string"
    text = json.dumps(snake_row()) + '\n{"trace_id": \n'
    path, message = read_error(tmp_path, text, "rows.jsonl")
    assert message.startswith(f"{path}: line 2, column ")
    assert ": malformed JSON: " in message


def test_malformed_array_names_line_and_column(tmp_path: Path) -> None:
    text = '[\n  {"traceId": "' + TRACE + '",\n   "spanId": }\n]'
    path, message = read_error(tmp_path, text)
    assert message.startswith(f"{path}: line 3, column 14: malformed JSON: ")


def test_document_that_is_not_rows(tmp_path: Path) -> None:
    path, message = read_error(tmp_path, {"wireVersion": "2026-07-24.v1", "spans": "none"})
    assert message == f"{path}: is not a list of spans"
    path, message = read_error(tmp_path, "42")
    assert message == f"{path}: is not a list of spans"


def test_uuid_ids_read_as_their_hex(tmp_path: Path) -> None:
    row = {
        "traceId": "9D3E1F4A-7B6C-4E2D-8A1F-5C0B9E8D7F62",
        "id": "0b5c2a7e-3f41-4d8e-9a6b-2c1f0e9d8a71",
        "name": "lookup",
        "kind": "tool",
    }
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([row]))
    (span,) = read_traces(path)[0].spans
    assert span.trace_id == "9d3e1f4a7b6c4e2d8a1f5c0b9e8d7f62"
    assert span.span_id == "0b5c2a7e3f414d8e9a6b2c1f0e9d8a71"
