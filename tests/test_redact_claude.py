"""`tracecheck redact` on Claude Code records written back as records (stream-json, the Agent
SDK's stdout, session transcripts): every string redacted in place, the JSONL shape and the
structure kept, so that the file reads as the same run and passes the gate; the gate finds
each planted secret in the unredacted file; exit codes.

The records are real recordings (fixtures/claude/recorded/, CLI 2.0.77, 2.1.30, 2.1.332) with
fake secrets planted at run time, each glued together from parts.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact import share_allowed
from redact.profiles import resolve_profile
from redact.records import RecordAssessor, RecordRedactor, dotted_path
from tracecheck import iter_spans
from tracecheck.cli import ExitCode, main
from tracecheck.errors import TraceReadError
from tracecheck.readers import detect_format
from tracecheck.sharing.recorded_bytes import with_recorded
from tracecheck.sharing.recorded_claude import claude_verdicts
from tracecheck.writers.claude import redact_claude_records

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "claude" / "recorded"
TRANSCRIPT = RECORDED / "2.1.30/refund.transcript/87763f5c-968e-4c93-8900-582c8d7b41e4.jsonl"
INTERACTIVE = (
    RECORDED / "2.1.30/subagent-interactive.transcript/decc9695-cd0b-4b10-8ed2-3e9ed8b5c85a.jsonl"
)
STREAM = RECORDED / "2.1.332/refund.stream.jsonl"
PARTIAL = RECORDED / "2.1.332/refund-partial.stream.jsonl"
ALL_RECORDED = sorted(RECORDED.rglob("*.jsonl"))

PROVIDER_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
ANTHROPIC_KEY = "sk-" + "ant-" + "api03-" + "FAKEfakeFAKEfake0123456789"
GITHUB_TOKEN = "gh" + "p_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5"
AWS_KEY = "AK" + "IA" + "FAKE2345FAKE2345"
JWT = ".".join(["ey" + "JhbGciOiJIUzI1NiJ9", "eyJzdWIiOiIxMjMifQ", "SflKxwRJSMeKKF2QT4fwpMeJf36"])
EMAIL = "jane.doe" + "@" + "example.com"
PASSPHRASE = "correct horse " + "battery staple"
KNOWN = "zq9 Opaque/" + "Deploy Key 77"  # no detector knows it: only --known-secret-env
PLANTED = (PROVIDER_KEY, ANTHROPIC_KEY, GITHUB_TOKEN, AWS_KEY, JWT, EMAIL, PASSPHRASE, KNOWN)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(48))).decode()


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_KEY", KNOWN)
    monkeypatch.delenv("TRACECHECK_PSEUDONYM_KEY", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    # Compact, as Claude Code writes its records.
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def forms(secret: str) -> list[bytes]:
    """The secret as written, JSON-escaped, base64 (standard and url-safe) and percent-encoded."""
    raw = secret.encode()
    return [
        raw,
        json.dumps(secret)[1:-1].encode(),
        base64.b64encode(raw).rstrip(b"="),
        base64.urlsafe_b64encode(raw).rstrip(b"="),
        urllib.parse.quote(secret, safe="").encode(),
    ]


def no_secret_in(*data: bytes | str) -> None:
    for text in data:
        blob = text.encode() if isinstance(text, str) else text
        found = [s for s in PLANTED for form in forms(s) if form in blob]
        assert found == []


def facts(path: Path) -> list[tuple[Any, ...]]:
    """What a contract reads of each span: ids, kind, tool, model, tokens, times, status."""
    return sorted(
        (
            (
                s.span_id,
                s.parent_span_id,
                s.kind,
                s.tool_name,
                s.model,
                s.tokens,
                s.start_ns,
                s.end_ns,
                s.status,
                s.attributes.get("gen_ai.tool.call.id"),
            )
            for s in iter_spans(path, format="claude-stream")
        ),
        key=repr,
    )


def show(path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """`show --json`, the file's name (in notes) written as `FILE`."""
    capsys.readouterr()
    assert main(["show", "--json", str(path)]) == 0
    return json.loads(capsys.readouterr().out.replace(str(path), "FILE"))


def redact(source: Path, out: Path, *extra: str) -> int:
    return main(["redact", str(source), "-o", str(out), *extra])


def verify(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """verify-safe's exit code and the status it prints for `path`."""
    capsys.readouterr()
    code = main(["verify-safe", str(path), *args])
    first = capsys.readouterr().out.splitlines()[0]
    return code, first.removeprefix(f"{path}: ")


# --- where secrets stand in real records -----------------------------------------------------


def _line(records: list[dict[str, Any]], kind: str, block: str, nth: int = 0) -> dict[str, Any]:
    """The nth record of a type whose message holds a block of that type."""
    found = [
        r
        for r in records
        if r.get("type") == kind
        and isinstance(r["message"]["content"], list)
        and r["message"]["content"][0]["type"] == block
    ]
    return found[nth]


def assistant_text(records: list[dict[str, Any]]) -> None:
    _line(records, "assistant", "text")["message"]["content"][0]["text"] += f" {EMAIL}"


def thinking(records: list[dict[str, Any]]) -> None:
    _line(records, "assistant", "thinking")["message"]["content"][0]["thinking"] += GITHUB_TOKEN


def tool_input(records: list[dict[str, Any]]) -> None:
    bash = next(r for r in records if r["type"] == "assistant" and "Bash" in json.dumps(r))
    block = bash["message"]["content"][0]
    block["input"]["command"] = f"curl -H 'Authorization: Bearer {JWT}' https://api.test"


def nested_tool_result(records: list[dict[str, Any]]) -> None:
    result = _line(records, "user", "tool_result")["message"]["content"][0]
    result["content"] = [
        {"type": "text", "text": "the order file"},
        {"type": "text", "text": f"OPENAI_API_KEY={PROVIDER_KEY}"},
    ]


def beside_an_image(records: list[dict[str, Any]]) -> None:
    result = _line(records, "user", "tool_result")["message"]["content"][0]
    result["content"] = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "text", "text": f"screenshot of the console: key {ANTHROPIC_KEY}"},
    ]


def tool_use_result_stdout(records: list[dict[str, Any]]) -> None:
    bash = _line(records, "user", "tool_result", 2)
    bash["toolUseResult"] = {
        "stdout": f"AWS_ACCESS_KEY_ID={AWS_KEY}\n",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
    }


def file_history(records: list[dict[str, Any]]) -> None:
    first = records[1]
    records.insert(
        0,
        {
            "type": "file-history-snapshot",
            "messageId": first["uuid"],
            "snapshot": {
                "messageId": first["uuid"],
                "trackedFileBackups": {
                    "/tmp/tracecheck-claude/refund-desk/.env": {
                        "backupFileName": f"env@v1 GITHUB_TOKEN={GITHUB_TOKEN}",
                        "version": 1,
                        "backupTime": first["timestamp"],
                    }
                },
                "timestamp": first["timestamp"],
            },
            "isSnapshotUpdate": False,
        },
    )


def working_directory(records: list[dict[str, Any]]) -> None:
    for record in records:
        if "cwd" in record:
            record["cwd"] = f"/home/dev/{PROVIDER_KEY}/refund-desk"


def git_branch(records: list[dict[str, Any]]) -> None:
    for record in records:
        if "gitBranch" in record:
            record["gitBranch"] = f"fix/{GITHUB_TOKEN}"


def summary(records: list[dict[str, Any]]) -> None:
    records.insert(
        0, {"type": "summary", "summary": f"Refund for {EMAIL}", "leafUuid": records[-1]["uuid"]}
    )


def json_in_a_tool_result(records: list[dict[str, Any]]) -> None:
    result = _line(records, "user", "tool_result", 3)["message"]["content"][0]
    result["content"] = json.dumps({"status": "denied", "db": {"password": PASSPHRASE}})


def key_that_holds_a_token(records: list[dict[str, Any]]) -> None:
    grep = next(r for r in records if r["type"] == "assistant" and "Grep" in json.dumps(r))
    grep["message"]["content"][0]["input"][GITHUB_TOKEN] = True


def known_secret_in_base64(records: list[dict[str, Any]]) -> None:
    # At byte offset 1 inside a base64 run in prose, where a whole-string decode cannot see it.
    payload = base64.b64encode(b"x" + KNOWN.encode() + b"y").decode()
    final = [r for r in records if r["type"] == "assistant"][-1]
    final["message"]["content"][0]["text"] += f" (ref {payload})"


def _image(records: list[dict[str, Any]], media_type: str, data: bytes) -> None:
    result = _line(records, "user", "tool_result")["message"]["content"][0]
    source = {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()}
    result["content"] = [{"type": "image", "source": source}]


def known_secret_in_an_image(records: list[dict[str, Any]]) -> None:
    # The secret's bytes inside the picture: its base64 form stands in the payload.
    _image(records, "image/png", b"\x89PNG\r\n\x1a\n" + KNOWN.encode() + bytes(range(20)))


def token_in_an_svg_image(records: list[dict[str, Any]]) -> None:
    # An SVG is text: what it says is read, not passed on as a picture.
    _image(records, "image/svg+xml", f"<svg><text>{GITHUB_TOKEN}</text></svg>".encode())


def key_written_in_an_image_payload(records: list[dict[str, Any]]) -> None:
    # Valid base64 whose text spells an access key: the payload as written is read too.
    result = _line(records, "user", "tool_result")["message"]["content"][0]
    payload = f"{PNG[:8]}/{AWS_KEY}/AA"
    assert len(payload) % 4 == 0 and base64.b64decode(payload, validate=True)
    source = {"type": "base64", "media_type": "image/png", "data": payload}
    result["content"] = [{"type": "image", "source": source}]


CASES: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "assistant text": assistant_text,
    "thinking": thinking,
    "tool_use input": tool_input,
    "nested tool_result content": nested_tool_result,
    "text beside a base64 image": beside_an_image,
    "toolUseResult.stdout": tool_use_result_stdout,
    "file-history snapshot": file_history,
    "cwd": working_directory,
    "gitBranch": git_branch,
    "summary": summary,
    "JSON held in a tool result": json_in_a_tool_result,
    "a key that holds a token": key_that_holds_a_token,
    "a known secret at base64 offset 1": known_secret_in_base64,
    "a known secret inside a base64 image": known_secret_in_an_image,
    "a token inside a base64 SVG image": token_in_an_svg_image,
    "an access key written in an image payload": key_written_in_an_image_payload,
}


def planted(tmp_path: Path, *cases: str, source: Path = TRANSCRIPT) -> Path:
    records = load(source)
    for case in cases:
        CASES[case](records)
    return write(tmp_path / source.name, records)


@pytest.mark.parametrize("case", CASES)
def test_the_gate_finds_the_planted_secret_and_redact_removes_it(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaky = planted(tmp_path, case)
    known = ["--known-secret-env", "DEPLOY_KEY"]
    assert verify(leaky, capsys, *known) == (ExitCode.FAILED, "UNSAFE")
    out = tmp_path / "shared.jsonl"
    assert redact(leaky, out, *known) == ExitCode.OK
    written = out.read_bytes()
    no_secret_in(written, capsys.readouterr().err)
    assert verify(out, capsys, *known) in (
        (ExitCode.OK, "SAFE"),
        (ExitCode.OK, "SAFE_WITH_WARNINGS"),
    )
    # The same run: the same spans, tool calls, models and token counts as the recording.
    assert facts(out) == facts(leaky)
    assert show(out, capsys) == show(leaky, capsys)
    before, after = load(leaky), load(out)
    assert len(after) == len(before)
    assert [list(r) for r in after] == [list(r) for r in before] or case.startswith("a key")


@pytest.mark.parametrize(
    "case", ["a known secret inside a base64 image", "a token inside a base64 SVG image"]
)
def test_a_picture_holding_a_secret_is_unsafe_under_share_and_redacted(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The gate and the redactor agree about a picture: what one cuts, the other finds.
    leaky = planted(tmp_path, case)
    args = ["--profile", "share", "--known-secret-env", "DEPLOY_KEY"]
    assert main(["verify-safe", str(leaky), *args]) == ExitCode.FAILED
    assert capsys.readouterr().out.startswith(f"{leaky}: UNSAFE\n")
    out = tmp_path / "shared.jsonl"
    assert redact(leaky, out, *args) == ExitCode.OK
    no_secret_in(out.read_bytes())
    assert main(["verify-safe", str(out), *args]) == ExitCode.OK
    capsys.readouterr()


def test_a_known_secret_is_found_only_when_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaky = planted(tmp_path, "a known secret at base64 offset 1")
    assert main(["verify-safe", str(leaky)]) == ExitCode.OK
    assert main(["verify-safe", str(leaky), "--known-secret-env", "DEPLOY_KEY"]) == 1
    assert "credential (known-secret) ×1 at /line 13/message/content/0/text" in (
        capsys.readouterr().out
    )


def test_a_known_secret_is_cut_in_every_encoding(tmp_path: Path) -> None:
    records = load(TRANSCRIPT)
    text = _line(records, "assistant", "text")["message"]["content"][0]
    written = [
        KNOWN,
        base64.b64encode(KNOWN.encode()).decode(),
        base64.urlsafe_b64encode(b"ab" + KNOWN.encode()).decode(),
        urllib.parse.quote(KNOWN),
        urllib.parse.quote_plus(KNOWN),
        KNOWN.encode().hex(),
        KNOWN.encode().hex().upper(),
    ]
    text["text"] = " | ".join(written)
    # JSON-escaped inside JSON held in a string, and as a key.
    result = _line(records, "user", "tool_result")["message"]["content"][0]
    result["content"] = json.dumps({"note": f'"{KNOWN}"', KNOWN: 1})
    leaky = write(tmp_path / "leaky.jsonl", records)
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out, "--known-secret-env", "DEPLOY_KEY") == 0
    data = out.read_bytes()
    no_secret_in(data)
    assert KNOWN.encode().hex().encode() not in data
    assert KNOWN.encode().hex().upper().encode() not in data
    assert main(["verify-safe", str(out), "--known-secret-env", "DEPLOY_KEY"]) == 0


def test_a_secret_streamed_in_pieces_is_found_joined_and_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Partial messages send text a few characters at a time: the key is cut across two deltas,
    # where neither piece reads as a key.
    records = load(PARTIAL)
    deltas = [
        r
        for r in records
        if r["type"] == "stream_event" and r["event"].get("delta", {}).get("type") == "text_delta"
    ]
    first, second = deltas[0], deltas[1]
    first["event"]["delta"]["text"] += PROVIDER_KEY[:10]
    second["event"]["delta"]["text"] = PROVIDER_KEY[10:] + " " + second["event"]["delta"]["text"]
    leaky = write(tmp_path / "partial.stream.jsonl", records)
    assert main(["verify-safe", str(leaky)]) == ExitCode.FAILED
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out) == 0
    after = load(out)
    pieces = [
        r["event"]["delta"]["text"] for r in after if r["uuid"] in (first["uuid"], second["uuid"])
    ]
    joined = "".join(pieces)
    assert PROVIDER_KEY not in joined
    assert joined == "[REDACTED:provider-key]"  # the block held the key: it goes whole
    assert pieces[1] == ""  # the first piece carries the redacted whole
    assert main(["verify-safe", str(out)]) == 0
    assert facts(out) == facts(leaky)
    capsys.readouterr()


def test_the_streamed_tool_input_is_redacted_as_the_json_it_is(tmp_path: Path) -> None:
    records = load(PARTIAL)
    deltas = [
        r
        for r in records
        if r["type"] == "stream_event"
        and r["event"].get("delta", {}).get("type") == "input_json_delta"
    ]
    # `{"command": "echo … >>` + ` refunds.log", "description": …}`, the password between them.
    first, second = deltas[4], deltas[5]
    assert first["event"]["delta"]["partial_json"].startswith('{"command"')
    first["event"]["delta"]["partial_json"] += " --password="
    second["event"]["delta"]["partial_json"] = (
        "hunter2hunter2" + second["event"]["delta"]["partial_json"]
    )
    leaky = write(tmp_path / "partial.stream.jsonl", records)
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out) == 0
    streamed = {r["uuid"]: r for r in load(out)}
    whole = streamed[first["uuid"]]["event"]["delta"]["partial_json"]
    assert streamed[second["uuid"]]["event"]["delta"]["partial_json"] == ""
    arguments = json.loads(whole)
    assert arguments["description"] == "Log the refund"
    assert "hunter2" not in whole


# --- the shape and the reading are kept ------------------------------------------------------


@pytest.mark.parametrize("source", ALL_RECORDED, ids=lambda p: str(p.relative_to(RECORDED)))
def test_every_recording_reads_as_the_same_run_once_redacted(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for profile in ("share", "strict"):
        out = tmp_path / f"{profile}.jsonl"
        assert redact(source, out, "--profile", profile) == ExitCode.OK
        assert detect_format(out) == "claude-stream"
        assert facts(out) == facts(source)
        assert main(["verify-safe", str(out), "--profile", profile]) == ExitCode.OK
        before, after = load(source), load(out)
        assert [list(r) for r in after] == [list(r) for r in before]
        # uuids, parents, sessions, times, types and message ids stay as they were.
        for old, new in zip(before, after, strict=True):
            for key in ("uuid", "parentUuid", "sessionId", "session_id", "timestamp", "type"):
                assert new.get(key) == old.get(key)
            if isinstance(old.get("message"), dict):
                for key in ("id", "model", "usage", "role"):
                    assert new["message"].get(key) == old["message"].get(key)
    capsys.readouterr()


def test_records_nothing_was_found_in_are_written_byte_for_byte(tmp_path: Path) -> None:
    leaky = planted(tmp_path, "thinking")
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out) == 0
    before, after = leaky.read_bytes().splitlines(True), out.read_bytes().splitlines(True)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True), 1) if a != b]
    thought = [i for i, line in enumerate(before, 1) if b'"thinking"' in line]
    assert changed == thought
    record = json.loads(after[thought[0] - 1])
    assert record["message"]["content"][0]["thinking"] == "[REDACTED:github-token]"


def test_a_record_file_without_a_trailing_newline_or_with_crlf_keeps_its_line_ends(
    tmp_path: Path,
) -> None:
    lines = TRANSCRIPT.read_bytes().splitlines()
    text = json.loads(lines[3])
    text["message"]["content"][0]["text"] += f" {EMAIL}"
    lines[3] = orjson.dumps(text)
    source = tmp_path / "crlf.jsonl"
    source.write_bytes(b"\r\n".join(lines))
    out = tmp_path / "out.jsonl"
    assert redact(source, out) == 0
    written = out.read_bytes()
    assert written.count(b"\r\n") == len(lines) - 1 and not written.endswith(b"\n")
    no_secret_in(written)


def test_strict_keeps_the_structure_and_removes_the_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaky = planted(tmp_path, "toolUseResult.stdout", "JSON held in a tool result")
    assert main(["verify-safe", str(TRANSCRIPT), "--profile", "strict"]) == ExitCode.FAILED
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out, "--profile", "strict") == 0
    assert main(["verify-safe", str(out), "--profile", "strict"]) == 0
    records = load(out)
    contents = [r["message"]["content"] for r in records if "message" in r]
    blocks = [b for content in contents if isinstance(content, list) for b in content]
    texts = [b.get("text", b.get("thinking")) for b in blocks if b["type"] in ("text", "thinking")]
    assert set(texts) == {"[REDACTED:raw-content-key]"}
    calls = [b for b in blocks if b["type"] == "tool_use"]
    assert [b["name"] for b in calls] == ["Read", "Grep", "Bash", "Write"]
    assert {b["input"] for b in calls} == {"[REDACTED:raw-content-key]"}
    assert all(b["id"].startswith("toolu_") for b in calls)
    stdout = [r["toolUseResult"] for r in records if "stdout" in str(r.get("toolUseResult"))]
    assert stdout == [
        {
            "stdout": "[REDACTED:raw-content-key]",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        }
    ]
    assert show(out, capsys) == show(leaky, capsys)


def test_a_tool_result_holding_json_is_redacted_as_json_in_its_layout(tmp_path: Path) -> None:
    records = load(TRANSCRIPT)
    result = _line(records, "user", "tool_result")["message"]["content"][0]
    document = {"order": "A-1001", "user_id": "u-42", "db": {"password": PASSPHRASE}}
    result["content"] = json.dumps(document, indent=2) + "\n"
    write_call = next(r for r in records if "Write" in json.dumps(r))["message"]["content"][0]
    write_call["input"]["content"] = json.dumps({"customer": EMAIL, "user_id": "u-42"})
    leaky = write(tmp_path / "leaky.jsonl", records)
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out) == 0
    written = load(out)
    text = _line(written, "user", "tool_result")["message"]["content"][0]["content"]
    redacted = json.loads(text)
    assert redacted["db"] == {"password": "[REDACTED:credential-key]"}
    assert redacted["order"] == "A-1001"
    assert redacted["user_id"].startswith("[ID:")
    assert text == json.dumps(redacted, indent=2) + "\n"  # the layout it had
    content = next(r for r in written if "Write" in json.dumps(r))["message"]["content"][0]
    again = json.loads(content["input"]["content"])
    assert again == {"customer": "[REDACTED:email]", "user_id": redacted["user_id"]}
    assert content["input"]["content"] == json.dumps(again)


def with_stdout(tmp_path: Path, stdout: str) -> Path:
    """The transcript with a Bash call's toolUseResult.stdout holding `stdout`."""
    records = load(TRANSCRIPT)
    _line(records, "user", "tool_result", 2)["toolUseResult"] = {"stdout": stdout, "stderr": ""}
    return write(tmp_path / "leaky.jsonl", records)


@pytest.mark.parametrize("space", ["\r\n", "\r", "\n", " \t", "\r\n  "])
def test_json_after_any_leading_whitespace_is_judged_as_json(
    space: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A batch's clean strings are judged by their key alone: JSON held in one must not be
    # left among them, whatever whitespace it opens with.
    document = json.dumps({"dob": "1980-01-01", "home_address": "1 Main St"})
    leaky = with_stdout(tmp_path, space + document + space)
    assert verify(leaky, capsys, "--profile", "share") == (ExitCode.FAILED, "UNSAFE")
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out, "--profile", "share") == ExitCode.OK
    stdout = _line(load(out), "user", "tool_result", 2)["toolUseResult"]["stdout"]
    assert "1980" not in stdout and "Main St" not in stdout
    assert verify(out, capsys, "--profile", "share")[0] == ExitCode.OK


def nested_json(inner: Any, levels: int, depth: int = 1) -> str:
    """`inner` as JSON text held `levels` times in a string, each `depth` objects deep."""
    text = json.dumps(inner)
    for _ in range(levels):
        value: Any = text
        for _ in range(depth):
            value = {"x": value}
        text = json.dumps(value)
    return text


def test_json_nested_in_strings_past_the_limit_is_unknown_and_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Four levels of JSON held in a string are read; a fifth that still holds JSON cannot be
    # judged as JSON, and read as text its keys would say nothing: UNKNOWN, and cut.
    readable = with_stdout(tmp_path, nested_json({"dob": "abc"}, 3))
    assert verify(readable, capsys, "--profile", "share") == (ExitCode.FAILED, "UNSAFE")
    leaky = with_stdout(tmp_path, nested_json({"dob": "abc"}, 4))
    assert verify(leaky, capsys, "--profile", "share") == (ExitCode.FAILED, "UNKNOWN")
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out, "--profile", "share") == ExitCode.OK
    assert "depth-limit ×1" in capsys.readouterr().err
    stdout = _line(load(out), "user", "tool_result", 2)["toolUseResult"]["stdout"]
    for _ in range(4):
        stdout = json.loads(stdout)["x"]
    assert stdout == "[REDACTED:depth-limit]"
    assert verify(out, capsys, "--profile", "share")[0] == ExitCode.OK


def test_json_nested_in_strings_is_bounded_by_the_depth_of_the_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each document within depth, together far deeper than a walk goes: bounded, not a crash.
    # So is one document deeper than the JSON parser follows. (A document is read as JSON when
    # a key in it matters: `dob` under share.)
    for stdout in (nested_json({"dob": 1}, 4, depth=62), "[" * 5000 + '{"dob": 1}' + "]" * 5000):
        leaky = with_stdout(tmp_path, stdout)
        assert verify(leaky, capsys, "--profile", "share") == (ExitCode.FAILED, "UNKNOWN")
        out = tmp_path / "out.jsonl"
        assert redact(leaky, out, "--profile", "share") == ExitCode.OK
        assert "depth-limit ×1" in capsys.readouterr().err
        assert verify(out, capsys, "--profile", "share")[0] == ExitCode.OK


def test_json_text_with_a_lone_surrogate_escape_is_written_back_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JSON text may escape half a surrogate pair; written back raw, it is no UTF-8.
    stdout = '{"note": "\\ud800 caf\u00e9", "password": "hunter2hunter2"}'
    leaky = with_stdout(tmp_path, stdout)
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out, "--profile", "share") == ExitCode.OK
    capsys.readouterr()
    written = _line(load(out), "user", "tool_result", 2)["toolUseResult"]["stdout"]
    assert json.loads(written) == {
        "note": "\ud800 caf\u00e9",
        "password": "[REDACTED:credential-key]",
    }
    assert "\\ud800" in written
    assert verify(out, capsys, "--profile", "share")[0] == ExitCode.OK


def test_pseudonyms_agree_across_records_and_runs_with_a_key(tmp_path: Path) -> None:
    records = load(TRANSCRIPT)
    for record in records:
        if record["type"] == "assistant":
            record["requestId"] = "req_011" + "FAKE" + record["message"]["id"].removeprefix("msg_")
    leaky = write(tmp_path / "leaky.jsonl", records)
    key = tmp_path / "key"
    key.write_bytes(b"k" * 32)

    def requests(out: Path) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for record in load(out):
            if "requestId" in record:
                found.setdefault(record["message"]["id"], set()).add(record["requestId"])
        return found

    runs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.jsonl"
        assert redact(leaky, out, "--pseudonym-key-file", str(key)) == 0
        runs.append(requests(out))
    assert runs[0] == runs[1]
    assert all(len(values) == 1 for values in runs[0].values())  # one message, one pseudonym
    assert len({v for values in runs[0].values() for v in values}) == len(runs[0])
    assert all(v.startswith("[ID:") for values in runs[0].values() for v in values)
    random = tmp_path / "random.jsonl"
    assert redact(leaky, random) == 0
    assert requests(random) != runs[0]


# --- the report ------------------------------------------------------------------------------


def test_the_report_names_each_field_by_line_and_path_and_holds_no_secret(tmp_path: Path) -> None:
    leaky = planted(tmp_path, "tool_use input", "a key that holds a token", "toolUseResult.stdout")
    redactor = RecordRedactor(profile="share")
    written: list[bytes] = []
    redact_claude_records(lambda: leaky.open("rb"), str(leaky), redactor, written.append)
    paths = [(f.path, f.detector) for f in redactor.report().findings]
    assert paths == [
        ('line 7: message.content[0].input["[REDACTED:github-token]#1"]', "github-token"),
        ("line 8: message.content[0].input.command", "jwt"),
        ("line 10: toolUseResult.stdout", "aws-access-key"),
    ]
    no_secret_in(repr(redactor.report()), b"".join(written))


def test_the_summary_counts_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leaky = planted(tmp_path, "tool_use input", "cwd")
    assert redact(leaky, tmp_path / "out.jsonl") == 0
    assert (
        capsys.readouterr().err == "redacted 13 values in 12 records (provider-key ×12, jwt ×1)\n"
    )


def test_dotted_paths_follow_lists_keys_and_json_in_strings() -> None:
    record = {"message": {"content": [{"input": {"a b": '{"x": [1, {"y": 2}]}'}}]}}
    assert dotted_path(record, "/message/content/0/input") == "message.content[0].input"
    assert dotted_path(record, "/message/content/0/input/a b/x/1/y") == (
        'message.content[0].input["a b"].x[1].y'
    )
    assert dotted_path(record, "/message/content/0/input/[REDACTED:jwt]#1") == (
        'message.content[0].input["[REDACTED:jwt]#1"]'
    )
    assert dotted_path(record, "/a~1b/c~0d") == '["a/b"]["c~d"]'


# --- exit codes and what is refused ----------------------------------------------------------


def test_a_malformed_line_is_named_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = TRANSCRIPT.read_bytes().splitlines(True)
    lines[2] = lines[2][:40] + b"\n"
    source = tmp_path / "broken.jsonl"
    source.write_bytes(b"".join(lines))
    out = tmp_path / "out.jsonl"
    assert redact(source, out, "--format", "claude-stream") == ExitCode.UNREADABLE
    assert not out.exists()
    err = capsys.readouterr().err
    assert err.startswith(f"tracecheck: error: {source}: line 3, column 41: malformed JSON")
    assert err.count("\n") == 1


def test_a_line_that_is_not_an_object_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = TRANSCRIPT.read_bytes().splitlines(True)
    lines.insert(2, b"[1, 2]\n")
    source = tmp_path / "array.jsonl"
    source.write_bytes(b"".join(lines))
    out = tmp_path / "out.jsonl"
    assert redact(source, out, "--format", "claude-stream") == ExitCode.UNREADABLE
    assert not out.exists()
    assert capsys.readouterr().err == (
        f"tracecheck: error: {source}: line 3: is a list, not a JSON object\n"
    )


def test_the_writer_names_the_file_and_line_of_a_malformed_record() -> None:
    data = b'{"type": "user"}\n{"type": \n'
    redactor = RecordRedactor(profile="share")
    with pytest.raises(TraceReadError) as raised:
        redact_claude_records(lambda: io.BytesIO(data), "t.jsonl", redactor, lambda _: None)
    assert str(raised.value) == (
        "t.jsonl: line 2, column 10: malformed JSON: unexpected end of data"
    )


def test_a_file_the_reader_refuses_is_refused_with_the_readers_words_about_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A token in a time: the file is no trace; the error describes the file as given, not
    # the redacted records the gate read.
    records = load(TRANSCRIPT)
    records[3]["timestamp"] += f" {GITHUB_TOKEN}"
    leaky = write(tmp_path / "leaky.jsonl", records)
    with pytest.raises(TraceReadError) as raised:
        list(iter_spans(leaky, format="claude-stream"))
    assert f"a string of {len(records[3]['timestamp'])} character(s)" in str(raised.value)
    out = tmp_path / "out.jsonl"
    capsys.readouterr()
    assert redact(leaky, out) == ExitCode.UNREADABLE
    assert not out.exists()
    assert capsys.readouterr().err == f"tracecheck: error: {raised.value}\n"


def test_a_record_that_cannot_be_encoded_is_named_by_its_line() -> None:
    # Whatever the redaction gives back that JSON cannot hold stops the writing at its line.
    class Broken(RecordRedactor):
        def redact_records(self, read: Any) -> Any:
            for number, record, line in read():
                yield number, line, None if record is None else {"text": "\ud800"}

    data = b'{"type": "user"}\n\n{"type": "user"}\n'
    with pytest.raises(TraceReadError) as raised:
        redact_claude_records(lambda: io.BytesIO(data), "t.jsonl", Broken(), lambda _: None)
    assert str(raised.value) == (
        "t.jsonl: line 1: cannot be written back as JSON: str is not valid UTF-8: "
        "surrogates not allowed"
    )


def test_a_byte_order_mark_is_read_past_as_the_reader_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bom = b"\xef\xbb\xbf"
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(bom + TRANSCRIPT.read_bytes())
    assert verify(clean, capsys)[0] == ExitCode.OK
    out = tmp_path / "out.jsonl"
    assert redact(clean, out) == ExitCode.OK
    assert out.read_bytes() == clean.read_bytes()  # nothing found: the mark kept too
    leaky = tmp_path / "leaky.jsonl"
    leaky.write_bytes(bom + planted(tmp_path, "summary").read_bytes())  # in the first record
    assert verify(leaky, capsys) == (ExitCode.FAILED, "UNSAFE")
    assert redact(leaky, out) == ExitCode.OK
    no_secret_in(out.read_bytes())
    assert verify(out, capsys)[0] == ExitCode.OK
    assert facts(out) == facts(leaky)


def test_the_record_api_judges_and_redacts_a_file_only_whole() -> None:
    # Streamed pieces are joined across records: a record alone cannot be judged or redacted.
    assert not hasattr(RecordRedactor, "redact") and not hasattr(RecordAssessor, "assess")
    records = load(PARTIAL)
    deltas = [r for r in records if r.get("event", {}).get("delta", {}).get("type") == "text_delta"]
    deltas[0]["event"]["delta"]["text"] += PROVIDER_KEY[:10]
    deltas[1]["event"]["delta"]["text"] = PROVIDER_KEY[10:] + deltas[1]["event"]["delta"]["text"]
    verdict = RecordAssessor(profile="share").assess_all(
        (r, f"/{i}") for i, r in enumerate(records)
    )
    assert verdict.status.value == "UNSAFE"
    numbered = [(n, r, n) for n, r in enumerate(records, 1)]
    redactor = RecordRedactor(profile="share")
    out = {n: r for n, _, r in redactor.redact_records(lambda: numbered)}
    joined = "".join(
        (out[n] or r)["event"]["delta"]["text"]
        for n, r, _ in numbered
        if r.get("event", {}).get("delta", {}).get("type") == "text_delta"
    )
    assert PROVIDER_KEY not in joined and "[REDACTED:provider-key]" in joined


def test_what_the_gate_cannot_read_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = load(TRANSCRIPT)
    audio = "data:audio/wav;base64," + base64.b64encode(b"RIFF\x24\x00\x00\x00WAVE").decode()
    _line(records, "user", "tool_result")["message"]["content"][0]["content"] = audio
    leaky = write(tmp_path / "audio.jsonl", records)
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out) == ExitCode.FAILED
    assert not out.exists()
    err = capsys.readouterr().err
    assert err.startswith(f"tracecheck: error: {leaky}: the redacted records are UNKNOWN; nothing")
    assert (
        "unreadable: span:c9736fedd338116a/attributes/gen_ai.tool.call.result: audio/wav data "
        in err
    )


def test_a_base64_payload_nothing_can_read_is_replaced(tmp_path: Path) -> None:
    records = load(TRANSCRIPT)
    pdf = base64.b64encode(b"%PDF-1.7 " + KNOWN.encode()).decode()
    source = {"type": "base64", "media_type": "application/pdf", "data": pdf}
    prompt = records[1]["message"]
    prompt["content"] = [{"type": "document", "source": source}, {"type": "text", "text": "hi"}]
    leaky = write(tmp_path / "pdf.jsonl", records)
    assert main(["verify-safe", str(leaky)]) == ExitCode.FAILED  # UNKNOWN: it cannot be read
    out = tmp_path / "out.jsonl"
    assert redact(leaky, out) == 0
    kept = load(out)[1]["message"]["content"][0]["source"]
    assert kept == {**source, "data": "[REDACTED:media]"}


def test_usage_errors_and_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    assert redact(TRANSCRIPT, out, "--profile", "sharing") == ExitCode.USAGE
    assert redact(tmp_path / "missing.jsonl", out) == ExitCode.UNREADABLE
    assert redact(TRANSCRIPT, tmp_path / "no" / "dir" / "out.jsonl") == ExitCode.USAGE
    assert not out.exists()
    capsys.readouterr()


def test_gzip_stays_gzip(tmp_path: Path) -> None:
    leaky = planted(tmp_path, "assistant text")
    source = tmp_path / "session.jsonl.gz"
    source.write_bytes(gzip.compress(leaky.read_bytes()))
    out = tmp_path / "out.jsonl.gz"
    assert redact(source, out) == 0
    data = out.read_bytes()
    assert data[:2] == b"\x1f\x8b"
    no_secret_in(gzip.decompress(data))
    assert facts(out) == facts(leaky)


# --- properties ------------------------------------------------------------------------------

FRAGMENTS = [
    PROVIDER_KEY,
    GITHUB_TOKEN,
    AWS_KEY,
    JWT,
    EMAIL,
    KNOWN,
    "4111 1111 1111 1111",
    "(415) 555-2671",
    "password=",
    "Bearer ",
    '{"password": "hunter2", "user_id": "u-1"}',
    "[REDACTED:x] ",
    "\n",
    "é",
    "@",
    "sk-",
]
words = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(st.characters(codec="utf-8"), max_size=10)),
    max_size=6,
).map(" ".join)
arguments = st.dictionaries(
    st.sampled_from(["command", "file_path", "api_key", "user_id", "note", "pattern"]),
    st.one_of(words, st.integers(0, 10**6), st.booleans()),
    max_size=4,
)


@st.composite
def transcripts(draw: st.DrawFn) -> bytes:
    """A session transcript in Claude Code's record shapes: a prompt, assistant messages with
    text, thinking and tool calls, their results (strings, block lists, JSON text) and
    toolUseResult objects; every free text drawn from words that hold secrets."""
    session = "5b0c2a7e-3f41-4d8e-9a6b-2c1f0e9d8a71"
    records: list[dict[str, Any]] = []
    base = {"sessionId": session, "cwd": draw(words), "gitBranch": "main", "version": "2.1.30"}

    def record(kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        n = len(records)
        return {
            **base,
            "type": kind,
            "message": message,
            "uuid": f"00000000-0000-4000-8000-{n:012d}",
            "parentUuid": f"00000000-0000-4000-8000-{n - 1:012d}" if n else None,
            "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
            **extra,
        }

    records.append(record("user", {"role": "user", "content": draw(words)}))
    for turn in range(draw(st.integers(1, 3))):
        call = f"toolu_01Fake{turn:04d}"
        usage = {"input_tokens": draw(st.integers(0, 999)), "output_tokens": 8}
        message = {
            "id": f"msg_01Fake{turn:04d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "stop_reason": None,
            "usage": usage,
        }
        text = draw(words)
        if draw(st.booleans()):  # partial messages: the text in two pieces
            cut = draw(st.integers(0, len(text)))
            records.extend(streamed(message, text[:cut], text[cut:], len(records)))
        for block in (
            {"type": "thinking", "thinking": draw(words), "signature": "EqFake=="},
            {"type": "text", "text": text},
            {"type": "tool_use", "id": call, "name": "Bash", "input": draw(arguments)},
        ):
            records.append(record("assistant", {**message, "content": [block]}))
        content = draw(
            st.one_of(
                words,
                st.lists(words.map(lambda t: {"type": "text", "text": t}), max_size=3),
                arguments.map(json.dumps),
            )
        )
        result = {"type": "tool_result", "tool_use_id": call, "content": content}
        tool_result = {"stdout": draw(words), "stderr": "", "interrupted": False}
        records.append(
            record("user", {"role": "user", "content": [result]}, toolUseResult=tool_result)
        )
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def streamed(message: dict[str, Any], head: str, tail: str, n: int) -> list[dict[str, Any]]:
    """The stream events `--include-partial-messages` writes for a text block in two pieces."""
    events = [
        {"type": "message_start", "message": {**message, "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
            for t in (head, tail)
        ),
        {"type": "content_block_stop", "index": 0},
    ]
    return [
        {
            "type": "stream_event",
            "event": event,
            "session_id": "5b0c2a7e-3f41-4d8e-9a6b-2c1f0e9d8a71",
            "parent_tool_use_id": None,
            "uuid": f"00000000-0000-4000-9000-{n + i:012d}",
        }
        for i, event in enumerate(events)
    ]


def _redacted(data: bytes, profile: str) -> bytes:
    redactor = RecordRedactor(profile=profile, known_secrets=[KNOWN])
    out: list[bytes] = []
    redact_claude_records(lambda: io.BytesIO(data), "<t>", redactor, out.append)
    return b"".join(out)


@pytest.mark.parametrize("profile", ["share", "strict"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=transcripts())
def test_redaction_of_a_transcript_is_idempotent_and_leaves_nothing_the_gate_finds(
    profile: str, data: bytes
) -> None:
    once = _redacted(data, profile)
    assert _redacted(once, profile) == once
    resolved = resolve_profile(profile)
    spans, records = claude_verdicts(io.BytesIO(once), "<t>", resolved, _known())
    verdict = with_recorded(spans, [records])
    assert share_allowed(verdict), verdict
    assert not [f for f in verdict.findings if f.category == "credential"]
    before = [(s.span_id, s.tool_name, s.model, s.tokens) for s in _spans(data)]
    assert [(s.span_id, s.tool_name, s.model, s.tokens) for s in _spans(once)] == before


def _known() -> Any:
    from redact import KnownSecrets

    return KnownSecrets.build([KNOWN])


def _spans(data: bytes) -> list[Any]:
    return sorted(iter_spans(data, format="claude-stream"), key=lambda s: s.span_id or "")


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every string inside `value`."""
    if isinstance(value, str):
        return [at]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _places(item, (*at, key))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _places(item, (*at, i))]
    return []


@pytest.mark.parametrize("source", [TRANSCRIPT, INTERACTIVE, STREAM, PARTIAL], ids=lambda p: p.name)
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_token_in_any_string_of_a_record_is_found_and_redacted_in_place(
    source: Path, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    records = load(source)
    place = data.draw(st.sampled_from([(i, *p) for i, r in enumerate(records) for p in _places(r)]))
    container: Any = records
    for step in place[:-1]:
        container = container[step]
    container[place[-1]] = f"{container[place[-1]]} {GITHUB_TOKEN}"
    folder = tmp_path_factory.mktemp("planted")
    leaky = write(folder / source.name, records)
    verdict = main(["verify-safe", str(leaky)])
    # A token in a time leaves the file unreadable as a trace: never safe either.
    assert verdict in (ExitCode.FAILED, ExitCode.UNREADABLE), place
    out = folder / "out.jsonl"
    code = redact(leaky, out)
    if code == ExitCode.UNREADABLE:  # the token broke what makes the file a trace (a time)
        assert not out.exists()
        return
    assert code == ExitCode.OK, place
    written = load(out)
    assert GITHUB_TOKEN not in json.dumps(written)
    assert [list(r) for r in written] == [list(r) for r in records]
    assert main(["verify-safe", str(out)]) == ExitCode.OK


def test_check_gives_the_same_verdicts_on_the_redacted_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contracts = Path(__file__).resolve().parent.parent / "contracts"
    argv = ["--contract", str(contracts / "no-shell.yaml")]
    argv += ["--contract", str(contracts / "model-budget.yaml")]

    def verdicts(path: Path) -> tuple[int, str]:
        capsys.readouterr()
        code = main(["check", str(path), *argv])
        captured = capsys.readouterr()
        return code, (captured.out + captured.err).replace(str(path), "FILE")

    expected = verdicts(STREAM)
    assert expected[0] == ExitCode.FAILED  # Bash was called, and another model than listed
    for profile in ("share", "strict"):
        out = tmp_path / f"{profile}.jsonl"
        assert redact(STREAM, out, "--profile", profile) == 0
        assert verdicts(out) == expected
