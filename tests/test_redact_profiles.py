"""redaction.md §B2 and A8: the built-in profiles, asserted through what they do, and profiles
extended from YAML/JSON text, a file or a dict, validated strictly with exact messages.

`detectors.disable` turns off any detector; `detectors.enable` turns on the opt-in ones
(`redact.detectors.OPT_IN_DETECTORS`), which no built-in profile runs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from redact import (
    PROFILES,
    REDACTION_PROFILES,
    Profile,
    ProfileError,
    assess,
    assess_spans,
    load_profile,
    redact,
    redact_spans,
    redact_text,
)
from tracecheck.spans import Span

ALL = ("default", "share", "strict")
EMAIL = "jane.doe" + "@" + "example.com"
PHONE = "(415) " + "555-2671"
OPENAI_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"
IMAGE_URI = "data:image/png;base64," + "iVBORw0KGgo="
PSEUDONYM = re.compile(r"\[ID:[0-9a-f]{12}\]\Z")


def statuses(value: Any, profile: str | Profile) -> tuple[str, list[tuple[str, str, str]]]:
    verdict = assess(value, profile=profile)
    return verdict.status.value, [(f.category, f.detector, f.severity) for f in verdict.findings]


# --- the built-in table (§B2) ------------------------------------------------------------------


def test_the_built_in_profiles_are_default_share_strict() -> None:
    assert REDACTION_PROFILES == ALL
    assert tuple(PROFILES) == ALL


@pytest.mark.parametrize(
    ("profile", "cap"), [("default", 1_048_576), ("share", 65_536), ("strict", 4_096)]
)
def test_per_string_cap(profile: str, cap: int) -> None:
    at_cap = "a" * cap
    assert redact_text(at_cap, profile=profile) == at_cap
    over = redact({"note": "a" * (cap + 10)}, profile=profile)
    assert over.value["note"] == "a" * cap + "…[truncated 10 bytes]"
    assert [(f.path, f.category, f.detector, f.action) for f in over.report.findings] == [
        ("/note", "raw-content", "size-cap", "truncated")
    ]
    assert over.report.truncated_count == 1


def test_the_cap_never_cuts_inside_a_character() -> None:
    # §B11's example: 3,000 × "é" (6,000 bytes) under strict keeps 2,048 characters.
    assert redact_text("é" * 3000, profile="strict") == "é" * 2048 + "…[truncated 1904 bytes]"


@pytest.mark.parametrize("profile", ALL)
def test_removal_in_every_profile(profile: str) -> None:
    out = redact(
        {
            "password": "hunter2-but-longer",
            "password_max_age": 90,
            "apiKey": None,
            "email": "someone",
            "note": f"mail {EMAIL} or call {PHONE}",
            "log": "using " + OPENAI_KEY,
        },
        profile=profile,
    ).value
    assert out == {
        "password": "[REDACTED:credential-key]",
        "password_max_age": 90,  # numbers survive credential keys
        "apiKey": None,
        "email": "[REDACTED:personal-data-key]",
        "note": "mail [REDACTED:email] or call [REDACTED:phone]",
        "log": "[REDACTED:provider-key]",
    }


@pytest.mark.parametrize(
    ("profile", "phone", "user", "prompt", "image"),
    [
        ("default", "front desk", "u1", "hi", IMAGE_URI),
        ("share", "[REDACTED:personal-data-key]", "pseudonym", "hi", IMAGE_URI),
        (
            "strict",
            "[REDACTED:personal-data-key]",
            "pseudonym",
            "[REDACTED:raw-content-key]",
            "[REDACTED:media]",
        ),
    ],
)
def test_key_based_removal_and_media(
    profile: str, phone: str, user: str, prompt: str, image: str
) -> None:
    out = redact(
        {"phone": "front desk", "user_id": "u1", "prompt": "hi", "img": IMAGE_URI},
        profile=profile,
    ).value
    assert out["phone"] == phone
    if user == "pseudonym":
        assert PSEUDONYM.match(out["user_id"])
    else:
        assert out["user_id"] == user
    assert out["prompt"] == prompt
    assert out["img"] == image


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            {"log": "key " + OPENAI_KEY},
            {
                "default": ("UNSAFE", [("credential", "provider-key", "error")]),
                "share": ("UNSAFE", [("credential", "provider-key", "error")]),
                "strict": ("UNSAFE", [("credential", "provider-key", "error")]),
            },
        ),
        (
            {"note": "mail " + EMAIL},
            {
                "default": ("SAFE_WITH_WARNINGS", [("personal-data", "email", "warning")]),
                "share": ("UNSAFE", [("personal-data", "email", "error")]),
                "strict": ("UNSAFE", [("personal-data", "email", "error")]),
            },
        ),
        (
            {"user_id": "u1"},
            {
                "default": ("SAFE", []),  # identifier has no severity: no finding at all
                "share": ("SAFE_WITH_WARNINGS", [("identifier", "identifier-key", "warning")]),
                "strict": ("SAFE_WITH_WARNINGS", [("identifier", "identifier-key", "warning")]),
            },
        ),
        (
            {"prompt": "hi"},
            {
                "default": ("SAFE_WITH_WARNINGS", [("raw-content", "raw-content-key", "warning")]),
                "share": ("SAFE_WITH_WARNINGS", [("raw-content", "raw-content-key", "warning")]),
                "strict": ("UNSAFE", [("raw-content", "raw-content-key", "error")]),
            },
        ),
        (
            {"img": IMAGE_URI},
            {
                "default": ("SAFE_WITH_WARNINGS", [("media", "media", "warning")]),
                "share": ("SAFE_WITH_WARNINGS", [("media", "media", "warning")]),
                "strict": ("UNSAFE", [("media", "media", "error")]),
            },
        ),
        (
            {"phone": "front desk"},
            {
                "default": ("SAFE", []),  # phone keys act only under share/strict
                "share": ("UNSAFE", [("personal-data", "personal-data-key", "error")]),
                "strict": ("UNSAFE", [("personal-data", "personal-data-key", "error")]),
            },
        ),
    ],
    ids=["credential", "personal-data", "identifier", "raw-content", "media", "share-personal"],
)
def test_severities(value: dict[str, Any], expected: dict[str, Any]) -> None:
    for profile in ALL:
        assert statuses(value, profile) == expected[profile], profile


@pytest.mark.parametrize("profile", ALL)
def test_redacted_output_reassesses_as_share_allowed(profile: str) -> None:
    value = {"note": f"{EMAIL} {PHONE}", "user_id": "u1", "phone": "1", "log": OPENAI_KEY}
    status, findings = statuses(redact(value, profile=profile).value, profile)
    assert status in ("SAFE", "SAFE_WITH_WARNINGS")
    assert all(severity == "warning" for _, _, severity in findings)


# --- unknown names -------------------------------------------------------------------------------


def test_an_unknown_profile_name_is_refused_everywhere() -> None:
    span = Span("a" * 32, "b" * 16, name="x")
    for call in (
        lambda: redact({}, profile="x"),
        lambda: assess({}, profile="x"),
        lambda: redact_text("x", profile="x"),
        lambda: redact_spans([span], profile="x"),
        lambda: assess_spans([span], profile="x"),
    ):
        with pytest.raises(ProfileError) as info:
            call()
        assert str(info.value) == "unknown redaction profile: x"
        assert info.value.problems == ["unknown redaction profile: x"]


# --- load_profile: sources ----------------------------------------------------------------------

YAML_TEXT = """\
name: acme-share
extends: share
maxStringBytes: 32768
keys:
  credential: [x_acme_signature]
  identifier: [ticket_id]
detectors:
  disable: [phone]
"""


def check_acme(profile: Profile, *, name: str = "acme-share") -> None:
    assert profile.name == name
    assert profile.max_string_bytes == 32_768
    assert profile.disabled_detectors == frozenset({"phone"})
    # Everything else is the base profile's.
    share = PROFILES["share"]
    assert profile.severity == share.severity
    assert (
        profile.remove_share_personal_keys,
        profile.pseudonymize_identifiers,
        profile.remove_raw_content_keys,
        profile.replace_media,
    ) == (True, True, False, False)


def test_load_from_yaml_text() -> None:
    check_acme(load_profile(YAML_TEXT))


def test_load_from_json_text_multi_line_and_one_long_line() -> None:
    document: dict[str, Any] = {
        "name": "acme-share",
        "extends": "share",
        "maxStringBytes": 32768,
        "keys": {"credential": ["x_acme_signature"], "identifier": ["ticket_id"]},
        "detectors": {"disable": ["phone"]},
    }
    check_acme(load_profile(json.dumps(document, indent=2)))
    # One line longer than a file name may be (was OSError: File name too long; fixed).
    document["keys"]["raw-content"] = [f"field_{i}" for i in range(60)]
    text = json.dumps(document)
    assert "\n" not in text and len(text) > 300
    check_acme(load_profile(text))


def test_load_from_files(tmp_path: Path) -> None:
    yaml_file = tmp_path / "acme.yaml"
    yaml_file.write_text(YAML_TEXT, encoding="utf-8")
    json_file = tmp_path / "acme.json"
    json_file.write_text(json.dumps(load_yaml_as_dict()), encoding="utf-8")
    for source in (yaml_file, str(yaml_file), json_file, str(json_file)):
        check_acme(load_profile(source))


def load_yaml_as_dict() -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load(YAML_TEXT)
    return loaded


def test_load_from_a_dict_and_defaults() -> None:
    check_acme(load_profile(load_yaml_as_dict()))
    plain = load_profile({"extends": "strict"})
    assert plain == PROFILES["strict"]  # name, cap, keys and detectors all inherited
    named = load_profile({"extends": "default", "name": "mine"})
    assert (named.name, named.max_string_bytes) == ("mine", 1_048_576)


def test_max_string_bytes_may_lower_the_cap_or_keep_it() -> None:
    assert load_profile({"extends": "strict", "maxStringBytes": 4096}).max_string_bytes == 4096
    assert load_profile({"extends": "strict", "maxStringBytes": 0}).max_string_bytes == 0
    lowered = load_profile({"extends": "share", "maxStringBytes": 100})
    assert redact_text("b" * 150, profile=lowered) == "b" * 100 + "…[truncated 50 bytes]"
    assert redact_text("b" * 150, profile="share") == "b" * 150


# --- load_profile: errors, each message pinned -------------------------------------------------


@pytest.mark.parametrize(
    ("document", "problems"),
    [
        (
            {"extends": "share", "keys": {"credentail": ["x"]}},
            [
                '/keys: unknown key class "credentail" — did you mean "credential"? '
                "(allowed: credential, email, personal-data, identifier, raw-content)"
            ],
        ),
        (
            {"extends": "shar"},
            [
                '/extends: unknown profile "shar" — did you mean "share"? (allowed: default, share, strict)'
            ],
        ),
        (
            {"extend": "share"},
            [
                'unknown key "extend" — did you mean "extends"? '
                "(allowed: name, extends, maxStringBytes, keys, detectors, "
                "allowedKeys, values, pseudonyms, summary, sanitize)",
                'missing required key "extends" (one of: default, share, strict)',
            ],
        ),
        (
            {"extends": "share", "maxStringBytes": 100000},
            [
                '/maxStringBytes: 100000 is over the 65536 of "share"; a profile may only lower the cap'
            ],
        ),
        (
            {"extends": "share", "maxStringBytes": -1},
            ["/maxStringBytes: must be a whole number of bytes, 0 or more"],
        ),
        (
            {"extends": "share", "maxStringBytes": True},
            ["/maxStringBytes: must be a whole number of bytes, 0 or more"],
        ),
        (
            {"extends": "share", "maxStringBytes": 1.5},
            ["/maxStringBytes: must be a whole number of bytes, 0 or more"],
        ),
        (
            {"extends": "share", "detectors": {"disable": ["phon"]}},
            ['/detectors/disable/0: unknown detector "phon" — did you mean "phone"?'],
        ),
        (
            {"extends": "share", "detectors": {"disable": ["phone", "no-such-thing-at-all"]}},
            ['/detectors/disable/1: unknown detector "no-such-thing-at-all"'],
        ),
        (
            {"extends": "share", "detectors": {"disabel": ["phone"]}},
            [
                '/detectors: unknown key "disabel" — did you mean "disable"? '
                "(allowed: disable, enable)"
            ],
        ),
        (
            {"extends": "share", "detectors": {"disable": "phone"}},
            ["/detectors/disable: must be a list of detector ids"],
        ),
        (
            {"extends": "share", "detectors": ["phone"]},
            ["/detectors: must be an object with the keys: disable, enable"],
        ),
        (
            {"extends": "share", "detectors": {"enable": ["ibna"]}},
            ['/detectors/enable/0: unknown detector "ibna" — did you mean "iban"?'],
        ),
        (
            {"extends": "share", "detectors": {"enable": "iban"}},
            ["/detectors/enable: must be a list of detector ids"],
        ),
        (
            {"extends": "share", "detectors": {"disable": [["phone"], 7]}},
            [
                "/detectors/disable/0: must be a detector id, not an array",
                "/detectors/disable/1: must be a detector id, not a number",
            ],
        ),
        (
            {"extends": "share", "detectors": {"enable": ["iban"], "disable": ["iban", "phone"]}},
            ['/detectors: "iban" is both disabled and enabled'],
        ),
        (
            {"extends": "share", "keys": {"credential": "x_sig"}},
            ["/keys/credential: must be a list of non-empty key names"],
        ),
        (
            {"extends": "share", "keys": {"credential": [""]}},
            ["/keys/credential: must be a list of non-empty key names"],
        ),
        (
            {"extends": "share", "keys": ["x_sig"]},
            ["/keys: must be an object of key class → list of key names"],
        ),
        ({"extends": "share", "name": ""}, ["/name: must be a non-empty string"]),
        (
            ["extends", "share"],
            [
                "a profile is an object with keys: name, extends, maxStringBytes, keys, detectors, "
                "allowedKeys, values, pseudonyms, summary, sanitize"
            ],
        ),
    ],
)
def test_strict_errors(document: Any, problems: list[str]) -> None:
    with pytest.raises(ProfileError) as info:
        load_profile(document)
    assert info.value.problems == problems
    assert info.value.source is None
    assert str(info.value) == "; ".join(problems)


def test_several_problems_are_collected_not_thrown_one_at_a_time() -> None:
    with pytest.raises(ProfileError) as info:
        load_profile(
            {
                "extends": "share",
                "colour": "red",
                "maxStringBytes": -5,
                "keys": {"identifer": ["x"]},
                "detectors": {"disable": ["emial"]},
            }
        )
    assert info.value.problems == [
        'unknown key "colour" (allowed: name, extends, maxStringBytes, keys, detectors, '
        "allowedKeys, values, pseudonyms, summary, sanitize)",
        "/maxStringBytes: must be a whole number of bytes, 0 or more",
        '/keys: unknown key class "identifer" — did you mean "identifier"? '
        "(allowed: credential, email, personal-data, identifier, raw-content)",
        '/detectors/disable/0: unknown detector "emial" — did you mean "email"?',
    ]


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("extends: [share\nname: x\n", encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        load_profile(broken)
    assert str(info.value) == f"{broken}: line 2, column 5: not valid YAML or JSON"
    assert info.value.source == str(broken)

    typo = tmp_path / "typo.json"
    typo.write_text('{"extends": "share", "keys": {"credentail": []}}', encoding="utf-8")
    with pytest.raises(ProfileError) as info:
        load_profile(str(typo))
    assert str(info.value).startswith(
        f'{typo}: /keys: unknown key class "credentail" — did you mean "credential"?'
    )

    missing = tmp_path / "missing.yaml"
    for source in (missing, str(missing)):
        with pytest.raises(ProfileError) as info:
            load_profile(source)
        assert str(info.value) == f"{missing}: file does not exist"

    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("extends: share\nname: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ProfileError) as info:
        load_profile(latin1)
    assert str(info.value) == f"{latin1}: is not UTF-8 text (byte 24)"


def test_a_key_written_twice_is_refused_at_its_line() -> None:
    # Silently keeping the last one would drop the first key's extra names.
    with pytest.raises(ProfileError) as info:
        load_profile("extends: share\nkeys: {credential: [x_sig]}\nkeys: {identifier: [t]}\n")
    assert info.value.problems == ['duplicate key "keys" (line 3, column 1)']
    with pytest.raises(ProfileError) as info:
        load_profile('{"extends": "share", "detectors": {"disable": ["phone"], "disable": []}}')
    assert info.value.problems == ['detectors: duplicate key "disable" (line 1, column 58)']


def test_invalid_json_text_names_line_and_column() -> None:
    with pytest.raises(ProfileError) as info:
        load_profile('{"extends": "share",\n "keys": {')
    assert str(info.value) == "line 2, column 11: not valid YAML or JSON"


# --- what an extended profile changes -----------------------------------------------------------


def test_extra_key_names_per_class() -> None:
    profile = load_profile(
        {
            "extends": "share",
            "keys": {
                "credential": ["x_acme_signature"],
                "email": ["contact"],
                "personal-data": ["home_town"],
                "identifier": ["ticket_id"],
                "raw-content": ["scratchpad"],
            },
        }
    )
    value = {
        "x_acme_signature": "plain-looking",
        "request.xAcmeSignature": "also-plain",  # normalised, and matched as a suffix
        "x_acme_signature_version": "2",  # a prefix compound is not the key
        "contact": "desk",
        "home_town": "Springfield",
        "ticket_id": "T-1",
        "scratchpad": "thinking out loud",
    }
    out = redact(value, profile=profile).value
    assert out["x_acme_signature"] == "[REDACTED:credential-key]"
    assert out["request.xAcmeSignature"] == "[REDACTED:credential-key]"
    assert out["x_acme_signature_version"] == "2"
    assert out["contact"] == "[REDACTED:personal-data-key]"
    assert out["home_town"] == "[REDACTED:personal-data-key]"
    assert PSEUDONYM.match(out["ticket_id"])
    assert out["scratchpad"] == "thinking out loud"  # raw-content is removed under strict only
    # The built-in share profile knows none of these names.
    assert redact(value, profile="share").value == value
    # ... and assessment uses the extended lists too.
    verdict = assess({"x_acme_signature": "plain-looking"}, profile=profile)
    assert verdict.status.value == "UNSAFE"
    assert [(f.detector, f.paths) for f in verdict.findings] == [
        ("credential-key", ("/x_acme_signature",))
    ]
    assert assess({"x_acme_signature": "plain-looking"}, profile="share").status.value == "SAFE"


def test_an_extra_credential_key_on_spans() -> None:
    profile = load_profile("extends: share\nkeys: {credential: [x_acme_signature]}\n")
    span = Span(
        "a" * 32, "b" * 16, name="POST /refund", attributes={"http.x_acme_signature": "v1=abc"}
    )
    out = redact_spans([span], profile=profile)
    assert out.spans[0].attributes == {"http.x_acme_signature": "[REDACTED:credential-key]"}
    assert [f.path for f in out.report.findings] == [
        f"span:{'b' * 16}/attributes/http.x_acme_signature"
    ]
    assert redact_spans([span], profile="share").spans[0] is span


def test_a_disabled_detector_no_longer_fires() -> None:
    profile = load_profile({"extends": "share", "detectors": {"disable": ["phone"]}})
    text = f"call {PHONE} or mail {EMAIL}"
    assert redact_text(text, profile=profile) == f"call {PHONE} or mail [REDACTED:email]"
    assert redact_text(text, profile="share") == "call [REDACTED:phone] or mail [REDACTED:email]"
    assert statuses({"note": "call " + PHONE}, profile) == ("SAFE", [])
    assert statuses({"note": "call " + PHONE}, "share") == (
        "UNSAFE",
        [("personal-data", "phone", "error")],
    )
    # Key rules are not detectors: a phone *key* is still removed under the extended share.
    assert redact({"phone": PHONE}, profile=profile).value == {
        "phone": "[REDACTED:personal-data-key]"
    }


def test_an_enabled_opt_in_detector_fires_only_in_that_profile() -> None:
    profile = load_profile({"extends": "share", "detectors": {"enable": ["ipv4-address"]}})
    text = "login from 203.0.113.42 by " + EMAIL
    assert redact_text(text, profile="share") == "login from 203.0.113.42 by [REDACTED:email]"
    assert redact_text(text, profile=profile) == (
        "login from [REDACTED:ipv4-address] by [REDACTED:email]"
    )
    assert statuses({"note": "from 203.0.113.42"}, "share") == ("SAFE", [])
    assert statuses({"note": "from 203.0.113.42"}, profile) == (
        "UNSAFE",
        [("personal-data", "ipv4-address", "error")],
    )
    # The built-in profiles are unchanged by the extension.
    assert "ipv4-address" not in {d.id for d in PROFILES["share"].personal_detectors}


def test_enabling_a_detector_that_is_on_changes_nothing() -> None:
    profile = load_profile({"extends": "default", "detectors": {"enable": ["email"]}})
    assert profile.personal_detectors == PROFILES["default"].personal_detectors


def test_a_disabled_credential_detector_leaves_other_detectors_on() -> None:
    profile = load_profile({"extends": "default", "detectors": {"disable": ["provider-key"]}})
    assert redact_text("key " + OPENAI_KEY, profile=profile) == "key " + OPENAI_KEY
    assert redact_text("mail " + EMAIL, profile=profile) == "mail [REDACTED:email]"
    assert redact({"api_key": OPENAI_KEY}, profile=profile).value == {
        "api_key": "[REDACTED:credential-key]"
    }
