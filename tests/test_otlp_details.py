"""Every OTLP detail of inputs.md, each read from a small hand-made file."""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1 import trace_pb2

from tracecheck import ReadNote, Span, Trace, TraceReadError, read_traces

TRACE = "5b8efff798038103d269b633813fc60c"
TRACE_2 = "0af7651916cd43dd8448eb211c80319c"
SPAN = "eee19b7ec3c1b174"
PARENT = "b7ad6b7169203331"
START = 1_700_000_000_123_456_789
END = 1_700_000_001_987_654_321


# --- building inputs ------------------------------------------------------------------------


def span_json(span_id: str = SPAN, trace_id: str = TRACE, **fields: Any) -> dict[str, Any]:
    span: dict[str, Any] = {"traceId": trace_id, "spanId": span_id, "name": f"op {span_id}"}
    span.update(fields)
    return {k: v for k, v in span.items() if v is not None}


def request(
    *spans: dict[str, Any],
    resource: list[dict[str, Any]] | None = None,
    scope: dict[str, Any] | None = None,
) -> dict[str, Any]:
    group: dict[str, Any] = {"spans": list(spans)}
    if scope is not None:
        group["scope"] = scope
    entry: dict[str, Any] = {"scopeSpans": [group]}
    if resource is not None:
        entry["resource"] = {"attributes": resource}
    return {"resourceSpans": [entry]}


def kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def write(tmp_path: Path, name: str, content: bytes | str | dict[str, Any]) -> Path:
    path = tmp_path / name
    if isinstance(content, dict):
        content = json.dumps(content)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def only_span(source: Path | bytes, **kwargs: Any) -> Span:
    traces = read_traces(source, **kwargs)
    assert len(traces) == 1
    assert len(traces[0].spans) == 1
    return traces[0].spans[0]


def attributes_of(tmp_path: Path, *pairs: dict[str, Any]) -> dict[str, Any]:
    path = write(tmp_path, "attrs.json", request(span_json(attributes=list(pairs))))
    return dict(only_span(path).attributes)


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case(value: Any) -> Any:
    """The same document with every field name in snake_case (attribute keys are values)."""
    if isinstance(value, dict):
        return {_CAMEL.sub("_", k).lower(): snake_case(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_case(v) for v in value]
    return value


def b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


# --- ids --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [str.lower, str.upper, lambda s: s[:10].upper() + s[10:]])
def test_hex_ids_in_any_case_become_lower_case_hex(tmp_path: Path, case: Any) -> None:
    doc = request(span_json(case(SPAN), case(TRACE), parentSpanId=case(PARENT)))
    span = only_span(write(tmp_path, "t.json", doc))
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE, SPAN, PARENT)


def test_protobuf_json_base64_ids_become_the_same_hex(tmp_path: Path) -> None:
    assert (len(b64(TRACE)), len(b64(SPAN))) == (24, 12)
    doc = request(span_json(b64(SPAN), b64(TRACE), parentSpanId=b64(PARENT)))
    span = only_span(write(tmp_path, "t.json", doc))
    assert (span.trace_id, span.span_id, span.parent_span_id) == (TRACE, SPAN, PARENT)


def test_base64_ids_of_the_wrong_width_are_rejected(tmp_path: Path) -> None:
    # 24 base64 characters without padding decode to 18 bytes, not a 16-byte trace id.
    doc = request(span_json(trace_id="abcdefghijklmnopqrstuvwx"))
    path = write(tmp_path, "t.json", doc)
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: resourceSpans[0].scopeSpans[0].spans[0].traceId: "
        "a string of 24 character(s) is neither 32 hex digits nor base64"
    )


def test_all_zero_ids_mean_absent(tmp_path: Path) -> None:
    doc = request(
        span_json("1111111111111111", parentSpanId="0" * 16),
        span_json("2222222222222222", parentSpanId=b64("00" * 8)),
        span_json("3333333333333333", parentSpanId=""),
    )
    (trace,) = read_traces(write(tmp_path, "t.json", doc))
    assert [s.parent_span_id for s in trace.spans] == [None, None, None]
    assert len(trace.roots) == 3
    assert trace.notes == ()


# --- field names, enums, integers --------------------------------------------------------------


def full_request() -> dict[str, Any]:
    """A request that uses most fields, all named in camelCase."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [kv("service.name", {"stringValue": "agent"})]},
                "scopeSpans": [
                    {
                        "scope": {"name": "lib", "version": "1.2", "attributes": []},
                        "spans": [
                            {
                                "traceId": TRACE,
                                "spanId": SPAN,
                                "parentSpanId": PARENT,
                                "name": "chat",
                                "kind": "SPAN_KIND_CLIENT",
                                "startTimeUnixNano": str(START),
                                "endTimeUnixNano": str(END),
                                "attributes": [
                                    kv("s", {"stringValue": "text"}),
                                    kv("i", {"intValue": "42"}),
                                    kv("d", {"doubleValue": 0.5}),
                                    kv("b", {"boolValue": True}),
                                    kv("y", {"bytesValue": "aGk="}),
                                    kv("a", {"arrayValue": {"values": [{"intValue": "1"}]}}),
                                    kv("m", {"kvlistValue": {"values": [kv("k", {})]}}),
                                ],
                                "events": [
                                    {
                                        "name": "ev",
                                        "timeUnixNano": str(START + 5),
                                        "attributes": [kv("e", {"stringValue": "v"})],
                                    }
                                ],
                                "links": [{"traceId": TRACE_2, "spanId": PARENT}],
                                "status": {"code": "STATUS_CODE_ERROR", "message": "boom"},
                            }
                        ],
                    }
                ],
            }
        ]
    }


def test_camel_case_and_snake_case_field_names_read_identically(tmp_path: Path) -> None:
    camel = full_request()
    snake = snake_case(camel)
    assert "resource_spans" in snake
    assert "start_time_unix_nano" in snake["resource_spans"][0]["scope_spans"][0]["spans"][0]
    from_camel = only_span(write(tmp_path, "camel.json", camel))
    from_snake = only_span(write(tmp_path, "snake.json", snake))
    assert from_snake == from_camel
    assert from_snake.events == from_camel.events
    assert (from_snake.start_ns, from_snake.end_ns) == (START, END)
    assert from_snake.links[0].trace_id == TRACE_2
    assert from_snake.events[0].time_ns == START + 5
    assert dict(from_snake.attributes) == {
        "service.name": "agent",
        "s": "text",
        "i": 42,
        "d": 0.5,
        "b": True,
        "y": b"hi",
        "a": [1],
        "m": {"k": None},
    }


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("SPAN_KIND_UNSPECIFIED", 0),
        ("SPAN_KIND_INTERNAL", 1),
        ("SPAN_KIND_SERVER", 2),
        ("SPAN_KIND_CLIENT", 3),
        ("SPAN_KIND_PRODUCER", 4),
        ("SPAN_KIND_CONSUMER", 5),
    ],
)
def test_span_kind_enum_names_and_numbers(tmp_path: Path, name: str, number: int) -> None:
    by_name = only_span(write(tmp_path, "n.json", request(span_json(kind=name))))
    by_number = only_span(write(tmp_path, "i.json", request(span_json(kind=number))))
    assert by_name.otlp_kind == by_number.otlp_kind == number


def test_otlp_span_kind_is_not_a_declared_contract_kind(tmp_path: Path) -> None:
    span = only_span(write(tmp_path, "t.json", request(span_json(kind="SPAN_KIND_INTERNAL"))))
    assert span.declared_kind is None
    assert span.kind == "UNKNOWN"


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("STATUS_CODE_UNSET", None),
        (0, None),
        ("STATUS_CODE_OK", "ok"),
        (1, "ok"),
        ("STATUS_CODE_ERROR", "error"),
        (2, "error"),
        (None, None),
    ],
)
def test_status_enum_names_and_numbers(tmp_path: Path, code: Any, status: str | None) -> None:
    doc = request(span_json(status={"code": code, "message": "tool failed"}))
    span = only_span(write(tmp_path, "t.json", doc))
    assert span.status == status
    assert span.is_error is (status == "error")
    assert span.status_message == "tool failed"


def test_bad_status_code_and_span_kind_are_located(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", request(span_json(status={"code": "BROKEN"})))
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: resourceSpans[0].scopeSpans[0].spans[0].status.code: "
        "a string of 6 character(s) is not a status code"
    )
    path = write(tmp_path, "k.json", request(span_json(kind=9)))
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: resourceSpans[0].scopeSpans[0].spans[0].kind: "
        "an integer is not a span kind (0 to 5, or its name)"
    )


@pytest.mark.parametrize("as_string", [True, False])
def test_64_bit_integers_as_strings_and_numbers_stay_exact(tmp_path: Path, as_string: bool) -> None:
    big = 2**53 + 1  # not representable as a double
    encode: Any = str if as_string else int
    doc = request(
        span_json(
            startTimeUnixNano=encode(START),
            endTimeUnixNano=encode(END),
            attributes=[kv("n", {"intValue": encode(big)}), kv("neg", {"intValue": encode(-big)})],
        )
    )
    text = json.dumps(doc)
    assert (f'"{big}"' in text) is as_string
    span = only_span(write(tmp_path, "t.json", text))
    assert span.attributes["n"] == big
    assert span.attributes["neg"] == -big
    assert isinstance(span.attributes["n"], int)
    assert (span.start_ns, span.end_ns) == (START, END)
    assert span.duration_ns == END - START


@pytest.mark.parametrize("start", [0, "0", None])
def test_time_zero_or_absent_is_not_recorded(tmp_path: Path, start: Any) -> None:
    doc = request(span_json(startTimeUnixNano=start, endTimeUnixNano=str(END)))
    span = only_span(write(tmp_path, "t.json", doc))
    assert span.start_ns is None
    assert span.end_ns == END
    assert span.duration_ns is None


def test_both_times_zero_are_none_and_no_note(tmp_path: Path) -> None:
    doc = request(span_json(startTimeUnixNano="0", endTimeUnixNano=0))
    (trace,) = read_traces(write(tmp_path, "t.json", doc))
    assert (trace.spans[0].start_ns, trace.spans[0].end_ns) == (None, None)
    assert trace.notes == ()


def test_negative_time_is_a_located_error(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", request(span_json(endTimeUnixNano="-5")))
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano: "
        "a string of 2 character(s) is not an unsigned integer"
    )


# --- AnyValue ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"stringValue": "héllo"}, "héllo"),
        ({"stringValue": ""}, ""),
        ({"boolValue": False}, False),
        ({"boolValue": True}, True),
        ({"intValue": "-7"}, -7),
        ({"intValue": 7}, 7),
        ({"doubleValue": 2.5}, 2.5),
        ({"doubleValue": 3}, 3.0),
        ({"doubleValue": "Infinity"}, math.inf),
        ({"doubleValue": "-Infinity"}, -math.inf),
        ({"bytesValue": base64.b64encode(b"\x00\xffbin").decode()}, b"\x00\xffbin"),
        ({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "2"}, {}]}}, ["a", 2, None]),
        ({"arrayValue": {}}, []),
        (
            {
                "kvlistValue": {
                    "values": [
                        kv(
                            "outer", {"kvlistValue": {"values": [kv("inner", {"boolValue": True})]}}
                        ),
                        kv("list", {"arrayValue": {"values": [{"doubleValue": 1.5}]}}),
                    ]
                }
            },
            {"outer": {"inner": True}, "list": [1.5]},
        ),
        ({}, None),
    ],
)
def test_any_value_kinds(tmp_path: Path, value: dict[str, Any], expected: Any) -> None:
    got = attributes_of(tmp_path, kv("x", value))["x"]
    assert got == expected
    assert type(got) is type(expected)


def test_double_nan(tmp_path: Path) -> None:
    got = attributes_of(tmp_path, kv("x", {"doubleValue": "NaN"}))["x"]
    assert isinstance(got, float)
    assert math.isnan(got)


def test_key_value_without_value_is_none(tmp_path: Path) -> None:
    assert attributes_of(tmp_path, {"key": "x"}) == {"x": None}


def test_snake_case_any_values(tmp_path: Path) -> None:
    got = attributes_of(
        tmp_path,
        kv("s", {"string_value": "t"}),
        kv("i", {"int_value": "9"}),
        kv("a", {"array_value": {"values": [{"bool_value": True}]}}),
        kv("m", {"kvlist_value": {"values": [kv("k", {"double_value": 1.0})]}}),
        kv("y", {"bytes_value": "AQI="}),
    )
    assert got == {"s": "t", "i": 9, "a": [True], "m": {"k": 1.0}, "y": b"\x01\x02"}


@pytest.mark.parametrize(
    ("value", "where", "reason"),
    [
        ({"intValue": "forty"}, "[0].value.intValue", "is not an integer (a str)"),
        ({"doubleValue": "many"}, "[0].value.doubleValue", "is not a number (a str)"),
        ({"boolValue": "yes"}, "[0].value.boolValue", "is not a boolean (a str)"),
        ({"stringValue": 5}, "[0].value.stringValue", "is not a string (a int)"),
        ({"bytesValue": "!!"}, "[0].value.bytesValue", "is not base64"),
        (
            {"arrayValue": {"values": [{"intValue": "1"}, {"intValue": []}]}},
            "[0].value.arrayValue.values[1].intValue",
            "is not an integer (a list)",
        ),
        (
            {"kvlistValue": {"values": [kv("k", {"boolValue": 1})]}},
            "[0].value.kvlistValue.values[0].value.boolValue",
            "is not a boolean (a int)",
        ),
        ({"mystery": 1}, "[0].value", "has no value field OTLP defines (1 other field(s))"),
    ],
)
def test_malformed_any_value_is_located_and_not_echoed(
    tmp_path: Path, value: dict[str, Any], where: str, reason: str
) -> None:
    path = write(tmp_path, "t.json", request(span_json(attributes=[kv("secret", value)])))
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: resourceSpans[0].scopeSpans[0].spans[0].attributes{where}: {reason}"
    )


# --- resource and scope -------------------------------------------------------------------------


def test_resource_under_scope_under_span_attributes(tmp_path: Path) -> None:
    doc = request(
        span_json(attributes=[kv("c", {"stringValue": "span"}), kv("d", {"stringValue": "span"})]),
        resource=[
            kv("a", {"stringValue": "resource"}),
            kv("b", {"stringValue": "resource"}),
            kv("c", {"stringValue": "resource"}),
        ],
        scope={
            "name": "my.scope",
            "version": "0.9",
            "attributes": [kv("b", {"stringValue": "scope"}), kv("c", {"stringValue": "scope"})],
        },
    )
    span = only_span(write(tmp_path, "t.json", doc))
    assert dict(span.attributes) == {"a": "resource", "b": "scope", "c": "span", "d": "span"}
    assert dict(span.resource) == {"a": "resource", "b": "resource", "c": "resource"}
    assert span.scope is not None
    assert (span.scope.name, span.scope.version) == ("my.scope", "0.9")
    assert dict(span.scope.attributes) == {"b": "scope", "c": "scope"}


def test_spans_without_resource_or_scope(tmp_path: Path) -> None:
    span = only_span(write(tmp_path, "t.json", request(span_json())))
    assert dict(span.resource) == {}
    assert span.scope is None


def test_legacy_instrumentation_library_spans(tmp_path: Path) -> None:
    doc = {
        "resourceSpans": [
            {
                "resource": {"attributes": [kv("service.name", {"stringValue": "old"})]},
                "instrumentationLibrarySpans": [
                    {
                        "instrumentationLibrary": {"name": "legacy.lib", "version": "0.1"},
                        "spans": [span_json(), span_json(PARENT)],
                    }
                ],
            }
        ]
    }
    (trace,) = read_traces(write(tmp_path, "old.json", doc))
    assert [s.span_id for s in trace.spans] == [SPAN, PARENT]
    assert trace.spans[0].scope is not None
    assert trace.spans[0].scope.name == "legacy.lib"
    assert trace.spans[0].attributes["service.name"] == "old"


# --- JSON Lines -------------------------------------------------------------------------------


def test_jsonl_requests_group_into_traces_in_first_seen_order(tmp_path: Path) -> None:
    lines = [
        request(span_json("1111111111111111", TRACE_2), span_json("2222222222222222", TRACE)),
        request(span_json("3333333333333333", TRACE)),
        {"resourceSpans": []},
        request(span_json("4444444444444444", TRACE_2), span_json("5555555555555555", TRACE)),
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n\n"
    traces = read_traces(write(tmp_path, "run.otlp.jsonl", text))
    assert [t.trace_id for t in traces] == [TRACE_2, TRACE]
    assert [s.span_id for s in traces[0].spans] == ["1111111111111111", "4444444444444444"]
    assert [s.span_id for s in traces[1].spans] == [
        "2222222222222222",
        "3333333333333333",
        "5555555555555555",
    ]


def test_jsonl_whose_first_line_is_longer_than_the_sniffing_window(tmp_path: Path) -> None:
    big = span_json("1111111111111111", attributes=[kv("blob", {"stringValue": "x" * 200_000})])
    text = json.dumps(request(big)) + "\n" + json.dumps(request(span_json("2222222222222222")))
    (trace,) = read_traces(write(tmp_path, "big.jsonl", text))
    assert [s.span_id for s in trace.spans] == ["1111111111111111", "2222222222222222"]
    assert len(trace.spans[0].attributes["blob"]) == 200_000


def test_single_long_line_document_is_one_request(tmp_path: Path) -> None:
    big = span_json("1111111111111111", attributes=[kv("blob", {"stringValue": "x" * 200_000})])
    (trace,) = read_traces(write(tmp_path, "big.json", json.dumps(request(big)) + "\n\n"))
    assert [s.span_id for s in trace.spans] == ["1111111111111111"]


# --- protobuf ---------------------------------------------------------------------------------


def any_value(value: Any) -> common_pb2.AnyValue:
    if isinstance(value, bool):
        return common_pb2.AnyValue(bool_value=value)
    if isinstance(value, int):
        return common_pb2.AnyValue(int_value=value)
    if isinstance(value, float):
        return common_pb2.AnyValue(double_value=value)
    if isinstance(value, bytes):
        return common_pb2.AnyValue(bytes_value=value)
    if isinstance(value, list):
        return common_pb2.AnyValue(
            array_value=common_pb2.ArrayValue(values=[any_value(v) for v in value])
        )
    if isinstance(value, dict):
        return common_pb2.AnyValue(kvlist_value=common_pb2.KeyValueList(values=key_values(value)))
    if value is None:
        return common_pb2.AnyValue()
    return common_pb2.AnyValue(string_value=value)


def key_values(attributes: dict[str, Any]) -> list[common_pb2.KeyValue]:
    return [common_pb2.KeyValue(key=k, value=any_value(v)) for k, v in attributes.items()]


ATTRIBUTES: dict[str, Any] = {
    "gen_ai.operation.name": "chat",
    "count": 2**60,
    "ratio": 0.25,
    "flag": True,
    "raw": b"\x00\x01",
    "list": ["a", 1, None],
    "nested": {"inner": {"deep": False}},
    "empty": None,
}


def proto_request(trace_id: str = TRACE, span_id: str = SPAN) -> ExportTraceServiceRequest:
    span = trace_pb2.Span(
        trace_id=bytes.fromhex(trace_id),
        span_id=bytes.fromhex(span_id),
        parent_span_id=bytes.fromhex(PARENT),
        name="chat model",
        kind=trace_pb2.Span.SPAN_KIND_CLIENT,
        start_time_unix_nano=START,
        end_time_unix_nano=END,
        attributes=key_values(ATTRIBUTES),
        events=[
            trace_pb2.Span.Event(
                name="ev", time_unix_nano=START + 1, attributes=key_values({"e": "v"})
            )
        ],
        links=[trace_pb2.Span.Link(trace_id=bytes.fromhex(TRACE_2), span_id=bytes.fromhex(SPAN))],
        status=trace_pb2.Status(code=trace_pb2.Status.STATUS_CODE_ERROR, message="bad"),
    )
    return ExportTraceServiceRequest(
        resource_spans=[
            trace_pb2.ResourceSpans(
                resource=Resource(attributes=key_values({"service.name": "svc"})),
                scope_spans=[
                    trace_pb2.ScopeSpans(
                        scope=common_pb2.InstrumentationScope(name="lib", version="2"),
                        spans=[span],
                    )
                ],
            )
        ]
    )


def json_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode()}
    if isinstance(value, list):
        return {"arrayValue": {"values": [json_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [kv(k, json_value(v)) for k, v in value.items()]}}
    if value is None:
        return {}
    return {"stringValue": value}


def json_request(trace_id: str = TRACE, span_id: str = SPAN) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [kv("service.name", {"stringValue": "svc"})]},
                "scopeSpans": [
                    {
                        "scope": {"name": "lib", "version": "2"},
                        "spans": [
                            {
                                "traceId": trace_id,
                                "spanId": span_id,
                                "parentSpanId": PARENT,
                                "name": "chat model",
                                "kind": 3,
                                "startTimeUnixNano": str(START),
                                "endTimeUnixNano": str(END),
                                "attributes": [kv(k, json_value(v)) for k, v in ATTRIBUTES.items()],
                                "events": [
                                    {
                                        "name": "ev",
                                        "timeUnixNano": str(START + 1),
                                        "attributes": [kv("e", {"stringValue": "v"})],
                                    }
                                ],
                                "links": [{"traceId": TRACE_2, "spanId": SPAN}],
                                "status": {"code": 2, "message": "bad"},
                            }
                        ],
                    }
                ],
            }
        ]
    }


def proto_stream(*requests: ExportTraceServiceRequest) -> bytes:
    out = b""
    for message in requests:
        body = message.SerializeToString()
        out += struct.pack(">I", len(body)) + body
    return out


def assert_same_spans(left: list[Trace], right: list[Trace]) -> None:
    assert [t.trace_id for t in left] == [t.trace_id for t in right]
    for a, b in zip(left, right, strict=True):
        assert list(a.spans) == list(b.spans)
        for x, y in zip(a.spans, b.spans, strict=True):
            assert (x.events, x.links, x.scope) == (y.events, y.links, y.scope)
            assert dict(x.resource) == dict(y.resource)


def test_protobuf_message_reads_like_its_json_form(tmp_path: Path) -> None:
    from_proto = read_traces(write(tmp_path, "t.bin", proto_request().SerializeToString()))
    from_json = read_traces(write(tmp_path, "t.json", json_request()))
    assert_same_spans(from_proto, from_json)
    span = from_proto[0].spans[0]
    assert span.attributes["count"] == 2**60
    assert span.attributes["raw"] == b"\x00\x01"
    assert span.attributes["nested"] == {"inner": {"deep": False}}
    assert (span.status, span.status_message, span.otlp_kind) == ("error", "bad", 3)
    assert span.attributes["service.name"] == "svc"


def test_collector_length_prefixed_proto_stream(tmp_path: Path) -> None:
    later = "00000000000000aa"
    data = proto_stream(proto_request(), proto_request(TRACE_2), proto_request(TRACE, later))
    traces = read_traces(write(tmp_path, "traces.proto", data))
    lines = "\n".join(
        json.dumps(json_request(t, s)) for t, s in ((TRACE, SPAN), (TRACE_2, SPAN), (TRACE, later))
    )
    from_json = read_traces(write(tmp_path, "traces.jsonl", lines))
    assert [len(t.spans) for t in traces] == [2, 1]
    assert_same_spans(traces, from_json)


def test_proto_empty_ids_and_zero_times_are_absent(tmp_path: Path) -> None:
    message = ExportTraceServiceRequest(
        resource_spans=[
            trace_pb2.ResourceSpans(
                scope_spans=[
                    trace_pb2.ScopeSpans(
                        spans=[
                            trace_pb2.Span(
                                trace_id=bytes.fromhex(TRACE),
                                span_id=bytes.fromhex(SPAN),
                                parent_span_id=bytes(8),
                                name="root",
                            )
                        ]
                    )
                ]
            )
        ]
    )
    (trace,) = read_traces(write(tmp_path, "t.pb", message.SerializeToString()))
    span = trace.spans[0]
    assert (span.parent_span_id, span.start_ns, span.end_ns, span.status) == (
        None,
        None,
        None,
        None,
    )
    assert span.scope is None


def test_proto_stream_errors_name_the_record_and_byte(tmp_path: Path) -> None:
    first = proto_stream(proto_request())
    truncated = write(tmp_path, "a.proto", first + struct.pack(">I", 500) + b"\x0a\x02\x12\x00")
    with pytest.raises(TraceReadError) as info:
        read_traces(truncated)
    assert str(info.value) == (
        f"{truncated}: record 2 (byte {len(first)}): announces 500 bytes but only 4 follow"
    )

    garbage = b"\x0a\x05\xff\xff\xff\xff\xff\xff"
    corrupt = write(tmp_path, "b.proto", first + struct.pack(">I", len(garbage)) + garbage)
    with pytest.raises(TraceReadError) as info:
        read_traces(corrupt)
    assert str(info.value).startswith(
        f"{corrupt}: record 2 (byte {len(first)}): malformed OTLP protobuf: "
    )

    cut = write(tmp_path, "c.proto", first + b"\x00\x00")
    with pytest.raises(TraceReadError) as info:
        read_traces(cut)
    assert str(info.value) == f"{cut}: record 2 (byte {len(first)}): ends inside a length prefix"


def test_proto_stream_is_read_record_by_record(tmp_path: Path) -> None:
    from tracecheck import iter_spans

    data = proto_stream(proto_request(), proto_request(TRACE_2)) + struct.pack(">I", 99)
    spans = iter_spans(write(tmp_path, "s.proto", data))
    assert next(spans).trace_id == TRACE
    assert next(spans).trace_id == TRACE_2
    with pytest.raises(TraceReadError, match=r"record 3 \(byte \d+\): announces 99 bytes"):
        next(spans)


# --- gzip -------------------------------------------------------------------------------------


def _inputs() -> dict[str, bytes]:
    return {
        "otlp-json": json.dumps(json_request()).encode(),
        "otlp-jsonl": "\n".join(json.dumps(json_request(t)) for t in (TRACE, TRACE_2)).encode(),
        "otlp-proto": proto_request().SerializeToString(),
        "otlp-proto-stream": proto_stream(proto_request(), proto_request(TRACE_2)),
        "spans": json.dumps([{"traceId": TRACE, "spanId": SPAN, "name": "x"}]).encode(),
    }


@pytest.mark.parametrize("kind", list(_inputs()))
def test_gzip_is_read_transparently_whatever_the_name(tmp_path: Path, kind: str) -> None:
    data = _inputs()[kind]
    plain = read_traces(write(tmp_path, "plain.dat", data))
    packed = gzip.compress(data)
    assert packed[:2] == b"\x1f\x8b"
    assert_same_spans(read_traces(write(tmp_path, "packed.dat", packed)), plain)
    assert_same_spans(read_traces(write(tmp_path, "packed.json.gz", packed)), plain)
    assert_same_spans(read_traces(packed), plain)
    assert sum(len(t.spans) for t in plain) >= 1


def test_truncated_gzip_is_a_read_error(tmp_path: Path) -> None:
    packed = gzip.compress(_inputs()["otlp-jsonl"] * 50)
    path = write(tmp_path, "t.jsonl.gz", packed[: len(packed) // 2])
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value).startswith(f"{path}: could not be read: ")


# --- malformed input --------------------------------------------------------------------------


def test_malformed_json_names_line_and_column(tmp_path: Path) -> None:
    text = '{\n  "resourceSpans": [\n    {"scopeSpans": [}\n  ]\n}\n'
    path = write(tmp_path, "bad.json", text)
    line, column = position(text, text.index("[}") + 1)
    assert (line, column) == (3, 21)
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value).startswith(f"{path}: line {line}, column {column}: malformed JSON: ")
    assert info.value.where == f"line {line}, column {column}"


def test_malformed_jsonl_names_the_line(tmp_path: Path) -> None:
    good = json.dumps(request(span_json()))
    path = write(tmp_path, "bad.jsonl", f"{good}\n\n{good}\n{good[:-3]}\n{good}\n")
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value).startswith(f"{path}: line 4, column ")
    assert ": malformed JSON: " in str(info.value)


def test_invalid_field_in_jsonl_names_line_and_field_path(tmp_path: Path) -> None:
    good = json.dumps(request(span_json()))
    bad = json.dumps(request(span_json(), span_json(trace_id="xyz")))
    path = write(tmp_path, "bad.jsonl", f"{good}\n{bad}\n")
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: line 2: resourceSpans[0].scopeSpans[0].spans[1].traceId: "
        "a string of 3 character(s) is neither 32 hex digits nor base64"
    )


def test_invalid_field_names_its_path(tmp_path: Path) -> None:
    doc = request(span_json("1111111111111111"), span_json("2222222222222222"))
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"].append(span_json(trace_id="not-an-id"))
    path = write(tmp_path, "t.json", doc)
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path}: resourceSpans[0].scopeSpans[0].spans[2].traceId: "
        "a string of 9 character(s) is neither 32 hex digits nor base64"
    )
    assert info.value.source == str(path)
    assert info.value.where == "resourceSpans[0].scopeSpans[0].spans[2].traceId"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"resourceSpans": {}}, "resourceSpans: is not a list"),
        ({"resourceSpans": [[]]}, "resourceSpans[0]: is not an object"),
        (
            {"resourceSpans": [{"scopeSpans": [1]}]},
            "resourceSpans[0].scopeSpans[0]: is not an object",
        ),
        (
            {"resourceSpans": [{"scopeSpans": [{"spans": ["x"]}]}]},
            "resourceSpans[0].scopeSpans[0].spans[0]: is not an object",
        ),
        (
            request(span_json(name=5)),
            "resourceSpans[0].scopeSpans[0].spans[0].name: is a int, not a string",
        ),
        (
            request(span_json(attributes=[{"value": {}}])),
            "resourceSpans[0].scopeSpans[0].spans[0].attributes[0]: is not a key-value pair",
        ),
        (
            request(span_json(), resource=[{"key": "k", "value": {"intValue": "x"}}]),
            "resourceSpans[0].resource.attributes[0].value.intValue: is not an integer (a str)",
        ),
        (
            request(span_json(events=[{"name": "e", "timeUnixNano": "soon"}])),
            "resourceSpans[0].scopeSpans[0].spans[0].events[0].timeUnixNano: "
            "a string of 4 character(s) is not an unsigned integer",
        ),
        (
            request(span_json(links=[{"traceId": TRACE, "spanId": "zz"}])),
            "resourceSpans[0].scopeSpans[0].spans[0].links[0].spanId: "
            "a string of 2 character(s) is neither 16 hex digits nor base64",
        ),
    ],
)
def test_structural_errors_are_located(tmp_path: Path, doc: dict[str, Any], message: str) -> None:
    path = write(tmp_path, "t.json", doc)
    with pytest.raises(TraceReadError) as info:
        read_traces(path, format="otlp-json")
    assert str(info.value) == f"{path}: {message}"


def test_document_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", "[1, 2]")
    with pytest.raises(TraceReadError) as info:
        read_traces(path, format="otlp-json")
    assert str(info.value) == f"{path}: is not an OTLP trace request object"
    path = write(tmp_path, "t.jsonl", json.dumps(request(span_json())) + "\n7\n")
    with pytest.raises(TraceReadError) as info:
        read_traces(path, format="otlp-jsonl")
    assert str(info.value) == f"{path}: line 2: is not an OTLP trace request object"


# --- spans kept with notes --------------------------------------------------------------------


def test_span_without_ids_is_kept_with_notes(tmp_path: Path) -> None:
    doc = request(
        span_json(),
        {"name": "orphan", "startTimeUnixNano": str(START)},
    )
    path = write(tmp_path, "t.json", doc)
    traces = read_traces(path)
    assert [t.trace_id for t in traces] == [TRACE, None]
    orphan = traces[1].spans[0]
    assert (orphan.name, orphan.span_id, orphan.start_ns) == ("orphan", None, START)
    where = "resourceSpans[0].scopeSpans[0].spans[1]"
    expected = (
        ReadNote(str(path), where, 'span "orphan" has no trace id'),
        ReadNote(str(path), where, 'span "orphan" has no span id'),
    )
    assert traces[1].notes == expected
    assert traces[0].notes == ()  # a note rides with the trace it is about
    assert str(expected[0]) == f'{path}: {where}: span "orphan" has no trace id'


def test_all_zero_trace_id_is_absent_and_noted(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", request(span_json(trace_id="0" * 32)))
    (trace,) = read_traces(path)
    assert trace.trace_id is None
    assert [n.message for n in trace.notes] == [f'span "op {SPAN}" has no trace id']


def test_end_before_start_drops_the_end_and_notes_it(tmp_path: Path) -> None:
    doc = request(
        span_json(startTimeUnixNano=str(END), endTimeUnixNano=str(START)),
        span_json(PARENT, startTimeUnixNano=str(START), endTimeUnixNano=str(START)),
    )
    path = write(tmp_path, "t.json", doc)
    (trace,) = read_traces(path)
    bad, same = trace.spans
    assert (bad.start_ns, bad.end_ns) == (END, None)
    assert (same.start_ns, same.end_ns) == (START, START)
    assert trace.notes == (
        ReadNote(
            str(path),
            "resourceSpans[0].scopeSpans[0].spans[0]",
            f"span {SPAN} ends before it starts; its end time is dropped",
            TRACE,
        ),
    )


def test_end_before_start_in_protobuf(tmp_path: Path) -> None:
    message = proto_request()
    span = message.resource_spans[0].scope_spans[0].spans[0]
    span.start_time_unix_nano, span.end_time_unix_nano = END, START
    (trace,) = read_traces(write(tmp_path, "t.pb", message.SerializeToString()))
    assert trace.spans[0].end_ns is None
    assert [(n.where, n.message) for n in trace.notes] == [
        (
            "resourceSpans[0].scopeSpans[0].spans[0]",
            f"span {SPAN} ends before it starts; its end time is dropped",
        )
    ]


# --- bytes ------------------------------------------------------------------------------------


def test_read_traces_accepts_bytes(tmp_path: Path) -> None:
    data = json.dumps(json_request()).encode()
    from_bytes = read_traces(data)
    assert_same_spans(from_bytes, read_traces(write(tmp_path, "t.json", data)))
    assert from_bytes[0].spans[0].span_id == SPAN


def test_errors_about_bytes_name_bytes() -> None:
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps(request(span_json(trace_id="nope"))).encode())
    assert str(info.value) == (
        "<bytes>: resourceSpans[0].scopeSpans[0].spans[0].traceId: "
        "a string of 4 character(s) is neither 32 hex digits nor base64"
    )


def test_large_gzip_proto_message_is_not_taken_for_a_stream(tmp_path: Path) -> None:
    # Over the sniffing window, so the decompressed size is unknown when the layout is chosen;
    # the first ResourceSpans length is a 3-byte varint, so the first four bytes (0x0A and the
    # varint) also read as a plausible big-endian record length followed by a message.
    message = proto_request()
    spans = message.resource_spans[0].scope_spans[0].spans
    template = spans[0]
    for index in range(1, 300):
        copy = spans.add()
        copy.CopyFrom(template)
        copy.span_id = index.to_bytes(8, "big")
        copy.name = "n" * 200
    data = message.SerializeToString()
    assert len(data) > 1 << 16
    assert data[0] == 0x0A
    assert data[4] == 0x0A
    expected = read_traces(write(tmp_path, "plain.pb", data))
    assert len(expected[0].spans) == 300
    assert_same_spans(read_traces(write(tmp_path, "packed.pb", gzip.compress(data))), expected)
    assert_same_spans(read_traces(gzip.compress(data)), expected)


@pytest.mark.parametrize("field", ["traceId", "spanId", "startTimeUnixNano", "kind"])
def test_a_malformed_value_is_never_echoed_in_the_error(field: str) -> None:
    secret = "sk-" + "proj" + "Q7x9" * 6  # a credential pasted into the wrong field
    span = span_json()
    span[field] = secret
    with pytest.raises(TraceReadError) as info:
        read_traces(json.dumps(request(span)).encode())
    assert secret not in str(info.value)
    assert f"a string of {len(secret)} character(s)" in str(info.value)
