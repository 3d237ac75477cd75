"""Any span set written as OTLP JSON, JSON Lines and protobuf reads back to the same spans."""

from __future__ import annotations

import gzip
import pickle
import struct
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck import (
    Event,
    Link,
    ReadNote,
    Scope,
    Span,
    check,
    compile_contract,
    iter_spans,
    read_traces,
)
from tracecheck.readers.common import ReadContext
from tracecheck.readers.otlp_json import spans_from_request
from tracecheck.readers.otlp_json_typed import typed_spans
from tracecheck.writers import to_otlp_json, to_otlp_jsonl, to_otlp_proto

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
TIMES = st.one_of(st.none(), st.integers(min_value=1, max_value=2**63 - 1))
SCALARS = st.one_of(
    st.text(max_size=20),
    st.booleans(),
    INT64,
    st.floats(allow_nan=False),
    st.binary(max_size=8),
)
VALUES = st.recursive(
    st.one_of(st.none(), SCALARS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
ATTRIBUTES = st.dictionaries(st.text(max_size=12), VALUES, max_size=5)


def hex_id(size: int) -> st.SearchStrategy[str]:
    return st.binary(min_size=size, max_size=size).filter(any).map(bytes.hex)


@st.composite
def span_sets(draw: st.DrawFn) -> list[Span]:
    resource = draw(ATTRIBUTES)
    scope = draw(st.none() | st.builds(Scope, st.text(max_size=8), st.text(max_size=8), ATTRIBUTES))
    trace_ids = draw(st.lists(hex_id(16), min_size=1, max_size=3))
    spans = []
    count = draw(st.integers(min_value=1, max_value=6))
    # Span ids are unique: a repeated id is the same span recorded twice, which reads once.
    span_ids = draw(st.lists(hex_id(8), min_size=count, max_size=count, unique=True))
    for span_id in span_ids:
        start = draw(TIMES)
        end = draw(TIMES)
        if start is not None and end is not None and end < start:
            start, end = end, start
        own = draw(ATTRIBUTES)
        status = draw(st.sampled_from([None, "ok", "error"]))
        spans.append(
            Span(
                draw(st.sampled_from(trace_ids)),
                span_id,
                draw(st.none() | hex_id(8)),
                draw(st.text(max_size=16)),
                start,
                end,
                status,
                draw(st.none() | st.text(min_size=1, max_size=12)),
                {**resource, **(scope.attributes if scope else {}), **own},
                tuple(
                    draw(
                        st.lists(
                            st.builds(Event, st.text(max_size=8), TIMES, ATTRIBUTES), max_size=2
                        )
                    )
                ),
                tuple(
                    draw(st.lists(st.builds(Link, hex_id(16), hex_id(8), ATTRIBUTES), max_size=2))
                ),
                resource,
                scope,
                None,
                draw(st.integers(min_value=0, max_value=5)),
            )
        )
    return spans


def assert_same(read: list[Span], written: list[Span]) -> None:
    assert len(read) == len(written)
    for got, want in zip(read, written, strict=True):
        assert got == want
        assert (got.kind, got.tool_name, got.model, got.tokens) == (
            want.kind,
            want.tool_name,
            want.model,
            want.tokens,
        )


@settings(max_examples=150, deadline=None)
@given(span_sets())
def test_otlp_json_round_trip(spans: list[Span]) -> None:
    assert_same(list(iter_spans(to_otlp_json(spans))), spans)


@settings(max_examples=100, deadline=None)
@given(span_sets(), st.integers(min_value=1, max_value=4))
def test_otlp_jsonl_round_trip(spans: list[Span], batch: int) -> None:
    batches = [spans[i : i + batch] for i in range(0, len(spans), batch)]
    data = to_otlp_jsonl(batches)
    assert_same(list(iter_spans(data, format="otlp-jsonl")), spans)


@settings(max_examples=150, deadline=None)
@given(span_sets())
def test_otlp_proto_round_trip(spans: list[Span]) -> None:
    assert_same(list(iter_spans(to_otlp_proto(spans))), spans)


@settings(max_examples=50, deadline=None)
@given(span_sets(), st.integers(min_value=1, max_value=3))
def test_collector_proto_stream_round_trip(spans: list[Span], batch: int) -> None:
    records = [to_otlp_proto(spans[i : i + batch]) for i in range(0, len(spans), batch)]
    stream = b"".join(struct.pack(">I", len(record)) + record for record in records)
    assert_same(list(iter_spans(stream)), spans)


@settings(max_examples=30, deadline=None)
@given(span_sets())
def test_gzip_round_trip(spans: list[Span]) -> None:
    assert_same(list(iter_spans(gzip.compress(to_otlp_proto(spans)))), spans)


@settings(max_examples=50, deadline=None)
@given(span_sets())
def test_traces_group_by_id_in_first_seen_order(spans: list[Span]) -> None:
    traces = read_traces(to_otlp_json(spans))
    assert [t.trace_id for t in traces] == list(dict.fromkeys(s.trace_id for s in spans))
    for trace in traces:
        assert list(trace.spans) == [s for s in spans if s.trace_id == trace.trace_id]


@settings(max_examples=150, deadline=None)
@given(span_sets())
def test_typed_and_general_json_readers_build_the_same_spans(spans: list[Span]) -> None:
    data = to_otlp_json(spans)
    typed_notes: list[ReadNote] = []
    general_notes: list[ReadNote] = []
    typed = typed_spans(data, ReadContext("f", typed_notes), "")
    general = list(spans_from_request(orjson.loads(data), ReadContext("f", general_notes), ""))
    assert typed is not None, "canonical OTLP/JSON takes the typed path"
    assert typed == general
    assert typed_notes == general_notes


def test_the_typed_reader_declines_what_only_the_general_reader_reads() -> None:
    snake = (
        b'{"resource_spans": [{"scope_spans": [{"spans": [{"trace_id": "' + b"a" * 32 + b'"}]}]}]}'
    )
    bad_int = (
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": '
        b'[{"key": "k", "value": {"intValue": "twelve"}}]}]}]}]}'
    )
    for data in (snake, bad_int, b"[1, 2]", b"{not json"):
        assert typed_spans(data, ReadContext("f"), "") is None
    (span,) = iter_spans(snake)
    assert span.trace_id == "a" * 32


@settings(max_examples=50, deadline=None)
@given(span_sets())
def test_spans_pickle_and_stay_read_only(spans: list[Span]) -> None:
    # Worker processes (multiprocessing, pytest-xdist) receive spans by pickle.
    back = pickle.loads(pickle.dumps(spans))
    assert_same(back, spans)
    for span in back:
        with pytest.raises(TypeError):
            span.attributes["new"] = 1  # type: ignore[index]


@pytest.mark.parametrize(
    "path",
    [
        "otel-genai/clean.otlp.jsonl",
        "openinference/clean.otlp.pb",
        "claude/refund-stream.jsonl",
        "frameworks/strands/tool-error.otlp.pb",
    ],
)
def test_recorded_traces_and_their_verdicts_pickle(path: str) -> None:
    traces = read_traces(FIXTURES / path)
    assert pickle.loads(pickle.dumps(traces)) == traces
    verdict = check(traces[0], compile_contract(FIXTURES.parent / "contracts/no-shell.yaml"))
    assert pickle.loads(pickle.dumps(verdict)) == verdict
