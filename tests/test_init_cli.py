"""`tracecheck init`: the draft on stdout or in a file it will not overwrite unasked, the exit
codes of the other commands (usage 2, unreadable input 3), and the examples docs/init.md shows,
run as written."""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest

from tracecheck import read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.cli.environment import Environment
from tracecheck.init import draft_from_runs

ROOT = Path(__file__).resolve().parent.parent
CLEAN = "fixtures/otel-genai/clean.otlp.jsonl"
FORBIDDEN = "fixtures/otel-genai/forbidden.otlp.jsonl"
TOOLS = "fixtures/mcp/refund-desk.mcp-2.3.0.response.json"
EMBED = "fixtures/producers/vercel-ai-v5/embed.otlp.json"
PAGE = ROOT / "docs" / "init.md"


@pytest.fixture(autouse=True)
def _at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the paths the docs show, as drafts name them


def run(*argv: str, stdin: str = "", encoding: str = "utf-8") -> tuple[int, str, str]:
    """The code, stdout (its bytes read as UTF-8) and stderr of one command; `encoding` is
    the streams' own."""
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    err = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    code = main(list(argv), env=Environment(io.StringIO(stdin), out, err, {}))
    out.flush()
    err.flush()
    return code, _bytes(out).decode("utf-8"), _bytes(err).decode(encoding)


def _bytes(stream: io.TextIOWrapper) -> bytes:
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue()


def test_the_draft_is_utf_8_whatever_the_terminal_encodes() -> None:
    """A stdout that encodes only ASCII (PYTHONIOENCODING=ascii) gets the draft's UTF-8
    bytes, as a file would, not an internal error."""
    code, out, _ = run("init", CLEAN, encoding="ascii")
    assert code == ExitCode.OK
    assert out == draft_from_runs(read_traces(CLEAN)).yaml()
    assert not out.isascii()  # the draft has characters ASCII cannot hold


def test_the_draft_goes_to_stdout_and_checks_its_runs() -> None:
    code, out, err = run("init", CLEAN, FORBIDDEN, "--name", "refund-desk")
    assert code == ExitCode.OK and err == ""
    runs = [*read_traces(CLEAN), *read_traces(FORBIDDEN)]
    assert out == draft_from_runs(runs, name="refund-desk").yaml()


def test_the_draft_written_to_a_file_lints_and_passes_the_runs(tmp_path: Path) -> None:
    target = tmp_path / "refund-desk.contract.yaml"
    code, out, err = run("init", CLEAN, FORBIDDEN, "-o", str(target))
    assert (code, out, err) == (ExitCode.OK, "", f"wrote {target}\n")
    assert run("lint", str(target))[0] == ExitCode.OK
    assert run("check", CLEAN, FORBIDDEN, "--contract", str(target))[0] == ExitCode.OK
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # nothing staged is left


def test_an_existing_file_is_overwritten_only_with_force(tmp_path: Path) -> None:
    target = tmp_path / "draft.yaml"
    target.write_text("mine\n")
    code, _, err = run("init", CLEAN, "-o", str(target))
    assert code == ExitCode.USAGE
    assert err == f"tracecheck: error: {target} exists: pass --force to overwrite it\n"
    assert target.read_text() == "mine\n"
    assert run("init", CLEAN, "-o", str(target), "--force")[0] == ExitCode.OK
    assert target.read_text().startswith("# A contract draft")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "give one or more runs, or --from-mcp TOOLS.json"),
        ((CLEAN, "--from-mcp", TOOLS), "give runs or --from-mcp, not both"),
        (("--from-mcp", TOOLS, "--trace-id", "ab"), "--format and --trace-id read runs"),
        ((CLEAN, "--name", " "), "--name needs a name"),
    ],
)
def test_usage_errors_exit_2(argv: tuple[str, ...], message: str) -> None:
    code, out, err = run("init", *argv)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.startswith(f"tracecheck: error: {message}")


def test_a_run_that_cannot_be_read_stops_the_draft(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    code, out, err = run("init", CLEAN, str(missing))
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert "no draft written: every run must be read" in err


def test_runs_with_nothing_to_draft_exit_3() -> None:
    code, out, err = run("init", EMBED)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err == (
        "tracecheck: error: no trace records a tool call or a model call, so there is no run "
        "to draft from\n"
    )


def test_the_mcp_draft_from_a_file_and_from_stdin() -> None:
    code, out, err = run("init", "--from-mcp", TOOLS)
    assert code == ExitCode.OK and err == ""
    assert out.startswith("# A contract draft written by `tracecheck init --from-mcp`")
    answer = (ROOT / TOOLS).read_text()
    assert run("init", "--from-mcp", "-", stdin=answer) == (ExitCode.OK, out, "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"tools": [', "<stdin>: line 1, column 12: malformed JSON: Expecting value"),
        ('{"tools": 3}', "<stdin>: tools: must be a list of tools, not a number"),
        (
            '{"jsonrpc": "2.0", "id": 2, "error": {"code": -1, "message": "no"}}',
            "<stdin>: error: the answer is a JSON-RPC error, not a tools/list result",
        ),
    ],
)
def test_an_answer_that_is_not_a_tool_list_exits_3(text: str, message: str) -> None:
    code, out, err = run("init", "--from-mcp", "-", stdin=text)
    assert (code, out, err) == (ExitCode.UNREADABLE, "", f"tracecheck: error: {message}\n")


def test_a_tools_file_that_cannot_be_read_exits_3(tmp_path: Path) -> None:
    code, _, err = run("init", "--from-mcp", str(tmp_path / "none.json"))
    assert code == ExitCode.UNREADABLE
    assert (
        err
        == f"tracecheck: error: {tmp_path / 'none.json'}: cannot be read: No such file or directory\n"
    )


def test_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "exit codes:" in out and "--from-mcp TOOLS.json" in out and "--force" in out


# --- the page's examples -------------------------------------------------------------------

_EXAMPLE = re.compile(r"<!-- init-example: (.+?) -->\n```yaml\n(.*?)```\n", re.S)


def test_the_page_shows_what_each_example_writes() -> None:
    examples = _EXAMPLE.findall(PAGE.read_text(encoding="utf-8"))
    assert len(examples) == 2
    for argv, shown in examples:
        code, out, _ = run("init", *shlex.split(argv))
        assert code == ExitCode.OK
        assert out == shown, f"docs/init.md shows a stale draft for: tracecheck init {argv}"


def test_the_pages_doubt_excerpt_is_what_a_draft_says() -> None:
    page = PAGE.read_text(encoding="utf-8")
    excerpt = page.split("draft says so in its header, with the reason:\n\n```yaml\n", 1)[1]
    excerpt = excerpt.split("```", 1)[0]
    code, out, _ = run("init", "fixtures/producers/autogen/assistant/clean.otlp.jsonl")
    assert code == ExitCode.OK
    assert excerpt in out


def test_the_pages_library_example_runs() -> None:
    page = PAGE.read_text(encoding="utf-8")
    code = page.split("<!-- init-library-example -->\n```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, str(PAGE), "exec"), {"print": lambda *_: None})


def test_the_public_names() -> None:
    import tracecheck.init

    assert sorted(tracecheck.init.__all__) == [
        "Draft",
        "NothingToDraft",
        "ToolListError",
        "draft_from_mcp",
        "draft_from_runs",
    ]
    for name in tracecheck.init.__all__:
        assert hasattr(tracecheck.init, name), name
    page = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    assert all(f"`{name}" in page for name in tracecheck.init.__all__)


def test_what_to_review_first_is_said_on_stderr_too() -> None:
    code, out, err = run("init", "fixtures/producers/autogen/assistant/clean.otlp.jsonl")
    assert code == ExitCode.OK
    assert err.startswith("note: Capture doubt in run 1: 2 tool calls are recorded but no model")
    assert "# Capture doubt in run 1:" in out


def test_an_output_that_cannot_be_written_exits_2(tmp_path: Path) -> None:
    code, _, err = run("init", CLEAN, "-o", str(tmp_path))
    assert (code, err) == (ExitCode.USAGE, f"tracecheck: error: {tmp_path} is a directory\n")
    target = tmp_path / "no-such-folder" / "draft.yaml"
    code, _, err = run("init", CLEAN, "-o", str(target))
    assert code == ExitCode.USAGE
    assert err.startswith(f"tracecheck: error: {target}: cannot be written: ")
    assert list(tmp_path.iterdir()) == []
