"""Reading a directory, every report names the file that holds each trace, never the
directory: text, JSON, JUnit, GitHub annotations, `show` (tree and JSON) and read notes. A trace
spread over several files names all of them. A single file or standard input is named as given,
as before."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tracecheck.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
FIXTURES = ROOT / "fixtures" / "otel-genai"
CLEAN, FORBIDDEN, SPREAD = (
    "bdfc178765b50e0a8be66e350728be0e",
    "168b0270d96edde63163f0a84510227f",
    "52f09d6853832b5cf557135080b26892",
)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A passing run, a failing run, and a run whose three batches are spread over two files."""
    root = tmp_path / "runs"
    (root / "split").mkdir(parents=True)
    shutil.copy(FIXTURES / "clean.otlp.jsonl", root / "a.otlp.jsonl")
    shutil.copy(FIXTURES / "forbidden.otlp.jsonl", root / "b.otlp.jsonl")
    lines = (FIXTURES / "clean-batched.otlp.jsonl").read_bytes().splitlines(keepends=True)
    (root / "split" / "1.otlp.jsonl").write_bytes(lines[0])
    (root / "split" / "2.otlp.jsonl").write_bytes(b"".join(lines[1:]))
    (root / "README.md").write_text("# recorded runs\n")
    return root


def files(runs: Path) -> dict[str, str]:
    return {
        CLEAN: str(runs / "a.otlp.jsonl"),
        FORBIDDEN: str(runs / "b.otlp.jsonl"),
        SPREAD: f"{runs / 'split' / '1.otlp.jsonl'}, {runs / 'split' / '2.otlp.jsonl'}",
    }


def test_text_names_each_trace_file(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(runs), "--contract", CONTRACT, "-q"]) == ExitCode.FAILED
    out = capsys.readouterr().out.splitlines()
    named = files(runs)
    assert out == [
        f'{named[CLEAN]}: trace {CLEAN}: contract "refund-desk" PASS (9/9 rules passed)',
        f'{named[FORBIDDEN]}: trace {FORBIDDEN}: contract "refund-desk" FAIL (8/9 rules passed)',
        f'{named[SPREAD]}: trace {SPREAD}: contract "refund-desk" PASS (9/9 rules passed)',
    ]


def test_json_names_each_trace_file_and_every_file_of_a_spread_trace(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["check", str(runs), "--contract", CONTRACT, "--json", "-"])
    results = json.loads(capsys.readouterr().out)["results"]
    split = [str(runs / "split" / "1.otlp.jsonl"), str(runs / "split" / "2.otlp.jsonl")]
    assert [(r["trace_id"], r["source"], r.get("sources")) for r in results] == [
        (CLEAN, str(runs / "a.otlp.jsonl"), None),
        (FORBIDDEN, str(runs / "b.otlp.jsonl"), None),
        (SPREAD, split[0], split),
    ]


def test_junit_properties_name_each_trace_file(runs: Path, tmp_path: Path) -> None:
    junit = tmp_path / "out.xml"
    main(["check", str(runs), "--contract", CONTRACT, "--junit", str(junit), "-q"])
    suites = ET.parse(junit).getroot().findall("testsuite")
    found = [{p.get("name"): p.get("value") for p in suite.iter("property")} for suite in suites]
    split = [str(runs / "split" / "1.otlp.jsonl"), str(runs / "split" / "2.otlp.jsonl")]
    assert [(p["trace.id"], p["trace.source"], p.get("trace.sources")) for p in found] == [
        (CLEAN, str(runs / "a.otlp.jsonl"), None),
        (FORBIDDEN, str(runs / "b.otlp.jsonl"), None),
        (SPREAD, split[0], "\n".join(split)),
    ]


def test_annotations_point_at_the_file(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(runs), "--contract", CONTRACT, "--annotations", "-q"])
    annotations = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")
    ]
    assert annotations
    escaped = str(runs / "b.otlp.jsonl").replace(":", "%3A").replace(",", "%2C")
    assert all(line.startswith(f"::error file={escaped},title=") for line in annotations)


def test_show_names_each_trace_file(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(runs)]) == ExitCode.OK
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("trace ")]
    named = files(runs)
    assert [line.split("  ")[0] for line in headers] == [
        f"trace {CLEAN}",
        f"trace {FORBIDDEN}",
        f"trace {SPREAD}",
    ]
    ends = [line.endswith(f" · {named[t]}") for t, line in zip(named, headers, strict=True)]
    assert ends == [True] * 3


def test_show_json_names_each_trace_file(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["show", str(runs), "--json"])
    traces = json.loads(capsys.readouterr().out)["traces"]
    split = [str(runs / "split" / "1.otlp.jsonl"), str(runs / "split" / "2.otlp.jsonl")]
    assert [(t["trace_id"], t["source"], t.get("sources")) for t in traces] == [
        (CLEAN, str(runs / "a.otlp.jsonl"), None),
        (FORBIDDEN, str(runs / "b.otlp.jsonl"), None),
        (SPREAD, split[0], split),
    ]
    assert list(traces[0])[:2] == ["trace_id", "source"]


def test_a_note_about_repeated_spans_names_the_file_that_repeats_them(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(runs / "a.otlp.jsonl", runs / "c-again.otlp.jsonl")
    main(["check", str(runs), "--contract", CONTRACT, "-q"])
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if line.startswith("note: ")]
    assert notes == [
        f"note: {runs / 'c-again.otlp.jsonl'}: trace {CLEAN}: 11 spans are recorded more than "
        "once: " + notes[0].split("more than once: ")[1]
    ]
    assert notes[0].endswith("only the first copy is kept")
    first = captured.out.splitlines()[0]
    assert first.startswith(f"{runs / 'a.otlp.jsonl'}, {runs / 'c-again.otlp.jsonl'}: ")


def test_a_single_file_and_stdin_are_named_as_given(
    runs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    given = str(runs / "split" / ".." / "a.otlp.jsonl")
    main(["check", given, "--contract", CONTRACT, "--json", "-"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (result["source"], "sources" in result) == (given, False)
    main(["show", given, "--json"])
    (trace,) = json.loads(capsys.readouterr().out)["traces"]
    assert "source" not in trace
    main(["show", given])
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith(f"trace {CLEAN}  11 span(s)")
    assert str(runs) not in header

    class Stdin:
        buffer = (runs / "b.otlp.jsonl").open("rb")

    monkeypatch.setattr("sys.stdin", Stdin)
    main(["check", "-", "--contract", CONTRACT, "--json", "-"])
    Stdin.buffer.close()
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["source"] == "<stdin>"
