"""Which format a file holds is judged by content; any input either reads or raises TraceReadError."""

from __future__ import annotations

import contextlib
import gzip
import json
import struct
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from tracecheck import (
    AmbiguousFormatError,
    TraceReadError,
    UnrecognizedFormatError,
    detect_format,
    read_traces,
)
from tracecheck.readers import FORMATS

TRACE = "5b8efff798038103d269b633813fc60c"
SPAN = "eee19b7ec3c1b174"


def otlp_request(span_id: str = SPAN, trace_id: str = TRACE) -> dict[str, Any]:
    span = {
        "traceId": trace_id,
        "spanId": span_id,
        "name": "chat",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": [{"key": "gen_ai.request.model", "value": {"stringValue": "m"}}],
        "status": {"code": "STATUS_CODE_OK"},
    }
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "s"}, "spans": [span]}]}]}


def proto_message(span_id: str = SPAN) -> bytes:
    span = trace_pb2.Span(
        trace_id=bytes.fromhex(TRACE),
        span_id=bytes.fromhex(span_id),
        name="chat",
        start_time_unix_nano=1_700_000_000_000_000_000,
        attributes=[
            common_pb2.KeyValue(key="k", value=common_pb2.AnyValue(int_value=3)),
            common_pb2.KeyValue(key="s", value=common_pb2.AnyValue(string_value="text")),
        ],
    )
    request = ExportTraceServiceRequest(
        resource_spans=[trace_pb2.ResourceSpans(scope_spans=[trace_pb2.ScopeSpans(spans=[span])])]
    )
    return request.SerializeToString()


def proto_stream(*bodies: bytes) -> bytes:
    return b"".join(struct.pack(">I", len(body)) + body for body in bodies)


FLAT_ROWS = [{"traceId": TRACE, "spanId": SPAN, "name": "x", "startTimeUnixNano": "1"}]
CLAUDE_RECORD = {"type": "system", "subtype": "init", "session_id": "abc", "tools": ["Read"]}

SAMPLES: dict[str, tuple[str, bytes]] = {
    "otlp-json": ("otlp-json", json.dumps(otlp_request()).encode()),
    "otlp-json-pretty": ("otlp-json", json.dumps(otlp_request(), indent=2).encode()),
    "otlp-jsonl": (
        "otlp-jsonl",
        (json.dumps(otlp_request()) + "\n" + json.dumps(otlp_request("1111111111111111"))).encode(),
    ),
    "otlp-proto": ("otlp-proto", proto_message()),
    "otlp-proto-stream": ("otlp-proto", proto_stream(proto_message(), proto_message())),
    "spans": ("spans", json.dumps(FLAT_ROWS).encode()),
    "spans-pretty": ("spans", json.dumps(FLAT_ROWS, indent=2).encode()),
    "spans-jsonl": ("spans", "\n".join(json.dumps(r) for r in FLAT_ROWS * 2).encode()),
    "spans-ingest": (
        "spans",
        json.dumps({"wireVersion": "2026-07-24.v1", "spans": FLAT_ROWS}).encode(),
    ),
    "claude-stream": (
        "claude-stream",
        (json.dumps(CLAUDE_RECORD) + "\n" + json.dumps({**CLAUDE_RECORD, "type": "user"})).encode(),
    ),
}


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# --- sniffing by content ----------------------------------------------------------------------


@pytest.mark.parametrize("sample", list(SAMPLES))
@pytest.mark.parametrize("name", ["trace.txt", "trace.json", "trace.pb", "noext"])
def test_format_is_sniffed_by_content_not_name(tmp_path: Path, sample: str, name: str) -> None:
    expected, data = SAMPLES[sample]
    assert detect_format(write(tmp_path, name, data)) == expected
    assert detect_format(data) == expected


@pytest.mark.parametrize("sample", [s for s in SAMPLES if not s.startswith("claude")])
def test_sniffed_formats_read_the_same_as_when_named(tmp_path: Path, sample: str) -> None:
    expected, data = SAMPLES[sample]
    path = write(tmp_path, "trace.txt", data)
    sniffed = read_traces(path)
    named = read_traces(path, format=expected)
    assert [list(t.spans) for t in sniffed] == [list(t.spans) for t in named]
    assert sniffed[0].trace_id == TRACE
    assert sniffed[0].spans[0].span_id == SPAN


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_gzip_is_detected_by_magic_whatever_the_name(tmp_path: Path, sample: str) -> None:
    expected, data = SAMPLES[sample]
    packed = gzip.compress(data)
    assert detect_format(write(tmp_path, "trace.json", packed)) == expected
    assert detect_format(write(tmp_path, "trace.gz", packed)) == expected
    assert detect_format(packed) == expected


@pytest.mark.parametrize(
    "sample",
    ["otlp-json", "otlp-json-pretty", "otlp-jsonl", "spans", "spans-jsonl", "spans-ingest"],
)
def test_utf8_byte_order_mark_is_skipped(tmp_path: Path, sample: str) -> None:
    expected, data = SAMPLES[sample]
    plain = read_traces(data)
    for marked in (b"\xef\xbb\xbf" + data, gzip.compress(b"\xef\xbb\xbf" + data)):
        assert detect_format(marked) == expected
        path = write(tmp_path, "bom.txt", marked)
        assert [list(t.spans) for t in read_traces(path)] == [list(t.spans) for t in plain]


def test_single_line_otlp_is_a_document_and_several_lines_are_jsonl(tmp_path: Path) -> None:
    line = json.dumps(otlp_request())
    assert detect_format(write(tmp_path, "a.jsonl", line + "\n")) == "otlp-json"
    assert detect_format(write(tmp_path, "b.jsonl", "\n" + line + "\n\n")) == "otlp-json"
    two = write(tmp_path, "c.json", line + "\n" + json.dumps(otlp_request("1111111111111111")))
    assert detect_format(two) == "otlp-jsonl"
    (trace,) = read_traces(two)
    assert [s.span_id for s in trace.spans] == [SPAN, "1111111111111111"]


def test_pretty_printed_otlp_json_reads(tmp_path: Path) -> None:
    path = write(tmp_path, "pretty.txt", json.dumps(otlp_request(), indent=4, sort_keys=True))
    assert detect_format(path) == "otlp-json"
    (trace,) = read_traces(path)
    assert trace.spans[0].attributes == {"gen_ai.request.model": "m"}


def test_a_format_given_overrides_sniffing(tmp_path: Path) -> None:
    line = json.dumps(otlp_request())
    path = write(tmp_path, "one.json", line + "\n")
    (trace,) = read_traces(path, format="otlp-jsonl")
    assert [s.span_id for s in trace.spans] == [SPAN]


# --- ambiguity, nothing recognised, empty -----------------------------------------------------


def test_content_that_reads_as_two_formats_is_ambiguous(tmp_path: Path) -> None:
    records = [
        {"type": "assistant", "session_id": "s1", "traceId": TRACE, "spanId": SPAN},
        {"type": "assistant", "session_id": "s1", "traceId": TRACE, "spanId": "1111111111111111"},
    ]
    path = write(tmp_path, "both.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    with pytest.raises(AmbiguousFormatError) as info:
        read_traces(path)
    assert str(info.value) == (
        f"{path} reads as claude-stream and spans; pass --format claude-stream or --format spans"
    )
    assert info.value.formats == ("claude-stream", "spans")
    with pytest.raises(AmbiguousFormatError):
        detect_format(path)
    (trace,) = read_traces(path, format="spans")
    assert [s.span_id for s in trace.spans] == [SPAN, "1111111111111111"]
    assert trace.spans[0].attributes["type"] == "assistant"


@pytest.mark.parametrize(
    "content",
    [
        b"# Notes\n\nNothing to see here.\n",
        b"\n\n\n\nSome text here, and then more text here\n",  # starts with newline bytes
        b'{"hello": "world"}',
        b'{"hello": "world"}\n{"hello": "again"}\n',
        b"[1, 2, 3]",
        b"[]",
        b"{}",
        b'"resourceSpans"',
        b"null",
        b"   \n\t\n",
        bytes(range(256)),
        b"\x00\x00\x00\x05hello",
    ],
)
def test_unrecognised_content(tmp_path: Path, content: bytes) -> None:
    path = write(tmp_path, "notes.txt", content)
    with pytest.raises(UnrecognizedFormatError) as info:
        read_traces(path)
    assert str(info.value) == f"{path}: is not a trace this command reads"
    with pytest.raises(UnrecognizedFormatError):
        detect_format(content)


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.json", b"")
    with pytest.raises(UnrecognizedFormatError) as info:
        read_traces(path)
    assert str(info.value) == f"{path}: is empty"
    with pytest.raises(UnrecognizedFormatError) as info:
        read_traces(write(tmp_path, "empty.json.gz", gzip.compress(b"")))
    assert str(info.value).endswith(": is empty")
    with pytest.raises(UnrecognizedFormatError) as info:
        read_traces(b"")
    assert str(info.value) == "<bytes>: is empty"


def test_unknown_format_name(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", json.dumps(otlp_request()))
    with pytest.raises(TraceReadError) as info:
        read_traces(path, format="datadog")
    assert str(info.value) == (f"{path}: unknown format 'datadog' (known: {', '.join(FORMATS)})")
    assert FORMATS == (
        "otlp-json",
        "otlp-jsonl",
        "otlp-proto",
        "spans",
        "claude-stream",
        "zipkin",
        "jaeger",
        "jaeger-model",
        "jaeger-api-v3",
        "otel-js",
        "langfuse-export",
    )


def test_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(TraceReadError) as info:
        read_traces(path)
    assert str(info.value) == f"{path}: no such file or directory"
    with pytest.raises(TraceReadError) as info:
        detect_format(path)
    assert str(info.value) == f"{path}: no such file or directory"


def test_a_jaeger_download_sniffs_as_jaeger_compact_or_pretty(tmp_path: Path) -> None:
    span = {"traceID": TRACE, "spanID": SPAN, "operationName": "chat", "startTime": 1, "tags": []}
    jaeger = {"data": [{"traceID": TRACE, "spans": [span], "processes": {}}]}
    for name, text in (("a.json", json.dumps(jaeger)), ("b.json", json.dumps(jaeger, indent=2))):
        path = write(tmp_path, name, text)
        assert detect_format(path) == "jaeger"
        (trace,) = read_traces(path)
        assert [s.span_id for s in trace.spans] == [SPAN]


@pytest.mark.parametrize("length", [91, 123, 32])
def test_a_small_protobuf_request_whose_length_reads_as_a_bracket_is_protobuf(
    length: int,
) -> None:
    # The request's first byte (its tag, 0x0A) is a newline; a length of 123 or 91 is "{" or
    # "[": the head then looks like JSON until its binary content is seen.
    for size in range(200):
        span = trace_pb2.Span(
            trace_id=bytes.fromhex(TRACE), span_id=bytes.fromhex(SPAN), name="n" * size
        )
        resource_spans = trace_pb2.ResourceSpans(scope_spans=[trace_pb2.ScopeSpans(spans=[span])])
        if len(resource_spans.SerializeToString()) == length:
            break
    else:
        pytest.fail(f"no request of length {length}")
    data = ExportTraceServiceRequest(resource_spans=[resource_spans]).SerializeToString()
    assert data[1] == length
    assert detect_format(data) == "otlp-proto"
    (trace,) = read_traces(data)
    assert trace.spans[0].name == "n" * size


# --- directories ------------------------------------------------------------------------------


def test_directory_reads_every_recognised_file_sorted_and_recursive(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write(root, "b.jsonl", json.dumps(otlp_request("2222222222222222")) + "\n")
    write(root, "a/z.pb", proto_message("1111111111111111"))
    write(
        root, "c/d/e.txt.gz", gzip.compress(json.dumps(otlp_request("3333333333333333")).encode())
    )
    write(root, "README.md", "\n\n\n# Runs\n\nRecorded agent runs live here.\n")
    write(root, "notes.json", '{"comment": "not a trace"}')
    write(root, "empty.json", b"")
    write(root, ".hidden.json", json.dumps(otlp_request("9999999999999999")))
    write(root, ".cache/x.json", json.dumps(otlp_request("8888888888888888")))
    (trace,) = read_traces(root)
    assert [s.span_id for s in trace.spans] == [
        "1111111111111111",
        "2222222222222222",
        "3333333333333333",
    ]


def test_directory_notes_name_each_file(tmp_path: Path) -> None:
    orphan = {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "orphan"}]}]}]}
    write(tmp_path, "a.json", json.dumps(otlp_request()))
    bad = write(tmp_path, "b.json", json.dumps(orphan))
    traces = read_traces(tmp_path)
    assert [t.trace_id for t in traces] == [TRACE, None]
    assert [str(n) for n in traces[1].notes] == [
        f'{bad}: resourceSpans[0].scopeSpans[0].spans[0]: span "orphan" has no trace id',
        f'{bad}: resourceSpans[0].scopeSpans[0].spans[0]: span "orphan" has no span id',
    ]


def test_the_same_run_saved_twice_is_read_once_with_a_note(tmp_path: Path) -> None:
    write(tmp_path, "run.otlp.json", json.dumps(otlp_request()))
    write(tmp_path, "run.otlp.pb", proto_message())
    (trace,) = read_traces(tmp_path)
    assert [s.span_id for s in trace.spans] == [SPAN]
    # The note names the file that repeats the span, not the directory.
    assert [str(n) for n in trace.notes] == [
        f"{tmp_path / 'run.otlp.pb'}: trace {TRACE}: span {SPAN} is recorded more than once "
        "(not all copies alike); only the first copy is kept"
    ]
    assert trace.sources == (str(tmp_path / "run.otlp.json"), str(tmp_path / "run.otlp.pb"))
    assert trace.source == str(tmp_path / "run.otlp.json")
    assert trace.spans[0].attributes["gen_ai.request.model"] == "m"  # the JSON copy, read first


def test_a_batch_exported_twice_counts_each_span_once(tmp_path: Path) -> None:
    # An exporter that retries a batch the collector had already written writes it again.
    ids = [f"{n:016x}" for n in range(1, 6)]
    lines = [json.dumps(otlp_request(span_id)) for span_id in ids]
    path = write(tmp_path, "run.jsonl", "\n".join(lines + lines[1:3]) + "\n")
    (trace,) = read_traces(path)
    assert [s.span_id for s in trace.spans] == ids
    assert [n.message for n in trace.notes] == [
        f"2 spans are recorded more than once: {ids[1]}, {ids[2]}; only the first copy is kept"
    ]
    path = write(tmp_path, "many.jsonl", "\n".join(lines + lines) + "\n")
    (trace,) = read_traces(path)
    assert [n.message for n in trace.notes] == [
        f"5 spans are recorded more than once: {ids[0]}, {ids[1]}, {ids[2]}, and 2 more; "
        "only the first copy is kept"
    ]


def test_spans_without_an_id_are_never_merged(tmp_path: Path) -> None:
    orphan = {"traceId": TRACE, "name": "orphan"}
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [orphan, orphan]}]}]}
    (trace,) = read_traces(write(tmp_path, "a.json", json.dumps(document)))
    assert [s.name for s in trace.spans] == ["orphan", "orphan"]
    assert all("recorded more than once" not in n.message for n in trace.notes)


def test_directory_without_traces(tmp_path: Path) -> None:
    write(tmp_path, "README.md", "# nothing\n")
    write(tmp_path, ".hidden.json", json.dumps(otlp_request()))
    with pytest.raises(UnrecognizedFormatError) as info:
        read_traces(tmp_path)
    assert str(info.value) == f"{tmp_path}: holds no trace file this command reads"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UnrecognizedFormatError) as info:
        read_traces(empty)
    assert str(info.value) == f"{empty}: holds no trace file this command reads"


def test_directory_with_an_ambiguous_or_broken_file_raises(tmp_path: Path) -> None:
    write(tmp_path, "a.json", json.dumps(otlp_request()))
    record = {"type": "user", "session_id": "s", "trace_id": TRACE, "span_id": SPAN}
    both = write(tmp_path, "b.jsonl", json.dumps(record) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(AmbiguousFormatError) as info:
        read_traces(tmp_path)
    assert str(info.value).startswith(f"{both} reads as claude-stream and spans")
    both.unlink()
    packed = gzip.compress(json.dumps(otlp_request()).encode() * 100)
    broken = write(tmp_path, "c.json.gz", packed[: len(packed) // 2])
    with pytest.raises(TraceReadError) as failure:
        read_traces(tmp_path)
    assert str(failure.value).startswith(f"{broken}: could not be read: ")


def test_directory_failures_can_be_collected_instead_of_raised(tmp_path: Path) -> None:
    write(tmp_path, "a.json", json.dumps(otlp_request()))
    record = {"type": "user", "session_id": "s", "trace_id": TRACE, "span_id": SPAN}
    both = write(tmp_path, "b.jsonl", json.dumps(record) + "\n" + json.dumps(record) + "\n")
    # Broken after a first good line: none of its spans are given, nor its notes.
    orphan = {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "orphan"}]}]}]}
    broken = write(tmp_path, "c.jsonl", json.dumps(orphan) + "\n{broken\n")
    failures: list[TraceReadError] = []
    (trace,) = read_traces(tmp_path, failures=failures)
    assert [s.span_id for s in trace.spans] == [SPAN]
    assert trace.notes == ()
    assert [(type(f), f.source) for f in failures] == [
        (AmbiguousFormatError, str(both)),
        (TraceReadError, str(broken)),
    ]


def test_directory_with_a_format_skips_files_that_hold_no_trace(tmp_path: Path) -> None:
    write(tmp_path, "a.json", json.dumps(otlp_request()))
    write(tmp_path, "b.txt", "not json")
    (trace,) = read_traces(tmp_path, format="otlp-json")
    assert len(trace.spans) == len(read_traces(tmp_path / "a.json")[0].spans)


def test_directory_with_a_format_reads_ambiguous_files_as_that_format(tmp_path: Path) -> None:
    records = [
        {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": span_id}
        for span_id in ("b" * 16, "c" * 16)
    ]
    write(tmp_path, "both.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    with pytest.raises(AmbiguousFormatError):
        read_traces(tmp_path)
    (trace,) = read_traces(tmp_path, format="spans")
    assert len(trace.spans) == 2


# --- any input reads or raises TraceReadError -------------------------------------------------


def read_or_refuse(data: bytes) -> None:
    try:
        traces = read_traces(data)
    except TraceReadError as exc:
        assert str(exc).startswith("<bytes>")
    else:
        assert all(t.spans for t in traces)


@settings(max_examples=300, deadline=None)
@given(st.binary())
def test_arbitrary_bytes_read_or_raise_trace_read_error(data: bytes) -> None:
    read_or_refuse(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64).map(lambda body: b"\x0a" + bytes([len(body)]) + body))
def test_arbitrary_proto_like_bytes_read_or_raise(data: bytes) -> None:
    read_or_refuse(data)
    read_or_refuse(proto_stream(data))


VALID_DOCUMENTS = [
    json.dumps(otlp_request()).encode(),
    json.dumps(otlp_request(), indent=1).encode(),
    SAMPLES["otlp-jsonl"][1],
    proto_message(),
    proto_stream(proto_message(), proto_message("1111111111111111")),
    SAMPLES["spans"][1],
    SAMPLES["spans-jsonl"][1],
    SAMPLES["claude-stream"][1],
]


@st.composite
def mutated_documents(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(VALID_DOCUMENTS)))
    for _ in range(draw(st.integers(0, 4))):
        if not data:
            break
        where = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "set", "delete", "insert"]))
        if action == "flip":
            data[where] ^= 1 << draw(st.integers(0, 7))
        elif action == "set":
            data[where] = draw(st.integers(0, 255))
        elif action == "delete":
            del data[where]
        else:
            data.insert(where, draw(st.integers(0, 255)))
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents())
def test_mutated_documents_read_or_raise_trace_read_error(data: bytes) -> None:
    read_or_refuse(data)
    read_or_refuse(gzip.compress(data))


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=30,
)

# Keys that steer the value into the readers' paths rather than straight to "unrecognised".
_KEYS = st.sampled_from(
    [
        "resourceSpans",
        "scopeSpans",
        "spans",
        "traceId",
        "spanId",
        "parentSpanId",
        "startTimeUnixNano",
        "start_time",
        "startedAt",
        "attributes",
        "status",
        "code",
        "events",
        "value",
        "key",
        "kind",
        "toolName",
        "arrayValue",
        "kvlistValue",
        "values",
        "intValue",
        "doubleValue",
    ]
)
SHAPED_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([TRACE, SPAN, "0", "NaN", "ERROR", "2024-05-01T12:00:00Z", "AAAA"])
    | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(_KEYS | st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_arbitrary_json_reads_or_raises_trace_read_error(value: Any) -> None:
    text = json.dumps(value)
    read_or_refuse(text.encode())
    read_or_refuse(json.dumps(value, indent=2).encode())


@settings(max_examples=300, deadline=None)
@given(SHAPED_JSON, st.sampled_from([None, *FORMATS]))
def test_trace_shaped_json_reads_or_raises_trace_read_error(value: Any, format: str | None) -> None:
    data = json.dumps(value).encode()
    for document in (data, data + b"\n" + data):
        with contextlib.suppress(TraceReadError):
            read_traces(document, format=format)
