"""`tracecheck redact` and `tracecheck verify-safe` through `tracecheck.cli.main`: formats kept,
the share-safety gate, exit codes (DESIGN.md), and no secret value in any output stream.

Fake secrets only, glued together from parts at run time.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import orjson
import pytest

from tracecheck import iter_spans, read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.readers import detect_format
from tracecheck.readers.otlp_proto import looks_like_proto_stream
from tracecheck.spans import Span
from tracecheck.writers import to_otlp_json, to_trace_span_events

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
INSTRUMENTATIONS = ("otel-genai", "openinference")

KNOWN = "zq9 Opaque/" + "Deploy Key 77"
OPENAI_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
CUSTOMER_EMAIL = "jane.doe" + "@" + "example.com"
OWNER_EMAIL = "platform-owner" + "@" + "example.test"
PLANTED = (
    KNOWN,
    base64.b64encode(KNOWN.encode()).decode(),
    OPENAI_KEY,
    CUSTOMER_EMAIL,
    "crm-admin" + "@" + "example.test",
    OWNER_EMAIL,
    "(415) " + "555-2671",
    " ".join(["4111"] + ["1111"] * 3),
    "fake." + "0123456789abcdef" + ".FAKE",
    "FAKE" + "passw0rd",
    "AKIA" + "IOSFODNN7" + "EXAMPLE",
    "FAKE" + "signature" + "0123456789",
)
AUDIO_URI = "data:audio/wav;base64," + base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode()

# What the redact summary says for each leaky fixture with the known secret (stderr).
# JSON held in a string (messages, tool arguments and results) is redacted value by value, as
# the structure it is (issue 31): each value is its own change.
LEAKY_SUMMARY = {
    "otel-genai": "redacted 59 values in 6 spans (known-secret ×14, email ×9, jwt ×8, "
    "personal-data-key ×8, bearer ×7, card-number ×4, credential-key ×4, phone ×4, "
    "provider-key ×1)",
    "openinference": "redacted 64 values in 5 spans (personal-data-key ×13, email ×10, "
    "known-secret ×10, credential-key ×8, card-number ×6, jwt ×6, phone ×6, bearer ×5)",
}


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_KEY", KNOWN)
    monkeypatch.delenv("TRACECHECK_PSEUDONYM_KEY", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def leaky(instrumentation: str, suffix: str = "jsonl") -> str:
    return str(FIXTURES / instrumentation / f"leaky.otlp.{suffix}")


def span_ids(path: Path | str) -> list[str]:
    """Every span written, repeated copies included."""
    return sorted(span.span_id or "" for span in iter_spans(path))


def no_secret_in(*texts: str | bytes) -> None:
    for text in texts:
        data = text.encode() if isinstance(text, str) else text
        assert [value for value in PLANTED if value.encode() in data] == []


def write_spans(path: Path, spans: list[Span]) -> str:
    path.write_bytes(to_otlp_json(spans))
    return str(path)


# --- redact: formats ------------------------------------------------------------------------------


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
@pytest.mark.parametrize("suffix", ["jsonl", "pb"])
def test_redact_keeps_the_format_it_read(
    instrumentation: str, suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = leaky(instrumentation, suffix)
    out = tmp_path / f"out.otlp.{suffix}"
    code = main(["redact", source, "-o", str(out), "--known-secret-env", "DEPLOY_KEY"])
    captured = capsys.readouterr()
    assert code == ExitCode.OK
    assert captured.out == ""
    assert captured.err == LEAKY_SUMMARY[instrumentation] + "\n"
    data = out.read_bytes()
    expected = "otlp-jsonl" if suffix == "jsonl" else "otlp-proto"
    if suffix == "jsonl":
        assert data.endswith(b"\n") and data.count(b"\n") == 1  # one batch, one line
        assert orjson.loads(data)["resourceSpans"]
    else:
        assert data[:1] == b"\n"  # field 1 (resource_spans), length-delimited: protobuf
    assert detect_format(out) == ("otlp-json" if suffix == "jsonl" else expected)
    assert span_ids(out) == span_ids(source)
    no_secret_in(data)
    (before,) = read_traces(source)
    (after,) = read_traces(out)
    assert after.trace_id == before.trace_id
    times = {s.span_id: (s.start_ns, s.end_ns, s.status, s.otlp_kind) for s in before.spans}
    assert {s.span_id: (s.start_ns, s.end_ns, s.status, s.otlp_kind) for s in after.spans} == times


def test_a_proto_stream_stays_a_proto_stream(tmp_path: Path) -> None:
    source = FIXTURES / "otel-genai" / "clean-batched.otlp.pbstream"
    out = tmp_path / "out.pbstream"
    assert main(["redact", str(source), "-o", str(out)]) == ExitCode.OK
    data = out.read_bytes()
    assert looks_like_proto_stream(data[:64], len(data))
    assert span_ids(out) == span_ids(source)


def test_gzip_in_gzip_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for suffix in ("jsonl", "pb"):
        source = tmp_path / f"in.otlp.{suffix}.gz"
        source.write_bytes(gzip.compress(Path(leaky("otel-genai", suffix)).read_bytes()))
        out = tmp_path / f"out.otlp.{suffix}.gz"
        assert (
            main(["redact", str(source), "-o", str(out), "--known-secret-env", "DEPLOY_KEY"]) == 0
        )
        data = out.read_bytes()
        assert data[:2] == b"\x1f\x8b"
        plain = gzip.decompress(data)
        if suffix == "jsonl":
            assert orjson.loads(plain.splitlines()[0])["resourceSpans"]
        no_secret_in(plain)
        assert span_ids(out) == span_ids(leaky("otel-genai", suffix))
    assert capsys.readouterr().err.count(LEAKY_SUMMARY["otel-genai"]) == 2


@pytest.mark.parametrize("layout", ["document", "lines"])
def test_flat_spans_in_flat_spans_out(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (trace,) = read_traces(leaky("openinference"))
    rows = to_trace_span_events(trace.spans)
    if layout == "document":
        source = tmp_path / "spans.json"
        source.write_bytes(orjson.dumps(rows))
    else:
        source = tmp_path / "spans.jsonl"
        source.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    out = tmp_path / f"out{source.suffix}"
    assert main(["redact", str(source), "-o", str(out), "--known-secret-env", "DEPLOY_KEY"]) == 0
    data = out.read_bytes()
    if layout == "document":
        written = orjson.loads(data)
        assert isinstance(written, list) and len(written) == len(rows)
    else:
        written = [orjson.loads(line) for line in data.splitlines()]
        assert len(written) == len(rows)
    assert [row["spanId"] for row in written] == [row["spanId"] for row in rows]
    assert all(set(row) >= {"traceId", "spanId", "name", "attributes"} for row in written)
    assert "resourceSpans" not in data.decode()
    no_secret_in(data)
    # Flat rows carry no resource: the owner e-mail is in every span's attributes.
    assert capsys.readouterr().err.startswith("redacted ")
    assert all(
        row["attributes"]["deployment.owner.email"] == "[REDACTED:personal-data-key]"
        for row in written
    )


def test_a_claude_record_is_written_back_as_records_or_as_otlp_json_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FIXTURES / "claude" / "refund-stream.jsonl"
    out = tmp_path / "out.jsonl"
    assert main(["redact", str(source), "-o", str(out)]) == 0
    assert detect_format(out) == "claude-stream"
    assert out.read_bytes() == source.read_bytes()  # nothing found: every record as it was
    assert capsys.readouterr().err == "redacted 0 values\n"
    converted = tmp_path / "out.json"
    args = ["redact", str(source), "-o", str(converted), "--output-format", "otlp-json"]
    assert main(args) == 0
    assert detect_format(converted) == "otlp-json"


def test_output_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["redact", leaky("otel-genai"), "-o", "-", "--known-secret-env", "DEPLOY_KEY"]) == 0
    captured = capsysbinary.readouterr()
    assert orjson.loads(captured.out)["resourceSpans"]
    no_secret_in(captured.out)
    assert captured.err.decode() == LEAKY_SUMMARY["otel-genai"] + "\n"


# --- redact: the summary line ---------------------------------------------------------------------


def test_summary_line_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = write_spans(
        tmp_path / "one.json",
        [Span("a" * 32, "1" * 16, name="step", attributes={"note": "mail " + CUSTOMER_EMAIL})],
    )
    assert main(["redact", one, "-o", str(tmp_path / "o1.json")]) == 0
    assert capsys.readouterr().err == "redacted 1 value in 1 span (email ×1)\n"

    two = write_spans(
        tmp_path / "two.json",
        [
            Span(
                "a" * 32, "1" * 16, name="a", attributes={"note": f"{CUSTOMER_EMAIL} {OWNER_EMAIL}"}
            ),
            Span("a" * 32, "2" * 16, name="b", attributes={"log": "key " + OPENAI_KEY}),
        ],
    )
    assert main(["redact", two, "-o", str(tmp_path / "o2.json")]) == 0
    # Ordered by count, then by detector id.
    assert capsys.readouterr().err == "redacted 3 values in 2 spans (email ×2, provider-key ×1)\n"

    clean = write_spans(tmp_path / "clean.json", [Span("a" * 32, "1" * 16, name="step")])
    assert main(["redact", clean, "-o", str(tmp_path / "o3.json")]) == 0
    assert capsys.readouterr().err == "redacted 0 values\n"


# --- redact: secrets, keys, profiles ----------------------------------------------------------------


def test_known_secret_env_that_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    code = main(
        ["redact", leaky("otel-genai"), "-o", str(out), "--known-secret-env", "NO_SUCH_VAR_X"]
    )
    assert code == ExitCode.USAGE
    assert capsys.readouterr().err == (
        "tracecheck: error: $NO_SUCH_VAR_X: the environment variable is not set or empty\n"
    )
    assert not out.exists()


def test_a_short_known_secret_is_refused_without_printing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHORT_SECRET", "Q7x")
    out = tmp_path / "out.jsonl"
    code = main(
        [
            "redact",
            leaky("otel-genai"),
            "-o",
            str(out),
            "--known-secret-env",
            "DEPLOY_KEY",
            "--known-secret-env",
            "SHORT_SECRET",
        ]
    )
    assert code == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.err == (
        "tracecheck: error: known secret #2 is shorter than 4 characters (UTF-16 code units); "
        "too short to cut without mangling text\n"
    )
    assert "Q7x" not in captured.out + captured.err
    assert not out.exists()


def test_known_secrets_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secrets = tmp_path / "secrets.txt"
    secrets.write_text(f"\n{KNOWN}\n\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert (
        main(
            ["redact", leaky("openinference"), "-o", str(out), "--known-secrets-file", str(secrets)]
        )
        == 0
    )
    assert capsys.readouterr().err == LEAKY_SUMMARY["openinference"] + "\n"
    no_secret_in(out.read_bytes())
    missing = tmp_path / "missing.txt"
    assert (
        main(
            ["redact", leaky("openinference"), "-o", str(out), "--known-secrets-file", str(missing)]
        )
        == 2
    )
    assert capsys.readouterr().err.startswith(f"tracecheck: error: {missing}: could not be read: ")


def test_without_the_known_secret_the_opaque_value_is_not_cut(tmp_path: Path) -> None:
    source = write_spans(
        tmp_path / "in.json",
        [Span("a" * 32, "1" * 16, name="deploy", attributes={"note": "key " + KNOWN})],
    )
    out = tmp_path / "out.json"
    assert main(["redact", source, "-o", str(out)]) == 0
    assert KNOWN.encode() in out.read_bytes()
    assert main(["redact", source, "-o", str(out), "--known-secret-env", "DEPLOY_KEY"]) == 0
    assert KNOWN.encode() not in out.read_bytes()


def identified(tmp_path: Path) -> str:
    return write_spans(
        tmp_path / "users.json",
        [
            Span(
                "a" * 32,
                "1" * 16,
                name="step",
                attributes={"user.id": "u-1001", "session.id": "s-9"},
            )
        ],
    )


def pseudonyms_of(path: Path) -> tuple[str, str]:
    (trace,) = read_traces(path)
    attributes = trace.spans[0].attributes
    return attributes["user.id"], attributes["session.id"]


def test_pseudonym_key_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = identified(tmp_path)
    key = tmp_path / "pseudonym.key"
    key.write_bytes(b"0123456789abcdef0123456789abcdef\n")
    outs = [tmp_path / f"out{i}.json" for i in range(4)]
    assert main(["redact", source, "-o", str(outs[0]), "--pseudonym-key-file", str(key)]) == 0
    assert main(["redact", source, "-o", str(outs[1]), "--pseudonym-key-file", str(key)]) == 0
    assert pseudonyms_of(outs[0]) == pseudonyms_of(outs[1])
    assert pseudonyms_of(outs[0])[0].startswith("[ID:")
    assert outs[0].read_bytes() == outs[1].read_bytes()
    # Without a key each run draws its own; the environment variable stands in for the file.
    assert main(["redact", source, "-o", str(outs[2])]) == 0
    assert pseudonyms_of(outs[2]) != pseudonyms_of(outs[0])
    monkeypatch.setenv("TRACECHECK_PSEUDONYM_KEY", "0123456789abcdef0123456789abcdef")
    assert main(["redact", source, "-o", str(outs[3])]) == 0
    assert pseudonyms_of(outs[3]) == pseudonyms_of(outs[0])
    assert "u-1001" not in outs[3].read_text()
    capsys.readouterr()

    short = tmp_path / "short.key"
    short.write_bytes(b"too-short")
    assert (
        main(["redact", source, "-o", str(tmp_path / "x.json"), "--pseudonym-key-file", str(short)])
        == 2
    )
    assert capsys.readouterr().err == (
        f"tracecheck: error: {short}: a pseudonym key needs at least 16 bytes\n"
    )


def test_profile_names_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_spans(
        tmp_path / "in.json",
        [
            Span(
                "a" * 32,
                "1" * 16,
                name="POST /refund",
                attributes={"http.x_acme_signature": "v1=plain", "prompt": "refund order A-1"},
            )
        ],
    )
    out = tmp_path / "out.json"
    profile = tmp_path / "acme.yaml"
    profile.write_text(
        "name: acme\nextends: share\nkeys:\n  credential: [x_acme_signature]\n", encoding="utf-8"
    )
    assert main(["redact", source, "-o", str(out), "--profile", str(profile)]) == 0
    attributes = read_traces(out)[0].spans[0].attributes
    assert attributes["http.x_acme_signature"] == "[REDACTED:credential-key]"
    assert attributes["prompt"] == "refund order A-1"
    assert capsys.readouterr().err == "redacted 1 value in 1 span (credential-key ×1)\n"

    assert main(["redact", source, "-o", str(out), "--profile", "strict"]) == 0
    attributes = read_traces(out)[0].spans[0].attributes
    assert attributes["http.x_acme_signature"] == "v1=plain"  # not a credential key built in
    assert attributes["prompt"] == "[REDACTED:raw-content-key]"
    capsys.readouterr()

    assert main(["redact", source, "-o", str(out), "--profile", "public"]) == ExitCode.USAGE
    assert capsys.readouterr().err == "tracecheck: error: unknown redaction profile: public\n"

    typo = tmp_path / "typo.yaml"
    typo.write_text("extends: share\nkeys: {credentail: [x]}\n", encoding="utf-8")
    assert main(["redact", source, "-o", str(out), "--profile", str(typo)]) == ExitCode.USAGE
    assert capsys.readouterr().err == (
        f'tracecheck: error: {typo}: /keys: unknown key class "credentail" — did you mean '
        '"credential"? (allowed: credential, email, personal-data, identifier, raw-content)\n'
    )
    missing = tmp_path / "missing.yaml"
    assert main(["verify-safe", source, "--profile", str(missing)]) == ExitCode.USAGE
    assert capsys.readouterr().err == f"tracecheck: error: {missing}: file does not exist\n"


# --- redact: the gate -------------------------------------------------------------------------------


def test_the_gate_writes_nothing_when_the_redacted_trace_is_not_share_safe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Under share an audio data URI is left as it is (only strict replaces media) and cannot
    # be read, so the redacted trace is UNKNOWN.
    source = write_spans(
        tmp_path / "speech.json",
        [
            Span(
                "a" * 32,
                "1" * 16,
                name="speak",
                attributes={"gen_ai.output.audio": AUDIO_URI, "note": "mail " + CUSTOMER_EMAIL},
            )
        ],
    )
    out = tmp_path / "out.json"
    assert main(["redact", source, "-o", str(out)]) == ExitCode.FAILED
    assert not out.exists()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"tracecheck: error: {source}: the redacted trace is UNKNOWN; nothing written\n"
        f"  unreadable: span:{'1' * 16}/attributes/gen_ai.output.audio: "
        "audio/wav data URI cannot be read\n"
    )
    assert AUDIO_URI not in captured.err and CUSTOMER_EMAIL not in captured.err
    # Strict replaces media: the same trace passes the strict gate.
    assert main(["redact", source, "-o", str(out), "--profile", "strict"]) == 0
    assert read_traces(out)[0].spans[0].attributes["gen_ai.output.audio"] == "[REDACTED:media]"
    assert capsys.readouterr().err == "redacted 2 values in 1 span (email ×1, media ×1)\n"


def test_the_gate_keeps_an_existing_output_untouched(tmp_path: Path) -> None:
    source = write_spans(
        tmp_path / "speech.json",
        [Span("a" * 32, "1" * 16, name="speak", attributes={"audio": AUDIO_URI})],
    )
    out = tmp_path / "out.json"
    out.write_bytes(b"previous")
    assert main(["redact", source, "-o", str(out)]) == ExitCode.FAILED
    assert out.read_bytes() == b"previous"


# --- redact: unreadable, missing, ambiguous --------------------------------------------------------


def test_unreadable_and_missing_inputs_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    missing = tmp_path / "missing.otlp.jsonl"
    assert main(["redact", str(missing), "-o", str(out)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err == f"tracecheck: error: {missing}: no such file or directory\n"

    broken = tmp_path / "broken.json"
    broken.write_text('{"resourceSpans": [', encoding="utf-8")
    assert main(["redact", str(broken), "-o", str(out)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err == (
        f"tracecheck: error: {broken}: line 1, column 20: malformed JSON: unexpected end of data\n"
    )

    bad_gzip = tmp_path / "bad.jsonl.gz"
    bad_gzip.write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert main(["redact", str(bad_gzip), "-o", str(out)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err.startswith(f"tracecheck: error: {bad_gzip}: could not be read: ")

    text = tmp_path / "notes.txt"
    text.write_text("just words\n", encoding="utf-8")
    assert main(["redact", str(text), "-o", str(out)]) == ExitCode.UNREADABLE
    assert (
        capsys.readouterr().err == f"tracecheck: error: {text}: is not a trace this command reads\n"
    )

    assert main(["redact", str(tmp_path), "-o", str(out)]) == ExitCode.UNREADABLE
    capsys.readouterr()
    assert not out.exists()


def test_an_ambiguous_input_exits_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": "b" * 16}
    both = tmp_path / "both.jsonl"
    both.write_text((json.dumps(record) + "\n") * 2, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["redact", str(both), "-o", str(out)]) == ExitCode.AMBIGUOUS
    assert capsys.readouterr().err == (
        f"tracecheck: error: {both} reads as claude-stream and spans; "
        "pass --format claude-stream or --format spans\n"
    )
    assert not out.exists()
    assert main(["redact", str(both), "-o", str(out), "--format", "spans"]) == ExitCode.OK
    assert span_ids(out) == ["b" * 16, "b" * 16]


def test_a_repeated_span_is_redacted_and_assessed_in_every_copy(tmp_path: Path) -> None:
    # Reading for a check keeps the first copy; redaction must see the copy that differs.
    clean = Span("a" * 32, "b" * 16, None, "tool", 1, 2, None, None, {"note": "fine"})
    leaky = clean.replace(attributes={"note": "key " + OPENAI_KEY})
    source = tmp_path / "run.json"
    source.write_bytes(to_otlp_json([clean, leaky]))
    assert main(["verify-safe", str(source)]) == ExitCode.FAILED
    out = tmp_path / "out.json"
    assert main(["redact", str(source), "-o", str(out)]) == ExitCode.OK
    assert span_ids(out) == ["b" * 16, "b" * 16]
    no_secret_in(out.read_bytes())


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["redact", leaky("otel-genai")]) == ExitCode.USAGE  # no -o
    assert "-o/--output" in capsys.readouterr().err
    assert main(["redact", leaky("otel-genai"), "-o", str(tmp_path / "x"), "--format", "xml"]) == 2
    assert main(["verify-safe"]) == ExitCode.USAGE
    capsys.readouterr()
    unwritable = tmp_path / "no" / "such" / "dir" / "out.jsonl"
    assert main(["redact", leaky("otel-genai"), "-o", str(unwritable)]) == ExitCode.USAGE
    assert capsys.readouterr().err.startswith(f"tracecheck: error: {unwritable}: cannot write: ")


# --- verify-safe ------------------------------------------------------------------------------------


@pytest.mark.parametrize("instrumentation", INSTRUMENTATIONS)
@pytest.mark.parametrize("suffix", ["jsonl", "pb"])
def test_verify_safe_on_the_leaky_fixture(
    instrumentation: str, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = leaky(instrumentation, suffix)
    assert main(["verify-safe", source, "--known-secret-env", "DEPLOY_KEY"]) == ExitCode.FAILED
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == f"{source}: UNSAFE"
    (trace,) = read_traces(source)
    failing = next(s for s in trace.spans if s.status == "error").span_id
    assert any(
        line.startswith("  error: credential (jwt) ×") and f"span:{failing}/status/message" in line
        for line in lines
    )
    assert any(
        line.startswith("  error: credential (known-secret) ×") and "/attributes/" in line
        for line in lines
    )
    assert any(
        line.startswith("  error: personal-data (personal-data-key) ×")
        and "/resource/attributes/deployment.owner.email" in line
        for line in lines
    )
    assert all(line.startswith(("  error: ", "  warning: ")) for line in lines[1:])
    assert captured.err == ""
    no_secret_in(captured.out, captured.err)


def test_verify_safe_on_the_redacted_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for instrumentation in INSTRUMENTATIONS:
        for suffix in ("jsonl", "pb"):
            out = tmp_path / f"{instrumentation}.otlp.{suffix}"
            assert (
                main(
                    [
                        "redact",
                        leaky(instrumentation, suffix),
                        "-o",
                        str(out),
                        "--known-secret-env",
                        "DEPLOY_KEY",
                    ]
                )
                == 0
            )
            capsys.readouterr()
            assert (
                main(["verify-safe", str(out), "--known-secret-env", "DEPLOY_KEY"]) == ExitCode.OK
            )
            captured = capsys.readouterr()
            assert captured.out.splitlines()[0] == f"{out}: SAFE_WITH_WARNINGS"
            assert all(line.startswith("  warning: ") for line in captured.out.splitlines()[1:])
    # Several at once: every file is reported.
    outs = sorted(str(p) for p in tmp_path.iterdir())
    assert main(["verify-safe", *outs, "--known-secret-env", "DEPLOY_KEY"]) == ExitCode.OK
    assert [line for line in capsys.readouterr().out.splitlines() if not line.startswith("  ")] == [
        f"{path}: SAFE_WITH_WARNINGS" for path in outs
    ]


def test_verify_safe_on_plain_json_jsonl_and_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "config.json"
    document.write_text(
        json.dumps({"user": {"email": "someone", "note": "key " + OPENAI_KEY}, OPENAI_KEY: 1}),
        encoding="utf-8",
    )
    lines = tmp_path / "events.jsonl"
    lines.write_text('{"a": 1}\n{"b": "mail ' + CUSTOMER_EMAIL + '"}\n', encoding="utf-8")
    text = tmp_path / "notes.txt"
    text.write_text(f"hello\ndeployed with {KNOWN} today\nbye\n", encoding="utf-8")

    assert main(["verify-safe", str(document)]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert out == (
        f"{document}: UNSAFE\n"
        "  error: personal-data (personal-data-key) ×1 at /user/email\n"
        "  error: credential (provider-key) ×2 at /user/note, /[REDACTED:provider-key]\n"
    )

    assert main(["verify-safe", str(lines)]) == ExitCode.FAILED
    assert (
        capsys.readouterr().out
        == f"{lines}: UNSAFE\n  error: personal-data (email) ×1 at /line 2/b\n"
    )

    assert main(["verify-safe", str(text), "--known-secret-env", "DEPLOY_KEY"]) == ExitCode.FAILED
    captured = capsys.readouterr()
    assert captured.out == f"{text}: UNSAFE\n  error: credential (known-secret) ×1 at /line 2\n"
    no_secret_in(captured.out, captured.err)
    # Without the known secret the text has nothing a detector knows.
    assert main(["verify-safe", str(text)]) == ExitCode.OK
    assert capsys.readouterr().out == f"{text}: SAFE\n"


def test_verify_safe_gzip_and_an_ambiguous_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = tmp_path / "events.json.gz"
    packed.write_bytes(gzip.compress(json.dumps({"note": "mail " + CUSTOMER_EMAIL}).encode()))
    assert main(["verify-safe", str(packed)]) == ExitCode.FAILED
    assert (
        capsys.readouterr().out == f"{packed}: UNSAFE\n  error: personal-data (email) ×1 at /note\n"
    )
    # verify-safe reads any file: one whose trace format is ambiguous is assessed as JSON Lines
    # (DESIGN.md lists no exit 4 for verify-safe).
    record = {"type": "assistant", "session_id": "s", "traceId": "a" * 32, "spanId": "b" * 16}
    both = tmp_path / "both.jsonl"
    both.write_text((json.dumps(record) + "\n") * 2, encoding="utf-8")
    assert main(["verify-safe", str(both)]) == ExitCode.OK
    assert capsys.readouterr().out == (
        f"{both}: SAFE_WITH_WARNINGS\n  warning: identifier (identifier-key) ×2 at /line 1/session_id, /line 2/session_id\n"
    )


def test_verify_safe_on_several_paths_worst_code_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    safe = tmp_path / "safe.json"
    safe.write_text('{"a": "nothing here"}', encoding="utf-8")
    unsafe = tmp_path / "unsafe.json"
    unsafe.write_text(json.dumps({"note": "mail " + CUSTOMER_EMAIL}), encoding="utf-8")
    missing = tmp_path / "missing.json"
    assert main(["verify-safe", str(safe), str(unsafe)]) == ExitCode.FAILED
    assert main(["verify-safe", str(unsafe), str(safe)]) == ExitCode.FAILED
    capsys.readouterr()
    assert main(["verify-safe", str(safe), str(missing), str(unsafe)]) == ExitCode.UNREADABLE
    captured = capsys.readouterr()
    # The missing file does not stop the others from being assessed.
    assert captured.out == (
        f"{safe}: SAFE\n{unsafe}: UNSAFE\n  error: personal-data (email) ×1 at /note\n"
    )
    assert captured.err == f"tracecheck: error: {missing}: no such file or directory\n"
    assert main(["verify-safe", str(safe), str(safe)]) == ExitCode.OK
    capsys.readouterr()


def test_verify_safe_under_a_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = write_spans(
        tmp_path / "failed.json",
        [
            Span(
                "a" * 32, "1" * 16, name="tool", status="error", status_message="order service down"
            )
        ],
    )
    assert main(["verify-safe", status]) == ExitCode.OK
    assert capsys.readouterr().out == (
        f"{status}: SAFE_WITH_WARNINGS\n"
        f"  warning: raw-content (raw-content-key) ×1 at span:{'1' * 16}/status/message\n"
    )
    assert main(["verify-safe", status, "--profile", "strict"]) == ExitCode.FAILED
    assert capsys.readouterr().out == (
        f"{status}: UNSAFE\n"
        f"  error: raw-content (raw-content-key) ×1 at span:{'1' * 16}/status/message\n"
    )


# --- help -------------------------------------------------------------------------------------------

EXIT_CODES = """\
exit codes:
  0  success (every verdict passes; the input is safe to share)
  1  a rule failed; the input is UNSAFE or UNKNOWN (redact writes nothing)
  2  usage error, malformed or contradictory contract, or a rule that could not be evaluated
  3  a trace or input file could not be read
  4  a trace's format is ambiguous: pass --format
"""


@pytest.mark.parametrize("command", [["redact"], ["verify-safe"], []])
def test_help_lists_the_exit_codes(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.endswith(EXIT_CODES)
    if command == ["redact"]:
        for option in (
            "-o OUT",
            "--profile NAME|FILE",
            "--known-secret-env NAME",
            "--known-secrets-file FILE",
            "--pseudonym-key-file FILE",
            "--format",
        ):
            assert option in out
        assert "nothing is written and the exit code is 1" in " ".join(out.split())
