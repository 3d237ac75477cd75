"""Shapes tool output takes (issue 31): structures held in strings judged as structures, base64 of
compressed payloads inflated within a budget, database passwords, known hex secrets in either
case, the OpenTelemetry address keys and E.164 numbers under `share`, and placeholders that are
no findings; with properties over generated inputs of these shapes (redaction is idempotent, and
`verify-safe` of what `redact` wrote is safe).

Fake secrets only, drawn at run time from a seeded generator or glued from parts.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
import string
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redact import assess, assess_spans, redact, redact_spans, redact_text, share_allowed
from redact.decoded import BUDGET, INFLATE_RATIO, MAX_INFLATED, PayloadTooLarge, views
from tracecheck import read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.spans import Span
from tracecheck.writers import to_otlp_json

_RNG = random.Random(31)
_B62 = string.ascii_letters + string.digits


def drawn(n: int, alphabet: str = _B62) -> str:
    """A value drawn at random that holds a digit, a lower- and an upper-case letter."""
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        if alphabet != _B62 or (
            any(c.isdigit() for c in value)
            and any(c.islower() for c in value)
            and any(c.isupper() for c in value)
        ):
            return value


PASSWORD = drawn(18)
# A password of words: nothing about it says secret but the name it stands under.
WORDS = "correct" + " horse " + "staple"
SSN_DIGITS = "5" + "3" + "6" + "224" + "981"
CLIENT_IP = "203.0." + "113.7"
E164 = "+1" + "415" + "867" + "5309"


def span(attributes: dict[str, Any], name: str = "execute_tool run") -> Span:
    return Span("a" * 32, "1" * 16, name=name, attributes=attributes)


def texts_of(value: Any) -> str:
    return json.dumps(value, default=str)


def redacted_spans(attributes: dict[str, Any], profile: str = "share") -> dict[str, Any]:
    (out,) = redact_spans([span(attributes)], profile=profile, pseudonym_key=b"k" * 32).spans
    return dict(out.attributes)


# --- structures held in strings ----------------------------------------------------------------

PAIRS: dict[str, Callable[[str], Any]] = {
    "aws-tags": lambda v: {
        "Tags": [{"Key": "client_secret", "Value": v}, {"Key": "env", "Value": "prod"}]
    },
    "otlp-attributes": lambda v: {
        "attributes": [
            {"key": "db.password", "value": {"stringValue": v}},
            {"key": "http.method", "value": {"stringValue": "GET"}},
        ]
    },
    "har-headers": lambda v: [
        {"name": "X-API-Key", "value": v},
        {"name": "Accept", "value": "*/*"},
    ],
    "kubernetes-env": lambda v: {"env": [{"name": "DB_PASSWORD", "value": v}]},
}


@pytest.mark.parametrize("shape", sorted(PAIRS))
@pytest.mark.parametrize("value", [PASSWORD, WORDS], ids=["generated", "words"])
def test_a_pair_in_a_tool_result_goes_by_its_name(shape: str, value: str) -> None:
    document = PAIRS[shape](value)
    attributes = {"gen_ai.tool.call.result": json.dumps(document)}
    assert assess_spans([span(attributes)], profile="share").status == "UNSAFE"
    out = redacted_spans(attributes)
    assert value not in texts_of(out)
    written = json.loads(out["gen_ai.tool.call.result"])
    # The structure stays, and what does not go by a secret's name is kept.
    assert texts_of(written).count("[REDACTED:credential-key]") == 1
    assert ("prod" in texts_of(written)) == ("prod" in texts_of(document))
    assert share_allowed(assess_spans(redact_spans([span(attributes)], profile="share").spans))


def test_a_pair_in_json_held_in_a_json_string_is_found() -> None:
    inner = json.dumps(PAIRS["aws-tags"](PASSWORD))
    outer = json.dumps({"stdout": inner, "exit_code": 0})
    value = {"tool": {"result": outer}}
    assert assess(value, profile="share").status == "UNSAFE"
    out = redact(value, profile="share").value
    assert PASSWORD not in texts_of(out)
    stdout = json.loads(json.loads(out["tool"]["result"])["stdout"])
    assert stdout["Tags"][0] == {"Key": "client_secret", "Value": "[REDACTED:credential-key]"}


def test_an_ssn_of_digits_under_ssn_in_a_tool_result() -> None:
    attributes = {"gen_ai.tool.call.result": json.dumps({"name": "Ada", "ssn": SSN_DIGITS})}
    assert assess_spans([span(attributes)], profile="share").status == "UNSAFE"
    out = redacted_spans(attributes)
    assert json.loads(out["gen_ai.tool.call.result"]) == {
        "name": "Ada",
        "ssn": "[REDACTED:personal-data-key]",
    }
    # Under default an SSN key is not acted on (the reference's profile table); the digits stay.
    assert redacted_spans(attributes, profile="default") == attributes


def test_identifiers_in_a_tool_result_are_pseudonyms_under_share() -> None:
    attributes = {"gen_ai.tool.call.arguments": json.dumps({"user_id": "u-4711", "limit": 5})}
    out = json.loads(redacted_spans(attributes)["gen_ai.tool.call.arguments"])
    assert out["limit"] == 5 and out["user_id"].startswith("[ID:")


def test_an_argument_list_held_in_a_string_is_read_as_one_command() -> None:
    argv = ["sshpass", "-p", PASSWORD, "ssh", "deploy@web1", "uptime"]
    value = {"process": json.dumps({"argv": argv})}
    out = redact(value, profile="default").value
    assert PASSWORD not in texts_of(out)
    assert json.loads(out["process"])["argv"][0] == "sshpass"


def test_a_document_whose_keys_say_nothing_is_left_as_written() -> None:
    text = '{"sku":"A-1","qty":2,"note":"ship, then bill"}'
    assert redact({"out": text}, profile="share").value == {"out": text}
    assert assess({"out": text}, profile="share").status == "SAFE"


def test_a_redacted_document_keeps_its_layout() -> None:
    compact = '{"note":"ship, then bill","password":"' + PASSWORD + '"}'
    spaced = '{"note": "ship,then bill", "password": "' + PASSWORD + '"}'
    indented = json.dumps({"note": "x", "password": PASSWORD}, indent=2)
    assert redact({"a": compact}).value["a"] == (
        '{"note":"ship, then bill","password":"[REDACTED:credential-key]"}'
    )
    assert redact({"a": spaced}).value["a"] == (
        '{"note": "ship,then bill", "password": "[REDACTED:credential-key]"}'
    )
    assert redact({"a": indented}).value["a"] == json.dumps(
        {"note": "x", "password": "[REDACTED:credential-key]"}, indent=2
    )


def test_a_pgpass_line_inside_json_text_is_found() -> None:
    stdout = json.dumps({"stdout": f"# ~/.pgpass\ndb.internal:5432:shop:app:{PASSWORD}\n"})
    assert assess({"result": stdout}, profile="share").status == "UNSAFE"
    assert PASSWORD not in texts_of(redact({"result": stdout}).value)


def test_free_text_stays_the_reference_string_pipeline() -> None:
    # The reference corpus: JSON in free text is text (`redact_text`), logprob output included.
    text = '{"token": "Hello", "logprob": -0.12}'
    assert redact_text(text) == text


# --- base64 of compressed payloads -------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


ENV_FILE = f"APP_ENV=production\nDB_HOST=db.internal\nDB_PASSWORD={PASSWORD}\n".encode()
KNOWN = "opaque " + "deploy-" + "value 77"


@pytest.mark.parametrize("pack", [gzip.compress, zlib.compress], ids=["gzip", "zlib"])
def test_a_compressed_env_file_in_base64_loses_its_secret(pack: Callable[[bytes], bytes]) -> None:
    text = "cat .env.gz | base64\n" + b64(pack(ENV_FILE))
    assert assess({"stdout": text}, profile="share").status == "UNSAFE"
    assert redact_text(text) == "[REDACTED:secret-assignment]"


def test_a_known_secret_in_a_compressed_payload_is_cut_with_the_payload() -> None:
    payload = b64(gzip.compress(f"note: {KNOWN}, nothing else".encode()))
    text = f"blob {payload} end"
    assert redact_text(text, known_secrets=[KNOWN]) == "blob [REDACTED:known-secret] end"
    verdict = assess({"x": text}, known_secrets=[KNOWN])
    assert [f.detector for f in verdict.findings] == ["known-secret"]


def test_a_payload_cut_short_is_read_as_far_as_it_goes() -> None:
    data = gzip.compress(f"{KNOWN}\n".encode() + b"filler " * 2000)
    payload = b64(data[: len(data) // 2])
    assert KNOWN not in redact_text(f"head {payload}", known_secrets=[KNOWN])


def test_a_corrupt_payload_is_read_as_far_as_it_inflates() -> None:
    # The checksum at its end does not match: the stream inflates whole all the same.
    data = bytearray(gzip.compress(ENV_FILE))
    data[-8] ^= 0xFF
    text = "cat .env.gz | base64\n" + b64(bytes(data))
    assert assess({"stdout": text}, profile="share").status == "UNSAFE"
    assert redact_text(text) == "[REDACTED:secret-assignment]"


def test_what_a_payload_inflates_to_is_decoded_in_turn() -> None:
    # Inflates to more than BUDGET times the string: its own views are still read.
    escaped = "".join(f"%{ord(c):02X}" for c in PASSWORD)
    data = gzip.compress(b"# a comment line\n" * 200 + f"DB_PASSWORD={escaped}\n".encode())
    text = "out " + b64(data)
    assert len(gzip.decompress(data)) > BUDGET * len(text)
    assert assess({"stdout": text}, profile="share").status == "UNSAFE"
    assert PASSWORD in {view.text.rsplit("=", 1)[-1].strip() for view in views(text)}


def test_a_harmless_compressed_payload_is_left_alone() -> None:
    text = "log " + b64(gzip.compress(b"all tests passed in 3 files"))
    assert redact_text(text) == text
    assert assess({"x": text}, profile="share").status == "SAFE"


def test_no_decompression_bomb_goes_off() -> None:
    # Inflates INFLATE_RATIO times its size and more: the string cannot be read whole.
    bomb = b64(gzip.compress(b"\0" * (8 * MAX_INFLATED)))
    assert len(bomb) * INFLATE_RATIO < 8 * MAX_INFLATED
    with pytest.raises(PayloadTooLarge):
        views("payload " + bomb)
    assert redact_text("payload " + bomb) == "[REDACTED:compressed-payload]"
    verdict = assess({"x": "payload " + bomb}, profile="share")
    assert verdict.status == "UNKNOWN"
    assert verdict.unreadable == ("/x: detector compressed-payload ran out of time",)


def test_the_budget_holds_for_many_payloads_in_one_string() -> None:
    # Each payload within its ratio, together past the string's budget.
    one = b64(gzip.compress(bytes(range(256)) * (MAX_INFLATED // 256 // 3)))
    with pytest.raises(PayloadTooLarge):
        views(" ".join([one] * 4))


# --- database passwords, end to end --------------------------------------------------------------

DATABASE = {
    "alter-user": f"ALTER USER app WITH PASSWORD '{PASSWORD}';",
    "create-user": f"CREATE USER 'app'@'%' IDENTIFIED BY '{PASSWORD}';",
    "set-password": f"SET PASSWORD FOR 'app'@'%' = PASSWORD('{PASSWORD}');",
    "pgpass": f"db.internal:5432:shop:app:{PASSWORD}",
    "go-dsn": f'dsn := "app:{PASSWORD}@tcp(db:3306)/shop?parseTime=true"',
}


@pytest.mark.parametrize("shape", sorted(DATABASE))
def test_database_passwords_are_removed_and_the_copy_passes_the_gate(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "run.json"
    source.write_bytes(to_otlp_json([span({"db.statement": DATABASE[shape]})]))
    assert main(["verify-safe", str(source)]) == ExitCode.FAILED
    out = tmp_path / "shared.json"
    assert main(["redact", str(source), "-o", str(out)]) == ExitCode.OK
    assert main(["verify-safe", str(out)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert PASSWORD not in captured.out + captured.err + out.read_text()


# --- known secrets of hex digits -------------------------------------------------------------------


@pytest.mark.parametrize("registered", ["lower", "upper"])
def test_a_hex_secret_is_cut_in_either_case(registered: str) -> None:
    secret = drawn(40, "0123456789abcdef")
    known = secret if registered == "lower" else secret.upper()
    for written in (secret.upper(), secret, b64(secret.upper().encode())):
        out = redact_text(f"token {written} used", known_secrets=[known])
        assert out == "token [REDACTED:known-secret] used"


def test_a_uuid_secret_is_cut_in_either_case() -> None:
    secret = "-".join(drawn(n, "0123456789abcdef") for n in (8, 4, 4, 4, 12))
    out = redact_text("id " + secret.upper(), known_secrets=[secret])
    assert out == "id [REDACTED:known-secret]"


# --- share: addresses, E.164 ------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["client.address", "source.address", "network.peer.address"])
def test_an_address_key_is_personal_data_under_share(key: str) -> None:
    attributes = {key: CLIENT_IP, "server.address": "api.example.test"}
    assert assess_spans([span(attributes)], profile="share").status == "UNSAFE"
    out = redacted_spans(attributes)
    assert out == {key: "[REDACTED:personal-data-key]", "server.address": "api.example.test"}
    assert redacted_spans(attributes, profile="default") == attributes


def test_an_e164_number_is_a_phone_number() -> None:
    assert redact_text(f"call {E164} today") == "call [REDACTED:phone] today"
    assert assess({"note": f"sms {E164}"}, profile="share").status == "UNSAFE"


# --- placeholders -------------------------------------------------------------------------------

ENV_EXAMPLE = "\n".join(
    [
        "ANTHROPIC_API_KEY=<your-api-key>",
        "OPENAI_API_KEY=${OPENAI_API_KEY}",
        "GITHUB_TOKEN=ghp_" + "x" * 36,
        "DB_PASSWORD=changeme",
        "SECRET_TOKEN=xxxxxxxxxxxxxxxx",
        "SESSION_SECRET=change_this_secret",
        "JWT_SECRET=replace-with-a-long-random-string",
        "API_KEY=your-api-key-here",
        "STRIPE_SECRET_KEY=sk_test_...",
        "HF_TOKEN=hf_" + "x" * 34,
        "DUMMY_KEY=dummy-api-key",
        "TODO_TOKEN=TODO",
        "",
    ]
)


def test_an_env_example_of_placeholders_holds_no_finding() -> None:
    assert redact_text(ENV_EXAMPLE, profile="share") == ENV_EXAMPLE
    assert assess({"file": ENV_EXAMPLE}, profile="share").status == "SAFE"
    for line in ENV_EXAMPLE.splitlines():
        assert assess({"line": line}, profile="share").status == "SAFE", line.split("=")[0]


@pytest.mark.parametrize(
    "value", ["changeme123", "Changeme-2024!", "changeme_" + PASSWORD, "dummy_" + PASSWORD]
)
def test_a_real_password_that_starts_as_a_placeholder_is_found(value: str) -> None:
    for text in (
        f"DB_PASSWORD={value}",
        f"ALTER USER app WITH PASSWORD '{value}';",
        f"db.internal:5432:shop:app:{value}",
        f"postgres://app:{value}@db:5432/shop",
    ):
        assert assess({"x": text}, profile="share").status == "UNSAFE", text.split(value)[0]


def test_a_real_value_beside_placeholders_is_still_found() -> None:
    text = ENV_EXAMPLE + f"DB_PASSWORD={PASSWORD}\n"
    assert assess({"file": text}, profile="share").status == "UNSAFE"


# --- properties over generated inputs of these shapes --------------------------------------------

_SECRET = st.text(alphabet=_B62, min_size=12, max_size=24).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
)
_WORD = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=8)


def _shape(kind: str, secret: str, word: str) -> Any:
    """A value of one of the shapes, holding `secret` (and a word of ordinary content)."""
    if kind == "aws-tags":
        return json.dumps(PAIRS["aws-tags"](secret))
    if kind == "otlp":
        return json.dumps(PAIRS["otlp-attributes"](secret))
    if kind == "ssn":
        return json.dumps({"who": word, "ssn": SSN_DIGITS})
    if kind == "gzip-env":
        return b64(gzip.compress(f"{word.upper()}_PASSWORD={secret}\n".encode()))
    if kind == "sql":
        return f"ALTER USER {word or 'app'} WITH PASSWORD '{secret}';"
    if kind == "pgpass":
        return f"db.{word}.internal:5432:shop:app:{secret}"
    if kind == "dsn":
        return f"app:{secret}@tcp(db:3306)/{word}"
    if kind == "nested":
        return json.dumps({"stdout": json.dumps({"Key": "client_secret", "Value": secret})})
    return f"{word} ok"


_KINDS = ["aws-tags", "otlp", "ssn", "gzip-env", "sql", "pgpass", "dsn", "nested", "plain"]


@st.composite
def shaped(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """Span attributes of these shapes, and the secrets they hold."""
    items = draw(
        st.lists(st.tuples(st.sampled_from(_KINDS), _SECRET, _WORD), min_size=1, max_size=4)
    )
    where = draw(st.sampled_from(["gen_ai.tool.call.result", "tool.output", "db.statement"]))
    attributes = {f"{where}.{i}": _shape(*item) for i, item in enumerate(items)}
    secrets = [secret for kind, secret, _ in items if kind != "plain"]
    return attributes, secrets


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shaped(), st.sampled_from(["default", "share", "strict"]))
def test_redaction_of_these_shapes_is_idempotent(
    case: tuple[dict[str, Any], list[str]], profile: str
) -> None:
    value, secrets = case
    once = redact(value, profile=profile, pseudonym_key=b"k" * 32).value
    assert redact(once, profile=profile, pseudonym_key=b"k" * 32).value == once
    assert share_allowed(assess(once, profile=profile))
    assert not any(secret in texts_of(once) for secret in secrets)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shaped())
def test_verify_safe_of_what_redact_wrote_is_safe(case: tuple[dict[str, Any], list[str]]) -> None:
    attributes, secrets = case
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "run.json"
        source.write_bytes(to_otlp_json([span(attributes)]))
        out = Path(folder) / "shared.json"
        assert main(["redact", str(source), "-o", str(out), "--profile", "share"]) == ExitCode.OK
        assert main(["verify-safe", str(out), "--profile", "share"]) == ExitCode.OK
        (trace,) = read_traces(out)
        written = texts_of([dict(s.attributes) for s in trace.spans])
        assert not any(secret in written for secret in secrets)
        assert SSN_DIGITS not in written


# --- the documentation lists every detector -------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "redaction.md"


def detector_table() -> str:
    """The table of docs/redaction.md's "Every detector": each detector in the order tried."""
    from redact.detectors import CREDENTIAL_DETECTORS, OPT_IN_DETECTORS, PERSONAL_DETECTORS

    rows = ["| detector | finds |", "|---|---|"]
    for detector in (*CREDENTIAL_DETECTORS, *PERSONAL_DETECTORS, *OPT_IN_DETECTORS):
        opt_in = " (opt-in)" if detector in OPT_IN_DETECTORS else ""
        described = detector.description.replace("|", "\\|")
        rows.append(f"| `{detector.id}`{opt_in} | {described} |")
    return "\n".join(rows)


def test_the_redaction_page_lists_every_detector() -> None:
    page = DOCS.read_text(encoding="utf-8")
    start = page.index("| detector | finds |")
    end = page.index("\n\n", start)
    assert page[start:end] == detector_table()
