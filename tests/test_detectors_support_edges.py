"""Edges of the validators behind the credential detectors (vendor_support.py, reference.py):
where each one's thresholds sit, and which near misses each keeps out.

Every token-shaped value is built at run time from parts, so no contiguous credential appears in
this file for a secret scanner to trip on. All values are fake.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from redact.detectors import detector
from redact.detectors.vendor_support import reads_as_words

_RNG = random.Random(20261206)
_B62 = string.ascii_letters + string.digits


def j(*parts: str) -> str:
    """Join split parts so a prefix and its body never stand together in the source."""
    return "".join(parts)


def b62(n: int) -> str:
    """Random base62 that certainly holds an upper-case letter, a lower-case one and a digit."""
    return (
        j(_RNG.choice(string.ascii_uppercase), _RNG.choice(string.digits))
        + "".join(_RNG.choice(_B62) for _ in range(n - 3))
        + _RNG.choice(string.ascii_lowercase)
    )


def found(detector_id: str, text: str) -> bool:
    return detector(detector_id).search(text)


# ----------------------------------------------------------------------------- env-key-assignment


def _env_key(name: str, value: str) -> str:
    return j("export ", name, "_K", "EY=", value, "\n")


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        # Lower case and digits alternate after one capital: every step changes class.
        ("Zk9m2p7q4r8s1t6v3w5x", True),
        # Capitals and digits alternate, one lower-case letter at the end.
        ("A1B2C3D4E5F6G7H8I9Jx", True),
        # Ten distinct characters are enough.
        ("aB1cD2eF3gaB1cD2eF3g", True),
        # Nine are not.
        ("aB1cD2eF3aB1cD2eF3aB", False),
        # 21 characters, 7 switches of class: exactly 35 in a hundred of the 20 steps.
        ("ABCDEFGH1abcdefg2I3jK", True),
        # 22 characters, 7 switches: under 35 in a hundred of the 21 steps.
        ("ABCDEFGHI1abcdefg2J3kL", False),
        # Long words with a number: few switches.
        ("ApplicationSecretValue2024x", False),
        # Separators do not count as a class: capitals cut by underscores are one run.
        ("AB_CD_EF_GH_IJ_KL_MN_OP_QR_12ab", False),
    ],
)
def test_env_key_assignment_wants_frequent_switches_between_classes(
    value: str, secret: bool
) -> None:
    assert found("env-key-assignment", _env_key("STRIPE", value)) is secret


@pytest.mark.parametrize("name", ["CACHE", "APP_CACHE", "ROUTING", "USER_S3", "I18N"])
def test_env_key_assignment_leaves_lookup_keys_alone(name: str) -> None:
    value = "Zk9m2p7q4r8s1t6v3w5x"
    assert found("env-key-assignment", _env_key("STRIPE", value))
    assert not found("env-key-assignment", _env_key(name, value))


# ----------------------------------------------------------------------------- discord-bot-token


def _discord_token(user_id: str, tail: str) -> str:
    head = base64.urlsafe_b64encode(user_id.encode()).decode().rstrip("=")
    return j(head, ".", "GaB3cD", ".", tail)


_TAIL_MIXED = "k3Jd9Qm2Lx7Vn4Bw8Rt1Yp6Zs5Hc0Fg"


@pytest.mark.parametrize("user_id", ["1234567890123456789", "12345678901234567890"])
def test_discord_bot_token_with_a_long_user_id(user_id: str) -> None:
    # 19 and 20 digits encode to 26 and 27 characters: the id is padded back before decoding.
    assert found("discord-bot-token", j("Bot ", _discord_token(user_id, _TAIL_MIXED)))


def test_discord_bot_token_with_the_longest_user_id() -> None:
    assert found("discord-bot-token", j("Bot ", _discord_token("1" * 10 + "2" * 11, _TAIL_MIXED)))


def test_discord_bot_token_tail_of_two_classes_is_enough() -> None:
    tail = "k3jd9qm2lx7vn4bw8rt1yp6zs5hc0fg"
    assert found("discord-bot-token", j("Bot ", _discord_token("123456789012345678", tail)))


def test_discord_bot_token_tail_of_one_class_is_not() -> None:
    tail = "kqjdwqmnlxzvnrbwgrtcypmzsshcafg"
    assert not found("discord-bot-token", j("Bot ", _discord_token("123456789012345678", tail)))


def test_discord_shape_whose_head_is_no_user_id_is_not_a_token() -> None:
    # Base64url of letters and digits, not of a number: three dotted parts of something else.
    head = base64.urlsafe_b64encode(b"1234567890abcdefgh").decode()
    assert head[:2] in ("MT", "MD", "Mj", "Mz")
    assert not found("discord-bot-token", j(head, ".", "GaB3cD", ".", _TAIL_MIXED))


def test_discord_shape_whose_head_does_not_decode_is_not_a_token() -> None:
    # 25 characters of base64url cannot be decoded (one more than a multiple of four).
    head = base64.urlsafe_b64encode(b"123456789012345678").decode() + "M"
    assert len(head) == 25
    assert not found("discord-bot-token", j(head, ".", "GaB3cD", ".", _TAIL_MIXED))


# ----------------------------------------------------------------------------- jwt-base64


def _b64url_json(value: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def test_jwt_base64_with_a_long_header_is_found() -> None:
    # The header's dot decodes past 120 bytes but inside the 200 characters read.
    header = _b64url_json({"alg": "RS256", "typ": "JWT", "kid": "4f1c" * 15})
    assert 120 <= len(header) < 150
    jwt = j(header, ".", _b64url_json({"sub": "1234567890"}), ".", b62(43))
    text = base64.b64encode(jwt.encode()).decode()
    assert len(text) > 250
    assert found("jwt-base64", j("token: ", text))


def test_jwt_base64_without_padding_is_found() -> None:
    jwt = j(_b64url_json({"alg": "HS256"}), ".", _b64url_json({"sub": "42"}), ".", b62(43))
    text = base64.b64encode(jwt.encode()).decode().rstrip("=")
    assert len(text) % 4
    assert found("jwt-base64", j("token: ", text))


def test_base64_that_starts_like_a_jwt_but_has_no_dot_is_not_one() -> None:
    fake = j(_b64url_json({"alg": "HS256", "typ": "JWT"}), _b64url_json({"sub": "1234567890"}))
    text = base64.b64encode(fake.encode()).decode()
    assert text.startswith("ZXlK")
    assert not found("jwt-base64", j("value: ", text))


# ----------------------------------------------------------------------------- base64-private-key


def test_base64_of_a_short_private_key_header_is_found() -> None:
    pem = j("-----BEGIN EC PRIV", "ATE KEY-----")
    text = base64.b64encode(pem.encode()).decode()
    assert len(text) == 40
    assert found("base64-private-key", j("client-key-data: ", text))


# ----------------------------------------------------------------------------- connection strings


_FILLER = "-" * 400


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("host=db;Password=Secr3t!", True),
        (j("host=db ", _FILLER, " Password=Secr3t!"), False),
        (j("Password=Secr3t! ", _FILLER, " host=db"), False),
        # The host word starts 301 characters before `Password`: one too many.
        (j("host=", " " * 296, "Password=Secr3t!"), False),
        (j("host=", " " * 295, "Password=Secr3t!"), True),
        # The context's `=` is the 301st character after the value: one too far.
        (j("Password=Secr3t!", " " * 296, "host="), False),
        (j("Password=Secr3t!", " " * 295, "host="), True),
    ],
)
def test_connection_string_password_needs_a_host_user_or_database_within_300_characters(
    text: str, secret: bool
) -> None:
    assert found("connection-string-password", text) is secret


# ----------------------------------------------------------------------------- password values


@pytest.mark.parametrize(
    ("password", "secret"),
    [
        ("k9x", True),
        ("c2VjcmV0MTIz==", True),
        ("ab=cd1", False),
        ("k9=X", False),
        ("YOURKEY123", False),
        ("nil", False),
        ("required", False),
        ("change_me", False),
        ("changeit", False),
        ("tbd", False),
        ("Optional", False),
    ],
)
def test_url_password_without_user(password: str, secret: bool) -> None:
    assert found("url-password-no-user", j("redis://:", password, "@cache:6379/0")) is secret


def test_connection_string_password_that_is_a_url_is_a_reference() -> None:
    assert not found("connection-string-password", "Server=db;Password=https://vault.local/x9")


# ----------------------------------------------------------------------------- keyed secrets


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("ab12ab12", True),
        ("Ab12Cd34Ef", True),
        ("Ab12xxxxCd34", False),
        ("https://Example9.com/x1", False),
        ("Config9.json", False),
        ("Ab1=Cd2ef", False),
        ("Ab12Cd34=X", False),
        ("Ab12Cd34==", True),
        ("ab1ab1ab1", False),
        ("12345678", False),
        ("1234-5678", False),
    ],
)
def test_keyed_secret_value(value: str, secret: bool) -> None:
    assert found("keyed-secret", j("app_k", "ey=", value)) is secret


# ----------------------------------------------------------------------------- file names


def test_a_token_at_the_start_of_the_text_before_an_extension_is_a_token() -> None:
    token = j("gh", "p_", b62(36))
    assert found("github-token", j(token, ".zip"))


def test_a_token_after_one_name_character_before_an_extension_is_a_file_name() -> None:
    token = j("gh", "p_", b62(36))
    assert not found("github-token", j("@", token, ".png"))
    assert found("github-token", j("/", token, ".png"))


# ----------------------------------------------------------------------------- reads_as_words


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("requiredtype", True),
        ("requiredtyp", False),
        ("education", False),
        ("CONFIGURATIONVALUE", False),
        ("servingcell1priority", False),
        ("xkcdqzrtplmnbva", False),
        ("kqvtarbnmoslwe", False),
        ("XXXXXXkqvtrbnmpl", False),
        ("OAuthAccessTokenBody", True),
        ("requiredValueTypeName", True),
        ("backgroundprocessing", True),
        ("requireValueTypeId", True),
        ("requireValueTypeIdX", False),
        ("aBeCiDoFuGaHeJi", False),
    ],
)
def test_reads_as_words(body: str, words: bool) -> None:
    assert reads_as_words(body) is words


# ----------------------------------------------------------------------------- secret-assignment


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("12a34a56a789", True),
        ("12z34z56z789", True),
        ("12A34A56A789", True),
        ("12Z34Z56Z789", True),
        ("ab12cd34ef56", True),
        ("ab12cd34ef5", False),
        ("qwrtzpkxmbnv", False),
        ("Xkcdqzrtplmnbv", False),
        ("123456789012", False),
        ("1234_5678_9012", False),
        ("1234`5678`9012", False),
        ("ab1[ID:134f560acee5]", False),
        ("clm57491:AgencyIdentificationCodeContent", False),
    ],
)
def test_secret_assignment_wants_a_digit_and_a_letter(value: str, secret: bool) -> None:
    assert found("secret-assignment", j("tok", "en=", value)) is secret


def test_secret_assignment_after_a_pagination_word_is_a_cursor() -> None:
    assert found("secret-assignment", j("tok", "en=abc123def456"))
    assert not found("secret-assignment", j("next_tok", "en=abc123def456"))


@pytest.mark.parametrize(
    "text",
    [
        '{"password": "ENC[AES256_GCM,data:Tr7oQ9=,iv:1wXk==,tag:Ab3=,type:str]"}',
        '{"access_token": "v2.14.0"}',
    ],
)
def test_json_secret_leaves_encrypted_values_and_versions_alone(text: str) -> None:
    assert not found("json-secret", text)


@pytest.mark.parametrize("password", ["{{db_pass}}", "%(password)s", "${DB_PASSWORD}"])
def test_url_credentials_leave_templates_alone(password: str) -> None:
    assert not found("url-credentials", j("postgres://admin:", password, "@db.local:5432/app"))


# ----------------------------------------------------------------------------- authorization


@pytest.mark.parametrize(
    ("token", "secret"),
    [
        ("x9kqzvbnmtrw", True),
        ("rQwzxcvbnmtp", True),
        ("authentication", False),
    ],
)
def test_authorization_header_inside_a_line(token: str, secret: bool) -> None:
    text = j("curl -H 'Authorization: Basic ", token, "' https://api.local")
    assert found("authorization-header", text) is secret


def test_bearer_token_of_letters_with_a_capital_is_a_token() -> None:
    assert found("bearer", "Authorization: Bearer xKqzvbnmtrwplk")
    assert not found("bearer", "uses Bearer authentication for every call")


# ----------------------------------------------------------------------------- placeholders


def _consonants(n: int) -> str:
    return "".join(_RNG.choice("bcdfghjklmnpqrstvwxz") for _ in range(n))


@pytest.mark.parametrize(
    ("body", "secret"),
    [
        ("ab12" * 6, True),
        ("ab1" * 8, False),
        ("Placeholder1Ab2Cd3Ef4Gh5Ij6", False),
        ("Redacted1Ab2Cd3Ef4Gh5Ij6Kl7", False),
        (_consonants(36), True),
    ],
)
def test_github_token_body(body: str, secret: bool) -> None:
    assert found("github-token", j("GITHUB_TOKEN: gh", "p_", body)) is secret


def test_a_token_body_that_ends_in_here_is_a_description() -> None:
    assert not found("slack-token", j("xo", "xb-1-SlackAppConfigurationAccessTokenHere"))
    assert found("slack-token", j("xo", "xb-1-SlackAppConfigurationAccessToken42"))


def test_a_filled_tail_is_read_after_the_token_not_at_the_text_start() -> None:
    token = j("gh", "p_", b62(36))
    assert found("github-token", j("### token\n", token))
    assert not found("github-token", j("token: ", token[:20], "..."))
