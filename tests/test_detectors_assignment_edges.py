"""Edges of the assignment detectors: which values read as generated, which keys name a secret,
what `curl -u` hands over, and which XML attribute pairs hold a credential.

Every secret-looking value is joined at run time from short parts, so no contiguous credential
appears in this file for a secret scanner to trip on.
"""

from __future__ import annotations

import pytest

from redact.detectors.assignment import ASSIGNMENT_DETECTORS, random_value

BY_ID = {d.id: d for d in ASSIGNMENT_DETECTORS}

# A generated-looking value (letters of both cases and digits), 12 characters.
V = "Xk9p" + "Q2mv" + "7Lw3"


def _found(detector_id: str, text: str) -> bool:
    return BY_ID[detector_id].search(text)


# ----------------------------------------------------------------------------- random_value


@pytest.mark.parametrize(
    ("value", "generated"),
    [
        # Eight characters is long enough; seven is not, and `=` padding does not count.
        ("aB3dE5f" + "X", True),
        ("aB3dE5f", False),
        ("aB3dE5f" + "=", False),
        ("aB3dE5f" + "==", False),
        # Five distinct characters are enough for letters and digits drawn together; four are not.
        ("abc12" + "abc12", True),
        ("ab12" + "ab12" + "ab", False),
        # A long number is drawn (an id under a secret key); a shorter one is a count or a port.
        ("1234567890" + "123456", True),
        ("1234567890" + "12345", False),
        # Letters with a password generator's symbols, when not all lower case.
        ("nPfC" + "^UDna" + "vDXea", True),
        ("npfc" + "^udna" + "vdxea", False),
        # Letters only: sixteen that do not read as words are drawn; fifteen are too few.
        ("QwRtZpXk" + "MnBvLsDf", True),
        ("QwRtZpXk" + "MnBvLsD", False),
        ("Information" + "Technology", False),
    ],
)
def test_what_reads_as_generated_by_its_characters(value: str, generated: bool) -> None:
    assert random_value(value) is generated


@pytest.mark.parametrize(
    "value",
    [
        # Placeholders and elisions.
        "Xk9pQ2" + "mv...",
        "Xk9pQ2mv" + "7..",
        "dummy_" + "QwRtZpXk" + "MnBvLs",
        # URLs, file names and values that hold an assignment.
        "https://" + "example.com/a9",
        "secrets/" + "prod7.json",
        "user=" + V,
        # Where the secret lives rather than the secret.
        "vault:" + "secret/data/x9k",
        # A dotted identifier, even when it is long as a whole.
        "config." + "secrets." + "apiToken2",
        # A name in capitals: more letters than half of it.
        "MY_API" + "_KEY_2024",
        "ABCD_" + "12_EF",
        # A version or an artifact.
        "jjwt-jackson" + "-0.11.2",
        # A long run of letters that reads as words.
        "clm57491:" + "Agency" + "Identification" + "CodeContentType",
    ],
)
def test_what_is_not_a_generated_value(value: str) -> None:
    assert not random_value(value)


@pytest.mark.parametrize(
    "value",
    [
        # A dotted value whose part is 20 characters long is a token, not an identifier.
        "abc." + "Xk9pQ2mv7L" + "w3Rt5Yz8Bn",
        # Capitals and digits: letters half of it or fewer.
        "ABCD_" + "1234_EF",
        "AB_12" + "34_CD",
    ],
)
def test_what_is_still_a_generated_value(value: str) -> None:
    assert random_value(value)


# ----------------------------------------------------------------------------- keyword-assignment


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("api_token = " + V, True),
        # A word after the key word that is not a veto word keeps it a secret.
        ("api_token_prod = " + V, True),
        # Veto words: the key names something other than the secret.
        ("token_type = " + V, False),
        # A key word after a not-secret word: a pagination cursor.
        ("page_token=" + V, False),
        ("next_page_token=" + V, False),
        # Words separated from the key by something other than an identifier do not count.
        ("cursor page; token=" + V, True),
        # Far into a line, the word before the key word still counts.
        ("# a comment that is long enough to push it: next_page_token=" + V, False),
        # An element's text counts when its closing tag follows.
        ("<token>" + V + "</token>", True),
        ("config: <token>" + V + "</token>", True),
        ("<token>" + V + " is what the page showed", False),
        ("config: <token>" + V + " is what the page showed", False),
    ],
)
def test_keyword_assignment(text: str, found: bool) -> None:
    assert _found("keyword-assignment", text) is found


def test_only_the_60_characters_before_the_key_word_are_read_back() -> None:
    # `age` within reach is no not-secret word; `page`, one character further back, is out of it.
    assert _found("keyword-assignment", "page" + "_" * 57 + "token=" + V)
    assert not _found("keyword-assignment", "page" + "_" * 56 + "token=" + V)


# ----------------------------------------------------------------------------- name-value-secret


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("- name: API_TOKEN\n  value: " + V, True),
        ("- name: API_TOKEN\n  value: " + "aB3dE5f", False),
        ("- name: LOG_LEVEL\n  value: " + V, False),
    ],
)
def test_name_value_secret(text: str, found: bool) -> None:
    assert _found("name-value-secret", text) is found


# ----------------------------------------------------------------------------- xml attributes


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('<add key="ClearTextPassword" value="' + V + '"/>', True),
        ('<add key="db_password" value="' + "s3cr" + 'et!"/>', True),
        # Anti-forgery tokens of a form are not credentials, whatever their case.
        ('<add key="authenticity_token" value="' + V + '"/>', False),
        ('<add key="AUTHENTICITY_TOKEN" value="' + V + '"/>', False),
        ('<add key="csrf_token" value="' + V + '"/>', False),
        ('<add key="CSRF_TOKEN" value="' + V + '"/>', False),
        ('<add key="xsrf_token" value="' + V + '"/>', False),
        ('<add key="XSRF_TOKEN" value="' + V + '"/>', False),
        # The key decides, not the value: a password may hold the words.
        ('<add key="api_token" value="csrf' + V + '"/>', True),
        ('<add key="db_password" value="Authenticity' + V + '"/>', True),
        # Placeholders.
        ('<add key="api_token" value="' + "your_token" + '"/>', False),
    ],
)
def test_xml_secret_attribute(text: str, found: bool) -> None:
    assert _found("xml-secret-attribute", text) is found


# ----------------------------------------------------------------------------- curl -u


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("curl -u alice:" + V + " https://api.example.com", True),
        ("curl --user=alice:" + V, True),
        ("curl -u 'alice:" + V + "'", True),
        # Only after `curl`, and only within 4000 characters of it.
        ("wget -u alice:" + V, False),
        ("CURL -u alice:" + V, False),
        ("http -u alice:" + V + " # then curl", False),
        ("curl" + " " * 3996 + "-u alice:" + V, True),
        ("curl" + " " * 3997 + "-u alice:" + V, False),
        ("echo 1; curl" + " " * 3996 + "-u alice:" + V, True),
        # A password that holds a colon is taken whole.
        ("curl -u bot:" + "Xk9v" + ":2Q", True),
        # Placeholders and short or repetitive passwords.
        ("curl -u alice:password", False),
        ("curl -u alice:PASSWORD", False),
        ("curl -u alice:XXX", False),
        ("curl -u alice:aaaa", False),
        ("curl -u alice:ab", False),
        ("curl -u alice:" + "your_password", False),
        ("curl -u alice:" + "YOUR_PASSWORD", False),
        ("curl -u alice:" + "YourPassword1", False),
        ("curl -u alice:REDACTED", False),
        # Three distinct characters are enough for a password.
        ("curl -u alice:X9z", True),
        # An API key as the user with no password (Stripe's, Chargebee's form), quoted or not.
        ("curl https://api.example.com/v1/charges -u " + V + ": -d amount=1", True),
        ("curl -u " + V + ":", True),
        ("curl -u '" + V + ":'", True),
        # A user with no password is a secret only when it looks generated.
        ("curl -u alice:", False),
        ("curl -u 'X9z:'", False),
        # Quotes are stripped from the user, nothing else: a key of eight starts with an X.
        ("curl -u 'Xk9pQ2mv:'", True),
        ("curl -u '$" + V + ":'", False),
        ("curl -u ':'", False),
        # An angle bracket on either side marks a placeholder.
        ("curl -u alice:<" + V, False),
        ("curl -u alice:" + V + ">", False),
        ("curl -u alice:<" + V + ">", False),
        # Variables, as the password or as the user.
        ("curl -u alice:$PASSWORD", False),
        ('curl -u alice:"$PASSWORD"', False),
        ("curl -u alice:'pw'", False),
        ("curl -u alice:${PASSWORD}", False),
        ("curl -u alice:{{password}}", False),
        ("curl -u alice:[password]", False),
        ("curl -u alice:%PASSWORD%", False),
        ("curl -u $USER:" + V, False),
        ('curl -u "$API_USER":' + V, False),
        ("curl -u {{user}}:" + V, False),
        ("curl -u [user]:" + V, False),
    ],
)
def test_curl_user_password(text: str, found: bool) -> None:
    assert _found("curl-user-password", text) is found
