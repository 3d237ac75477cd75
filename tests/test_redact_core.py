"""The redaction walk and the share-safety verdict: spec §B3, §B4, §B10–B13 and Part A1–A4/A7."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from redact import (
    REDACTION_VERSION,
    ShareStatus,
    assess,
    combine_verdicts,
    redact,
    redact_for_share,
    redact_text,
    share_allowed,
)
from redact.profiles import ProfileError

# Fake credentials, assembled at run time so no contiguous token sits in the source.
PROVIDER_KEY = "sk-" + "proj-" + "abcdEFGH1234ijklMNOP5678qrst"
GITHUB_TOKEN = "gh" + "p_" + "ABCDEFGHIJKLMNOPQRST" + "UVWXYZ0123456789"


def findings(value: Any, **options: Any) -> list[tuple[str, str, str, str]]:
    report = redact(value, **options).report
    return [(f.path, f.category, f.detector, f.action) for f in report.findings]


def test_the_output_is_a_new_structure_and_the_input_is_never_mutated() -> None:
    value = {"a": [{"b": "contact ada@example.test"}], "n": 1}
    out = redact(value).value
    assert value == {"a": [{"b": "contact ada@example.test"}], "n": 1}
    assert out == {"a": [{"b": "contact [REDACTED:email]"}], "n": 1}
    assert out is not value and out["a"] is not value["a"]


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, 90, 1.5, "", datetime.date(2026, 1, 2), datetime.datetime(2026, 1, 2)],
)
def test_plain_values_pass_through(value: Any) -> None:
    result = redact({"password_max_age": value, "apiKey": value, "v": value}, profile="strict")
    if isinstance(value, int | float) or value is None or value == "":
        assert result.value["apiKey"] == value
    assert result.value["v"] == value


def test_a_credential_key_replaces_strings_objects_and_arrays_but_not_numbers() -> None:
    out = redact({"apiKey": {"nested": 1}, "token": ["a"], "password_max_age": 90, "secret": None})
    assert out.value == {
        "apiKey": "[REDACTED:credential-key]",
        "token": "[REDACTED:credential-key]",
        "password_max_age": 90,
        "secret": None,
    }


def test_key_classes_act_by_profile() -> None:
    value = {"email": "a@b.test", "phone": "555", "userId": "u1", "prompt": "hi", "n": {"x": 1}}
    assert redact(value).value == {**value, "email": "[REDACTED:personal-data-key]"}
    share = redact(value, profile="share").value
    assert share["phone"] == "[REDACTED:personal-data-key]"
    assert share["userId"].startswith("[ID:") and share["prompt"] == "hi"
    strict = redact(value, profile="strict").value
    assert strict["prompt"] == "[REDACTED:raw-content-key]"


def test_pseudonyms_agree_within_a_call_and_with_a_shared_key_only() -> None:
    value = {
        "userId": "u1",
        "nested": {"user_id": "u1"},
        "account_id": 42,
        "other": {"org_id": "42"},
    }
    out = redact(value, profile="share").value
    assert out["userId"] == out["nested"]["user_id"]
    assert out["account_id"] == out["other"]["org_id"]  # String(42) == "42", as in the reference
    again = redact(value, profile="share").value
    assert again["userId"] != out["userId"]
    keyed = [redact(value, profile="share", pseudonym_key=b"k" * 32).value for _ in range(2)]
    assert keyed[0] == keyed[1]


def test_a_key_that_holds_a_credential_is_renamed_and_its_finding_comes_first() -> None:
    out = redact({PROVIDER_KEY: "x", GITHUB_TOKEN: "contact ada@example.test", "ok": 1})
    assert list(out.value) == ["[REDACTED:provider-key]#1", "[REDACTED:github-token]#2", "ok"]
    assert [(f.path, f.detector) for f in out.report.findings] == [
        ("/[REDACTED:provider-key]#1", "provider-key"),
        ("/[REDACTED:github-token]#2", "github-token"),
        ("/[REDACTED:github-token]#2", "email"),
    ]


def test_paths_are_json_pointers() -> None:
    assert findings({"a/b": {"c~d": ["x", "ada@example.test"]}}) == [
        ("/a~1b/c~0d/1", "personal-data", "email", "redacted")
    ]


def test_structural_problems_become_markers() -> None:
    cycle: dict[str, Any] = {"name": "loop"}
    cycle["self"] = cycle
    shared = {"k": "v"}
    deep: Any = "leaf"
    for _ in range(70):
        deep = [deep]
    value = {
        "cycle": cycle,
        "twice": [shared, shared],
        "blob": b"\x00\x01",
        "deep": deep,
        "odd": object(),
    }
    out = redact(value)
    assert out.value["cycle"]["self"] == "[REDACTED:circular]"
    assert out.value["twice"] == [{"k": "v"}, {"k": "v"}]  # shared, not circular
    assert out.value["blob"] == "[REDACTED:binary]"
    assert out.value["odd"] == "[REDACTED:unsupported-type]"
    level = out.value["deep"]
    for _ in range(64):
        level = level[0]
    assert level == "[REDACTED:depth-limit]"
    assert out.report.truncated_count == 1


def test_assess_reports_unreadable_values_as_unknown() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    verdict = assess({"c": cycle, "b": bytearray(b"x"), "o": object()})
    assert verdict.status is ShareStatus.UNKNOWN
    assert verdict.unreadable == (
        "/c/self: circular reference",
        "/b: binary data",
        "/o: a value of type object cannot be read",
    )
    assert not share_allowed(verdict)


def test_truncation_runs_after_personal_data_and_is_reported() -> None:
    text = "mail ada@example.test " + "é" * 3000
    out = redact({"t": text}, profile="strict")
    assert out.value["t"].startswith("mail [REDACTED:email] é")
    assert out.value["t"].endswith(" bytes]")
    assert [f.detector for f in out.report.findings] == ["email", "size-cap"]
    assert (
        redact({"t": "a" * 100}, max_string_bytes=10).value["t"]
        == "a" * 10 + "…[truncated 90 bytes]"
    )


def test_data_uris() -> None:
    import base64

    def uri(mime: str, text: str) -> str:
        return f"data:{mime};base64,{base64.b64encode(text.encode()).decode()}"

    clean = uri("text/plain", "hello world")
    leaky = uri("application/json", '{"password": "hunter2"}')
    image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    assert redact_text(clean) == clean
    assert redact_text(leaky) == "[REDACTED:data-uri-payload]"
    assert redact_text("data:text/plain;base64,@@@@") == "data:text/plain;base64,@@@@"  # not a URI
    assert redact_text("data:text/plain;base64,abc") == "[REDACTED:data-uri-payload]"
    assert redact_text(image) == image
    assert redact_text(image, profile="strict") == "[REDACTED:media]"
    # Data URIs are not truncated; over the cap they are removed whole (Part A4).
    big = "data:image/png;base64," + "A" * 5000
    assert redact_text(big, profile="share") == big
    assert redact_text(big, max_string_bytes=4096) == "[REDACTED:media]"
    assert assess({"img": image}, profile="share").status is ShareStatus.SAFE_WITH_WARNINGS
    audio = "data:audio/wav;base64,UklGRg=="
    assert assess({"a": audio}).status is ShareStatus.SAFE_WITH_WARNINGS
    assert assess({"a": audio}, profile="share").unreadable == (
        "/a: audio/wav data URI cannot be read",
    )
    assert assess({"d": "data:text/plain;base64,abc"}).unreadable == (
        "/d: data URI payload is not valid base64",
    )


def test_json_data_uris_nested_in_each_other_are_bounded_by_one_depth() -> None:
    import base64
    import json

    def json_uri(document: Any) -> str:
        return (
            "data:application/json;base64,"
            + base64.b64encode(json.dumps(document).encode()).decode()
        )

    # Eight URIs, each holding the next 60 lists down: no one document passes the walk's
    # depth, all of them together do (each used to start again at depth 0).
    value: Any = "plain"
    for _ in range(8):
        for _ in range(60):
            value = [value]
        value = json_uri(value)
    verdict = assess({"x": value})
    assert verdict.status is ShareStatus.UNKNOWN
    assert [reason.split(": ")[1] for reason in verdict.unreadable] == [
        "nested deeper than 64 levels"
    ]
    # Deeper than the JSON parser follows: UNKNOWN to the gate, cut by the redactor.
    deep = (
        "data:application/json;base64," + base64.b64encode(b"[" * 100_000 + b"]" * 100_000).decode()
    )
    assert assess({"x": deep}).unreadable == ("/x: data URI JSON nests deeper than it can be read",)
    assert redact({"x": deep}).value == {"x": "[REDACTED:data-uri-payload]"}


@pytest.mark.parametrize(
    ("value", "statuses"),
    [
        ({"email": "a@example.test"}, ("SAFE_WITH_WARNINGS", "UNSAFE", "UNSAFE")),
        ({"note": "card 4111 1111 1111 1111"}, ("SAFE_WITH_WARNINGS", "UNSAFE", "UNSAFE")),
        ({"currentTask": "summarise"}, ("SAFE_WITH_WARNINGS", "SAFE_WITH_WARNINGS", "UNSAFE")),
        (
            {"requestId": "550e8400-e29b-41d4-a716-446655440000"},
            ("SAFE", "SAFE_WITH_WARNINGS", "SAFE_WITH_WARNINGS"),
        ),
        (
            {"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
            ("SAFE", "SAFE", "SAFE"),
        ),
        (
            {"status": {"code": 2, "message": "boom"}},
            ("SAFE_WITH_WARNINGS", "SAFE_WITH_WARNINGS", "UNSAFE"),
        ),
        ({"key": PROVIDER_KEY}, ("UNSAFE", "UNSAFE", "UNSAFE")),
    ],
)
def test_expected_statuses(value: Any, statuses: tuple[str, str, str]) -> None:
    got = tuple(assess(value, profile=p).status.value for p in ("default", "share", "strict"))
    assert got == statuses


def test_redact_for_share_assesses_the_redacted_output() -> None:
    result = redact_for_share({"userId": "u1", "note": f"key {PROVIDER_KEY}"}, profile="share")
    assert (
        result.verdict.status is ShareStatus.SAFE_WITH_WARNINGS
        or result.verdict.status is ShareStatus.SAFE
    )
    assert share_allowed(result.verdict)
    assert PROVIDER_KEY not in str(result.value)
    assert result.report.version == REDACTION_VERSION


def test_findings_aggregate_by_detector_with_five_paths_at_most() -> None:
    verdict = assess({f"k{i}": f"mail a{i}@example.test" for i in range(7)}, profile="share")
    (finding,) = verdict.findings
    assert (finding.category, finding.detector, finding.severity, finding.count) == (
        "personal-data",
        "email",
        "error",
        7,
    )
    assert finding.paths == ("/k0", "/k1", "/k2", "/k3", "/k4")
    combined = combine_verdicts("share", [verdict, verdict], ["/x: binary data"])
    assert combined.findings[0].count == 14 and combined.status is ShareStatus.UNKNOWN


def test_assess_paths_never_hold_the_secret_in_a_key() -> None:
    verdict = assess({PROVIDER_KEY: 1})
    assert verdict.findings[0].paths == ("/[REDACTED:provider-key]",)
    assert PROVIDER_KEY not in str(verdict)


def test_a_string_that_only_starts_like_a_placeholder_is_inspected() -> None:
    assert redact_text(f"[REDACTED:x] {PROVIDER_KEY}") == "[REDACTED:provider-key]"
    assert redact_text("[REDACTED:provider-key]") == "[REDACTED:provider-key]"


def test_an_unknown_profile_is_refused_by_name() -> None:
    with pytest.raises(ProfileError, match="unknown redaction profile: public"):
        redact({}, profile="public")
    with pytest.raises(ProfileError, match="unknown redaction profile: public"):
        assess({}, profile="public")


def test_reports_never_hold_a_removed_value() -> None:
    value = {"k": f"token {PROVIDER_KEY} for ada@example.test", "password": "hunter2-long"}
    out = redact(value, profile="share", known_secrets=["zq9 Opaque/Deploy Key 77"])
    text = repr(out.report) + repr(out.report.to_json())
    for secret in (PROVIDER_KEY, "ada@example.test", "hunter2-long"):
        assert secret not in text


@pytest.mark.parametrize("profile", ["default", "share", "strict"])
def test_a_pseudonym_left_in_a_secret_named_key_is_no_secret(profile: str) -> None:
    # Share writes an address in a key as its pseudonym: `password==[ID:…]` then reads like
    # a password assigned a mixed value, and the gate refused redaction's own output.
    value = [{"password==ada" + "@example.test": None}]
    out = redact(value, profile=profile).value
    assert assess(out, profile=profile).status is ShareStatus.SAFE
    beside = {"note": "password=" + "Xk9pQ2mZ7vL4rT8w" + "[ID:134f560acee5]"}
    assert assess(beside, profile=profile).status is ShareStatus.UNSAFE


def test_a_list_that_holds_itself_is_unreadable_not_a_crash() -> None:
    looped: list[Any] = []
    looped.append(looped)
    value = {"a": looped, "b": "plain"}
    assert assess(value, profile="share").status is ShareStatus.UNKNOWN
    assert redact(value, profile="share").value == {"a": ["[REDACTED:circular]"], "b": "plain"}


@pytest.mark.parametrize(
    ("levels", "status"),
    [(1, "UNSAFE"), (5, "UNSAFE"), (15, "UNSAFE"), (16, "UNSAFE"), (17, "UNSAFE"), (40, "UNKNOWN")],
)
def test_a_secret_nested_under_plain_keys_is_found_at_any_depth(levels: int, status: str) -> None:
    # Past 64 levels of nesting (40 mappings, 26 lists) the value cannot be read: UNKNOWN.
    token = "ghp_" + "Zx9Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4V"
    value: Any = {"note": "see " + token}
    for i in range(levels):
        value = {f"n{i}": [value] if i % 3 else value, "plain": "text"}
    assert assess(value, profile="share").status is ShareStatus(status)
    assert token not in repr(redact(value, profile="share").value)
