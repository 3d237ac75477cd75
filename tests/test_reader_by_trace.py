"""The streaming reader gives what `read_traces` gives, one trace at a time (inputs.md: memory
follows the largest trace, not the file).

The property draws spans of a few traces, interleaved, batched into records of OTLP JSON Lines,
flat-span JSON Lines or the Collector's length-prefixed protobuf stream (gzip or not, in one
file or spread over a directory), with repeated spans, missing ids, ends before starts and
faulty records, and compares traces (spans, order, notes, files) and errors. The index of files
read whole moves to disk at a drawn size, as it does for a directory of many small files.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from tracecheck import TraceReadError, read_traces
from tracecheck.readers import (
    by_trace,
    iter_traces,
    map_traces,
    otlp_json_typed,
    record_index,
    trace_index,
)
from tracecheck.readers.common import Decline
from tracecheck.spans import Trace

TRACES = (
    "0af7651916cd43dd8448eb211c80319c",
    "4bf92f3577b34da6a3ce929d0e0e4736",
    "5b8efff798038103d269b633813fc60c",
    "",  # no trace id: a span the reader keeps, with a note
)
SPANS = tuple(f"{n:016x}" for n in range(1, 9))  # few, so that some repeat
START = 1_700_000_000_000_000_000


@contextmanager
def streaming(whole_below: int = 0, in_memory: int | None = None) -> Iterator[None]:
    """Index every record file, however small (the CLI reads small files whole); with
    `in_memory`, move the index of files read whole to disk past that many entries."""
    saved = by_trace.WHOLE_BELOW, trace_index._IN_MEMORY
    by_trace.WHOLE_BELOW = whole_below
    if in_memory is not None:
        trace_index._IN_MEMORY = in_memory
    try:
        yield
    finally:
        by_trace.WHOLE_BELOW, trace_index._IN_MEMORY = saved


def same(expected: list[Trace], found: list[Trace]) -> None:
    assert [t.trace_id for t in found] == [t.trace_id for t in expected]
    for want, got in zip(expected, found, strict=True):
        assert got.notes == want.notes
        assert got.sources == want.sources
        assert len(got.spans) == len(want.spans)
        for a, b in zip(got.spans, want.spans, strict=True):
            assert a == b
            assert dict(a.attributes) == dict(b.attributes)


# --- drawing spans and records -----------------------------------------------------------------


@st.composite
def spans(draw: st.DrawFn) -> dict[str, Any]:
    start = START + draw(st.integers(0, 10**9))
    end = start + draw(st.integers(-(10**6), 10**9))  # some end before they start
    return {
        "trace": draw(st.sampled_from(TRACES)),
        "span": draw(st.sampled_from((*SPANS, ""))),
        "base64": draw(st.booleans()),
        "name": draw(st.sampled_from(("chat m", "execute_tool Bash", "invoke_agent a", "é ☃"))),
        "start": start,
        "end": end,
        "value": draw(st.one_of(st.integers(-5, 5), st.text(max_size=8))),
    }


@st.composite
def batches(draw: st.DrawFn) -> list[list[dict[str, Any]]]:
    drawn = draw(st.lists(spans(), min_size=1, max_size=24))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(drawn) - 1)), max_size=len(drawn))))
    out, last = [], 0
    for cut in [*cuts, len(drawn)]:
        if cut > last:
            out.append(drawn[last:cut])
            last = cut
    return out


def _otlp_id(raw: str, base64_form: bool) -> str:
    if raw and base64_form:
        return base64.b64encode(bytes.fromhex(raw)).decode()
    return raw


def otlp_line(batch: list[dict[str, Any]], snake: bool) -> bytes:
    rows = []
    for span in batch:
        ids = {
            "trace_id" if snake else "traceId": _otlp_id(span["trace"], span["base64"]),
            "span_id" if snake else "spanId": span["span"],
        }
        value = span["value"]
        typed = {"intValue": str(value)} if isinstance(value, int) else {"stringValue": value}
        rows.append(
            {
                **ids,
                "name": span["name"],
                "startTimeUnixNano": str(span["start"]),
                "endTimeUnixNano": str(span["end"]),
                "attributes": [{"key": "v", "value": typed}],
            }
        )
    scope = "scope_spans" if snake else "scopeSpans"
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]}
    request = {"resourceSpans": [{"resource": resource, scope: [{"spans": rows}]}]}
    return json.dumps(request, ensure_ascii=False).encode()


def flat_lines(batch: list[dict[str, Any]]) -> list[bytes]:
    lines = []
    for span in batch:
        row = {
            "traceId": span["trace"] or None,
            "spanId": span["span"] or None,
            "name": span["name"],
            "startTimeUnixNano": str(span["start"]),
            "endTimeUnixNano": str(span["end"]),
            "attributes": {"v": span["value"]},
        }
        lines.append(json.dumps(row, ensure_ascii=False).encode())
    return lines


def proto_record(batch: list[dict[str, Any]]) -> bytes:
    spans_pb = []
    for span in batch:
        value = span["value"]
        any_value = (
            common_pb2.AnyValue(int_value=value)
            if isinstance(value, int)
            else common_pb2.AnyValue(string_value=value)
        )
        spans_pb.append(
            trace_pb2.Span(
                trace_id=bytes.fromhex(span["trace"]),
                span_id=bytes.fromhex(span["span"]),
                name=span["name"],
                start_time_unix_nano=span["start"],
                end_time_unix_nano=max(span["end"], 0),
                attributes=[common_pb2.KeyValue(key="v", value=any_value)],
            )
        )
    request = ExportTraceServiceRequest(
        resource_spans=[trace_pb2.ResourceSpans(scope_spans=[trace_pb2.ScopeSpans(spans=spans_pb)])]
    )
    body = request.SerializeToString()
    return len(body).to_bytes(4, "big") + body


def records(layout: str, drawn: list[list[dict[str, Any]]]) -> list[bytes]:
    """One file's records, each with its own terminator (newline or length prefix)."""
    if layout == "proto-stream":
        return [proto_record(batch) for batch in drawn]
    if layout == "flat":
        return [line + b"\n" for batch in drawn for line in flat_lines(batch)]
    return [otlp_line(batch, layout == "otlp-snake") + b"\n" for batch in drawn]


FAULTS = ("none", "cut", "bad-time", "blank")


def faulty(layout: str, chunks: list[bytes], fault: str, at: int) -> list[bytes]:
    """The records with one fault: a record cut short (malformed JSON, or a length prefix that
    announces more than follows), a time that is no number (found only by reading the span),
    or blank lines (no fault at all)."""
    if fault == "none" or not chunks:
        return chunks
    at %= len(chunks)
    out = list(chunks)
    if fault == "blank":
        out.insert(at, b"\n  \n" if layout != "proto-stream" else b"")
    elif fault == "cut":
        out[at] = out[at][: max(5, len(out[at]) // 2)] + (
            b"\n" if layout != "proto-stream" else b""
        )
    elif fault == "bad-time" and layout != "proto-stream":
        out[at] = out[at].replace(b'"startTimeUnixNano": "', b'"startTimeUnixNano": "soon', 1)
    return out


LAYOUTS = ("otlp", "otlp-snake", "flat", "proto-stream")


@st.composite
def inputs(draw: st.DrawFn) -> dict[str, Any]:
    files = draw(st.integers(1, 3))
    drawn = [(draw(st.sampled_from(LAYOUTS)), draw(batches())) for _ in range(files)]
    return {
        "files": drawn,
        "fault": draw(st.sampled_from(FAULTS)),
        "fault_file": draw(st.integers(0, files - 1)),
        "fault_at": draw(st.integers(0, 50)),
        "gzip": draw(st.booleans()),
        "bom": draw(st.booleans()),
        "directory": files > 1 or draw(st.booleans()),
        "whole_below": draw(st.sampled_from((0, 0, 300))),
        "in_memory": draw(st.sampled_from((None, 0, 2))),
    }


def write_input(root: Path, drawn: dict[str, Any]) -> Path:
    paths = []
    for index, (layout, batch_list) in enumerate(drawn["files"]):
        chunks = records(layout, batch_list)
        if index == drawn["fault_file"]:
            chunks = faulty(layout, chunks, drawn["fault"], drawn["fault_at"])
        data = b"".join(chunks)
        if drawn["bom"] and layout != "proto-stream":
            data = b"\xef\xbb\xbf" + data
        if drawn["gzip"]:
            data = gzip.compress(data, mtime=0)
        path = root / "runs" / f"{index}-{layout}.trace"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        paths.append(path)
    return root / "runs" if drawn["directory"] else paths[0]


def outcome(read: Any) -> tuple[str, Any]:
    try:
        return "traces", read()
    except TraceReadError as exc:
        return "error", str(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_iter_traces_gives_what_read_traces_gives(drawn: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        source = write_input(Path(temp), drawn)
        with streaming(drawn["whole_below"], drawn["in_memory"]):
            expected = outcome(lambda: read_traces(source))
            found = outcome(lambda: list(iter_traces(source)))
            mapped = outcome(lambda: map_traces(source, lambda trace: trace))
        assert found[0] == expected[0] == mapped[0], (expected, found)
        if expected[0] == "error":
            assert found[1] == expected[1] == mapped[1]
        else:
            same(expected[1], found[1])
            same(expected[1], mapped[1])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_a_directory_with_failures_reads_like_read_traces(drawn: dict[str, Any]) -> None:
    """A directory's broken file fails alone, whether the fault shows while indexing or only
    once a trace's records are read (the directory is then read again without it)."""
    drawn = {**drawn, "directory": True}
    with tempfile.TemporaryDirectory() as temp:
        source = write_input(Path(temp), drawn)
        with streaming(drawn["whole_below"], drawn["in_memory"]):
            expected_failures: list[TraceReadError] = []
            expected = outcome(lambda: read_traces(source, failures=expected_failures))
            found_failures: list[TraceReadError] = []
            found = outcome(
                lambda: map_traces(source, lambda trace: trace, failures=found_failures)
            )
        assert found[0] == expected[0]
        assert [str(e) for e in found_failures] == [str(e) for e in expected_failures]
        if expected[0] == "traces":
            same(expected[1], found[1])


# --- what the property does not draw ------------------------------------------------------------


def test_each_record_is_converted_once_when_traces_share_records(tmp_path: Path) -> None:
    """An exporter's batch holds spans of several traces: the spans of the next traces are kept
    for them, so a shared record is not read again and again."""
    lines = []
    for batch in range(6):
        chunk = [
            {
                **dict.fromkeys(("base64",), False),
                "trace": TRACES[(batch + i) % 3],
                "span": f"{batch * 10 + i + 1:016x}",
                "name": "n",
                "start": START,
                "end": START + 1,
                "value": i,
            }
            for i in range(6)
        ]
        lines.append(otlp_line(chunk, snake=False) + b"\n")
    path = tmp_path / "shared.jsonl"
    path.write_bytes(b"".join(lines))
    with streaming(), counting_conversions() as converted:
        found = list(iter_traces(path))
    same(read_traces(path), found)
    assert sorted(converted) == list(range(1, 7))


@contextmanager
def counting_conversions() -> Iterator[list[int]]:
    """The numbers of the OTLP lines converted, as the index scans them or as traces are read."""
    converted: list[int] = []
    real = by_trace._CONVERTERS["otlp-lines"]
    real_typed = otlp_json_typed.typed_spans

    def counting(data: bytes, number: int, offset: int, ctx: Any) -> Any:
        converted.append(number)
        return real(data, number, offset, ctx)

    def counting_typed(data: Any, ctx: Any, prefix: str) -> Any:
        converted.append(int(prefix.removeprefix("line ").partition(":")[0]))
        return real_typed(data, ctx, prefix)

    by_trace._CONVERTERS["otlp-lines"] = counting
    otlp_json_typed.typed_spans = counting_typed
    try:
        yield converted
    finally:
        by_trace._CONVERTERS["otlp-lines"] = real
        otlp_json_typed.typed_spans = real_typed


def one_trace_lines(count: int, trace: str = TRACES[0]) -> list[bytes]:
    return [
        otlp_line(
            [
                {
                    "trace": trace,
                    "span": f"{line * 10 + i + 1:016x}",
                    "base64": False,
                    "name": "n",
                    "start": START,
                    "end": START + 1,
                    "value": i,
                }
                for i in range(3)
            ],
            snake=False,
        )
        + b"\n"
        for line in range(count)
    ]


def test_a_file_of_one_trace_is_read_in_one_pass(tmp_path: Path) -> None:
    """The index reads the lines of the first trace in full as it scans them and keeps their
    spans: each line is converted once, and none again when the trace is read."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(one_trace_lines(5)))
    with streaming(), counting_conversions() as converted:
        found = list(iter_traces(path))
    same(read_traces(path), found)
    assert converted == [1, 2, 3, 4, 5]


def test_reading_ahead_stops_at_the_second_trace(tmp_path: Path) -> None:
    """Lines after the first that holds another trace are scanned for ids alone, and read with
    their traces; the first trace's later lines too."""
    lines = one_trace_lines(2) + one_trace_lines(2, TRACES[1]) + one_trace_lines(2)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(lines))
    with streaming(), counting_conversions() as converted:
        found = list(iter_traces(path))
    same(read_traces(path), found)
    assert [t.trace_id for t in found] == [TRACES[0], TRACES[1]]
    assert converted == [1, 2, 3, 5, 6, 4]


def test_what_was_read_ahead_is_dropped_when_a_later_line_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join([*one_trace_lines(3), b'{"resourceSpans": [\n']))
    with streaming():
        expected = outcome(lambda: read_traces(path))
        found = outcome(lambda: list(iter_traces(path)))
    assert expected[0] == "error"
    assert found == expected


def test_a_file_cut_short_while_it_is_scanned_ends_the_scan(tmp_path: Path) -> None:
    """A file rewritten in place while the index scans it (an exporter that truncates its file)
    is scanned as far as it is left: the scan ends, or declines at the line cut short. A memory
    map of the file would kill the process instead (SIGBUS on a page past the new end)."""
    (line,) = one_trace_lines(1)
    count = (4 << 20) // len(line)
    path = tmp_path / "run.jsonl"
    path.write_bytes(line * count)
    scanned = 0
    with path.open("rb") as stream:
        try:
            for _ in record_index.OTLP_LINES(stream, 0, None):
                scanned += 1
                if scanned == 1:
                    os.truncate(path, len(line))
        except Decline:
            pass  # the last line read is cut short
    assert 1 <= scanned < count


def test_a_gzip_file_is_read_from_an_inflated_copy_that_is_removed(tmp_path: Path) -> None:
    batch = [
        {
            "trace": TRACES[n % 2],
            "span": SPANS[n],
            "base64": False,
            "name": "n",
            "start": START,
            "end": START + 5,
            "value": n,
        }
        for n in range(4)
    ]
    path = tmp_path / "run.jsonl.gz"
    path.write_bytes(gzip.compress(b"".join(otlp_line([s], False) + b"\n" for s in batch)))
    temp = Path(tempfile.gettempdir())
    before = set(temp.glob("tracecheck-*"))
    with streaming():
        traces = iter_traces(path)
        first = next(traces)
        assert set(temp.glob("tracecheck-*")) - before  # the copy exists while reading
        rest = list(traces)
    assert set(temp.glob("tracecheck-*")) == before
    same(read_traces(path), [first, *rest])


def test_bytes_are_read_by_trace_too() -> None:
    batch = [
        {
            "trace": TRACES[n % 2],
            "span": SPANS[n],
            "base64": False,
            "name": "n",
            "start": START,
            "end": START + 5,
            "value": n,
        }
        for n in range(4)
    ]
    data = b"".join(otlp_line([span], False) + b"\n" for span in batch)
    with streaming():
        same(read_traces(data), list(iter_traces(data)))
        same(read_traces(gzip.compress(data)), list(iter_traces(gzip.compress(data))))


def test_an_unknown_format_and_a_missing_file_fail_as_read_traces_does(tmp_path: Path) -> None:
    for source, format in ((tmp_path / "gone.jsonl", None), (tmp_path, "yaml")):
        with pytest.raises(TraceReadError) as expected:
            read_traces(source, format=format)
        with pytest.raises(TraceReadError) as found:
            list(iter_traces(source, format=format))
        assert str(found.value) == str(expected.value)


def test_name_renames_a_file_input(tmp_path: Path) -> None:
    """Standard input is spooled to a file and named as the bytes it holds."""
    path = tmp_path / "spooled"
    path.write_bytes(b'{"resourceSpans": []}\n{not json\n')
    with pytest.raises(TraceReadError) as info:
        map_traces(path, lambda trace: trace, name="<bytes>")
    assert str(info.value).startswith("<bytes>: line 2, column 2: malformed JSON")
    path.write_bytes(
        otlp_line(
            [
                {
                    "trace": TRACES[0],
                    "span": SPANS[0],
                    "base64": False,
                    "name": "n",
                    "start": START,
                    "end": START - 1,
                    "value": 1,
                }
            ],
            False,
        )
    )
    (trace,) = map_traces(path, lambda trace: trace, name="<bytes>")
    assert trace.sources == ("<bytes>",)
    assert {note.source for note in trace.notes} == {"<bytes>"}
