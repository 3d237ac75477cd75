"""What `tracecheck check` leaves out of its start-up is still there when an input needs it
(bench/README.md, "Command start-up"): each format is sniffed without loading any reader and
read by its own reader, imported then; the typed OTLP/JSON path takes over past a few
megabytes and reads the same spans; patterns compiled on first use compile, and match what
they matched; a report spool that outgrows memory reads back the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tracecheck.conventions import CONVENTIONS, GENERIC
from tracecheck.readers import detect_format, read_traces
from tracecheck.readers.common import ReadContext
from tracecheck.readers.otlp_json import TYPED_AFTER, spans_from_request
from tracecheck.report.safe import _unprintable, printable, xml_safe
from tracecheck.report.spool import _IN_MEMORY, Records, Spool

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CLEAN = FIXTURES / "otel-genai" / "clean.otlp.jsonl"
CONTRACT = ROOT / "contracts" / "refund-desk.json"

# Modules that only an input of some format needs: sniffing loads none of them.
READER_MODULES = (
    "tracecheck.readers.otlp_json",
    "tracecheck.readers.otlp_json_typed",
    "tracecheck.readers.otlp_proto",
    "tracecheck.readers.proto_split",
    "tracecheck.readers.flat",
    "tracecheck.readers.claude",
    "tracecheck.readers.zipkin",
    "tracecheck.readers.jaeger",
    "tracecheck.readers.jaeger_model",
    "tracecheck.readers.otel_js",
    "tracecheck.readers.langfuse_export",
    "tracecheck.readers.tracer_parts",
    "tracecheck.readers.record_index",
    "msgspec",
    "google.protobuf",
)
FLAT_SPANS = json.dumps(
    [{"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "lookup_order", "kind": "TOOL"}]
).encode()

# One input of each format, and the reader module reading it must import.
INPUTS = {
    "otlp-json": (CLEAN, "tracecheck.readers.otlp_json"),
    "otlp-jsonl": (
        FIXTURES / "otel-genai" / "clean-batched.otlp.jsonl",
        "tracecheck.readers.otlp_json",
    ),
    "otlp-proto": (FIXTURES / "otel-genai" / "clean.otlp.pb", "tracecheck.readers.otlp_proto"),
    "spans": (FLAT_SPANS, "tracecheck.readers.flat"),
    "claude-stream": (
        FIXTURES / "claude" / "recorded" / "2.0.77" / "max-turns.stream.jsonl",
        "tracecheck.readers.claude",
    ),
    "zipkin": (FIXTURES / "zipkin" / "clean.zipkin.json", "tracecheck.readers.zipkin"),
    "jaeger": (FIXTURES / "jaeger" / "clean.jaeger.json", "tracecheck.readers.jaeger"),
    "jaeger-model": (
        FIXTURES / "jaeger" / "clean.jaeger-model.json",
        "tracecheck.readers.jaeger_model",
    ),
    "jaeger-api-v3": (
        FIXTURES / "jaeger" / "clean.jaeger-api-v3.json",
        "tracecheck.readers.jaeger_model",
    ),
    "otel-js": (FIXTURES / "otel-js" / "clean.sdk1.json", "tracecheck.readers.otel_js"),
    "langfuse-export": (
        FIXTURES / "langfuse-export" / "clean.trace.json",
        "tracecheck.readers.langfuse_export",
    ),
}


def in_fresh_interpreter(code: str) -> dict[str, object]:
    """What `code` leaves in `result` (JSON), run by a fresh interpreter."""
    script = f"import json, sys\nresult = {{}}\n{code}\nprint(json.dumps(result))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    value: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return value


def test_every_format_has_an_input_here() -> None:
    from tracecheck.formats import FORMATS

    assert sorted(INPUTS) == sorted(FORMATS)


@pytest.mark.parametrize("format", sorted(INPUTS))
def test_each_format_is_sniffed_without_a_reader_and_read_by_its_own(format: str) -> None:
    source, reader = INPUTS[format]
    given = repr(source if isinstance(source, bytes) else str(source))
    result = in_fresh_interpreter(
        "from tracecheck.readers import detect_format, read_traces\n"
        f"readers = {READER_MODULES!r}\n"
        f"result['format'] = detect_format({given})\n"
        "result['sniffing'] = sorted(m for m in sys.modules if m.startswith(readers))\n"
        f"traces = read_traces({given})\n"
        "result['reading'] = sorted(m for m in sys.modules if m.startswith(readers))\n"
        "result['traces'] = [[t.trace_id, [repr(s) for s in t.spans]] for t in traces]\n"
    )
    assert result["format"] == format
    assert result["sniffing"] == []
    reading = result["reading"]
    assert isinstance(reading, list) and reader in reading
    here = [[t.trace_id, [repr(s) for s in t.spans]] for t in read_traces(source)]
    assert result["traces"] == here and here
    assert detect_format(source) == format


def test_check_of_a_small_otlp_file_loads_no_other_reader_and_no_index() -> None:
    result = in_fresh_interpreter(
        "import contextlib, io\n"
        "from tracecheck.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    result['code'] = main(['check', {str(CLEAN)!r}, '--contract', {str(CONTRACT)!r}])\n"
        "result['loaded'] = sorted(sys.modules)\n"
    )
    assert result["code"] == 0
    loaded = result["loaded"]
    assert isinstance(loaded, list)
    unneeded = (*READER_MODULES[1:], "sqlite3", "tempfile", "tracecheck.cli.proxy")
    assert [name for name in loaded if name.startswith(unneeded)] == []
    assert "tracecheck.readers.otlp_json" in loaded


def _numbered_lines(count: int) -> bytes:
    """`count` copies of the clean run's request, each copy its own trace."""
    line = CLEAN.read_bytes().strip()
    trace_id = b"bdfc178765b50e0a8be66e350728be0e"
    assert trace_id in line
    return b"".join(line.replace(trace_id, b"%032x" % (n + 1)) + b"\n" for n in range(count))


def test_the_typed_path_takes_over_past_a_few_megabytes_and_reads_the_same_spans(
    tmp_path: Path,
) -> None:
    small = in_fresh_interpreter(
        "from tracecheck.readers import read_traces\n"
        f"read_traces({str(CLEAN)!r})\n"
        "result['msgspec'] = 'msgspec' in sys.modules\n"
    )
    assert small["msgspec"] is False
    # Read in one interpreter: the first megabytes the general way, the rest the typed way.
    data = _numbered_lines(TYPED_AFTER // len(CLEAN.read_bytes()) + 20)
    assert len(data) > TYPED_AFTER + 100_000
    path = tmp_path / "large.otlp.jsonl"
    path.write_bytes(data)
    large = in_fresh_interpreter(
        "from tracecheck.readers import read_traces\n"
        f"traces = read_traces({str(path)!r})\n"
        "result['typed'] = 'tracecheck.readers.otlp_json_typed' in sys.modules\n"
        "result['spans'] = [repr(s) for t in traces for s in t.spans]\n"
        "result['notes'] = [str(n) for t in traces for n in t.notes]\n"
    )
    assert large["typed"] is True
    general = [
        repr(span)
        for line in data.splitlines()
        for span in spans_from_request(orjson.loads(line), ReadContext("f"), "")
    ]
    assert large["spans"] == general
    assert large["notes"] == []


def test_every_convention_name_pattern_compiles_as_written() -> None:
    rules = [rule for c in (*CONVENTIONS, GENERIC) for rule in c.kinds if rule.name is not None]
    assert rules
    for rule in rules:
        assert rule.pattern is not None and rule.pattern.pattern == rule.name


def test_text_isprintable_refuses_every_character_shown_as_an_escape() -> None:
    """`printable` and `xml_safe` leave text `str.isprintable` accepts as it is: that holds
    because every character their patterns escape is one it refuses."""
    escaped = [c for c in range(sys.maxunicode + 1) if _unprintable().match(chr(c))]
    assert len(escaped) > 2000
    assert not any(chr(c).isprintable() for c in escaped)
    assert printable("a\x1b[31mb\u202e\n") == "a\\x1b[31mb\\u202e\\n"
    assert xml_safe("a\x00\tb") == "a\\x00\tb"
    assert printable("plain text, é, 日本") == "plain text, é, 日本"


def test_a_spool_that_outgrows_memory_reads_back_the_same() -> None:
    records = Records()
    spool = Spool()
    try:
        pieces = [bytes([n % 251]) * 10_000 for n in range(3 * _IN_MEMORY // 10_000)]
        handles = [spool.add_bytes(piece) for piece in pieces]
        for piece in pieces:
            records.append(piece)
        assert [spool.bytes(handle) for handle in handles] == pieces
        assert list(records) == pieces
        mark = records.mark()
        records.append(b"late")
        records.truncate(mark)
        records.append(b"after")
        assert list(records) == [*pieces, b"after"]
    finally:
        records.close()
        spool.close()
