"""No false SAFE: a credential planted in any string of any format's file is found.

`verify-safe` judges every byte a reader would drop as well as the spans it keeps, so a token
in a Claude Code assistant message, a Zipkin endpoint, a Jaeger process tag or an OpenTelemetry
JS resource is as unsafe as one in a span attribute; and `redact` + `verify-safe` leave none of
it. The token is a fake GitHub token built at run time; each property draws the string it goes
into from all the strings of a recorded file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck.cli import ExitCode, main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOKEN = "ghp_" + "".join("aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5"[i] for i in range(36))
# One recorded file per format (and per layout of a format that has several).
FILES = (
    "otel-genai/clean.otlp.jsonl",
    "openinference/clean.otlp.jsonl",
    "producers/vercel-ai-v6/clean.otlp.json",
    "zipkin/clean.zipkin.json",
    "zipkin/shared-rpc.zipkin.json",
    "jaeger/clean.jaeger.json",
    "jaeger/clean.jaeger-model.json",
    "jaeger/clean.jaeger-api-v3.json",
    "otel-js/clean.sdk1.json",
    "otel-js/clean.sdk2.readable.json",
    "claude/refund-stream.jsonl",
    "claude/session-transcript.jsonl",
    "claude/recorded/2.1.30/refund.stream.jsonl",
)
EXAMPLES = settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def records(path: Path) -> list[Any]:
    """The file's JSON values: documents one after another (one per line, or pretty-printed
    one after the other, as grpcurl prints a stream)."""
    text, values, decoder, at = path.read_text(), [], json.JSONDecoder(), 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def places(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every string value inside `value`."""
    if isinstance(value, str):
        yield at
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from places(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places(item, (*at, index))


def planted(values: list[Any], place: tuple[Any, ...]) -> list[Any]:
    """A copy of the records with the token written into the string at `place`."""
    copy = json.loads(json.dumps(values))
    container = copy
    for step in place[:-1]:
        container = container[step]
    container[place[-1]] = f"{container[place[-1]]} {TOKEN}"
    return copy


def write(path: Path, values: list[Any], like: Path) -> Path:
    if len(values) == 1 and not like.name.endswith(".jsonl"):
        path.write_text(json.dumps(values[0]))
    else:
        path.write_text("".join(json.dumps(value) + "\n" for value in values))
    return path


@pytest.mark.parametrize("name", FILES)
def test_the_recorded_file_itself_is_judged_safe_enough_to_plant_into(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without a planted token none of these files holds a credential.
    main(["verify-safe", str(FIXTURES / name)])
    assert "credential" not in capsys.readouterr().out


@pytest.mark.parametrize("name", FILES)
@EXAMPLES
@given(data=st.data())
def test_a_token_in_any_string_makes_the_file_unsafe_and_redact_removes_it(
    name: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = FIXTURES / name
    values = records(source)
    candidates = [(i, *p) for i, value in enumerate(values) for p in places(value)]
    place = data.draw(st.sampled_from(candidates))
    folder = tmp_path_factory.mktemp("planted")
    leaky = write(folder / source.name, planted(values, place), source)
    verdict = main(["verify-safe", str(leaky)])
    # A token in an id or a time leaves the file unreadable as a trace: never safe either.
    assert verdict in (ExitCode.FAILED, ExitCode.UNREADABLE), place
    if verdict == ExitCode.UNREADABLE:
        return
    out = folder / f"redacted-{source.name}"
    command = ["redact", str(leaky), "-o", str(out), "--profile", "share"]
    if "claude" in source.parts:  # written back as OTLP/JSON
        command += ["--output-format", "otlp-json"]
    code = main(command)
    if code == ExitCode.UNREADABLE:  # the token broke what makes the file a trace
        assert not out.exists()
        return
    assert code == ExitCode.OK, place
    assert TOKEN.encode() not in out.read_bytes()
    assert main(["verify-safe", str(out), "--profile", "share"]) == ExitCode.OK


def test_a_token_in_an_unknown_protobuf_field_makes_the_file_unsafe(tmp_path: Path) -> None:
    source = (FIXTURES / "otel-genai" / "clean.otlp.pb").read_bytes()
    # Field 99 of the request, a string: no OTLP reader keeps it, but the bytes hold it.
    unknown = bytes([(99 << 3 | 2) & 0x7F | 0x80, (99 << 3 | 2) >> 7, len(TOKEN)]) + TOKEN.encode()
    leaky = tmp_path / "leaky.otlp.pb"
    leaky.write_bytes(source + unknown)
    assert main(["verify-safe", str(leaky)]) == ExitCode.FAILED
    (tmp_path / "clean.otlp.pb").write_bytes(source)
    assert main(["verify-safe", str(tmp_path / "clean.otlp.pb")]) == ExitCode.OK


def test_ids_and_times_that_look_like_card_numbers_are_no_finding(tmp_path: Path) -> None:
    # 4111111111111111 passes the Luhn check: as a span id (16 hex digits) it is still an id.
    span = {
        "traceId": "4111111111111111" * 2,
        "spanId": "4111111111111111",
        "parentSpanId": "4012888888881881",
        "name": "lookup",
        "startTimeUnixNano": "4111111111111111111",
        "endTimeUnixNano": 4111111111111111112,
    }
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    source = tmp_path / "run.otlp.json"
    source.write_text(json.dumps(document))
    assert main(["verify-safe", str(source)]) == ExitCode.OK
    out = tmp_path / "out.otlp.json"
    assert main(["redact", str(source), "-o", str(out)]) == ExitCode.OK
    # The same digits as free text are a card number.
    span["attributes"] = [{"key": "note", "value": {"stringValue": "card 4111111111111111"}}]
    source.write_text(json.dumps(document))
    assert main(["verify-safe", str(source)]) == ExitCode.FAILED


def test_a_proto_stream_is_judged_record_by_record(tmp_path: Path) -> None:
    body = (FIXTURES / "otel-genai" / "clean.otlp.pb").read_bytes()
    record = len(body).to_bytes(4, "big") + body
    stream = tmp_path / "runs.otlp.pbstream"
    stream.write_bytes(record * 3)
    assert main(["verify-safe", str(stream)]) == ExitCode.OK
    leaky = tmp_path / "leaky.otlp.pbstream"
    unknown = bytes([(99 << 3 | 2) & 0x7F | 0x80, (99 << 3 | 2) >> 7, len(TOKEN)]) + TOKEN.encode()
    tainted = body + unknown
    leaky.write_bytes(record * 2 + len(tainted).to_bytes(4, "big") + tainted)
    assert main(["verify-safe", str(leaky)]) == ExitCode.FAILED
