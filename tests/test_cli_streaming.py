"""What `check` and `show` keep while a large input is read: each trace's verdicts or rendering
waits on disk in order (`Records`), with no handle per trace, and what a directory's file that
breaks late made them keep is taken back when the directory is read again without it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main
from tracecheck.readers import by_trace
from tracecheck.report.spool import JsonPieces, Records, Spool

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
FIXTURES = ROOT / "fixtures" / "otel-genai"
CLEAN, FORBIDDEN = "bdfc178765b50e0a8be66e350728be0e", "168b0270d96edde63163f0a84510227f"


@pytest.fixture
def indexed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every record file indexed, however small (the CLI reads small files whole)."""
    monkeypatch.setattr(by_trace, "WHOLE_BELOW", 0)
    yield


@pytest.fixture
def late(tmp_path: Path) -> Path:
    """A passing run, then a failing run whose trace also has spans in a third file (of two
    lines: indexed, not read whole) with a time that is no number: found only once that trace
    is read, after the first trace was checked."""
    root = tmp_path / "runs"
    root.mkdir()
    shutil.copy(FIXTURES / "clean.otlp.jsonl", root / "a.otlp.jsonl")
    shutil.copy(FIXTURES / "forbidden.otlp.jsonl", root / "b.otlp.jsonl")
    line = (FIXTURES / "forbidden.otlp.jsonl").read_bytes()
    broken = line.replace(b'"startTimeUnixNano":"', b'"startTimeUnixNano":"soon', 1)
    assert broken != line
    (root / "c.otlp.jsonl").write_bytes(broken.rstrip(b"\n") + b"\n" + broken)
    return root


def test_check_gives_each_verdict_once_when_a_file_breaks_late(
    indexed: None, late: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(late), "--contract", CONTRACT, "--json", "-"])
    assert code == ExitCode.UNREADABLE
    report = json.loads(capsys.readouterr().out)
    assert [result["trace_id"] for result in report["results"]] == [CLEAN, FORBIDDEN]
    assert [entry["source"] for entry in report["unread"]] == [str(late / "c.otlp.jsonl")]


def test_show_gives_each_trace_once_when_a_file_breaks_late(
    indexed: None, late: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(late), "--json"]) == ExitCode.UNREADABLE
    shown = json.loads(capsys.readouterr().out)
    assert [trace["trace_id"] for trace in shown["traces"]] == [CLEAN, FORBIDDEN]
    main(["show", str(late)])
    text = capsys.readouterr().out
    assert text.count(f"trace {CLEAN}") == 1
    assert text.count(f"trace {FORBIDDEN}") == 1


def test_records_come_back_in_order_and_a_mark_takes_later_ones_back() -> None:
    records = Records()
    try:
        records.append(b"first")
        mark = records.mark()
        records.append(b"")
        records.add_text("dropped \udc80")  # a lone surrogate survives the round trip
        seen = iter(records)
        assert next(seen) == b"first"
        records.append(b"appended while reading")  # not given to a reader already started
        assert list(seen) == [b"", "dropped \udc80".encode("utf-8", "surrogatepass")]
        records.truncate(mark)
        assert len(records) == 1
        records.add_text("kept")
        assert list(records.texts()) == ["first", "kept"]
        big = bytes(range(256)) * 4096  # past what is held in memory
        records.append(big)
        assert list(records)[-1] == big and len(records) == 3
    finally:
        records.close()


def test_json_pieces_listed_fall_back_to_ascii_with_the_rest_of_the_document() -> None:
    spool = Spool()
    pieces = JsonPieces(spool)
    try:
        pieces.append({"a": "é"})
        head = pieces.add("x")
        assert list(pieces.appended()) == ['{\n  "a": "é"\n}']
        pieces.append({"b": "\udc80"})  # orjson refuses a lone surrogate: all go ASCII
        assert list(pieces.appended()) == ['{\n  "a": "\\u00e9"\n}', '{\n  "b": "\\udc80"\n}']
        assert pieces.text(head) == '"x"'
    finally:
        pieces.close()
        spool.close()
