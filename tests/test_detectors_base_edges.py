"""Edges of what a detector is and of a few validators behind it: where the secret lies in a
match, what trying the precise pattern only at `starts` finds, what a runaway pattern raises, the
error for an unknown id, and the near misses the vendor-name, bundler, SQL, .pgpass and Oracle
logon validators keep out.

Every password-shaped value is assembled at run time from pieces, so no contiguous credential
appears in this file for a secret scanner to trip on.
"""

from __future__ import annotations

from itertools import islice

import pytest

from redact.detectors import Detector, DetectorTimeout, detector

# A password of mixed classes, built from pieces.
_PW = "".join(["Zq8x", "0Pw9", "Lm"])


def _secrets(d: Detector, text: str) -> list[str]:
    return [text[start:end] for start, end in d.secret_spans(text)]


# ----------------------------------------------------------------------------- secret spans

_FLAG = Detector(
    id="test-password-flag",
    description="A password after --password, or the bare word pw",
    category="credential",
    source=r"--password[ =](?P<v>[^\s]+)|\bpw\b",
    prefilter=r"password|pw",
)
_TOKEN = Detector(
    id="test-token",
    description="A token with no value group",
    category="credential",
    source=r"\btok_[a-z0-9]{6}\b",
    prefilter=r"tok_",
)


def test_a_secret_span_is_the_value_group_not_the_whole_match() -> None:
    text = f"mysql --password {_PW} -h db"
    assert list(_FLAG.find(text)) == [(6, 17 + len(_PW))]
    assert _secrets(_FLAG, text) == [_PW]


def test_a_secret_span_is_the_whole_match_when_the_value_group_took_no_part() -> None:
    assert list(_FLAG.secret_spans("set pw now")) == [(4, 6)]


def test_a_secret_span_is_the_whole_match_for_a_pattern_without_a_value_group() -> None:
    text = "id tok_a1b2c3 end"
    assert list(_TOKEN.secret_spans(text)) == [(3, 13)]


def test_secret_spans_of_a_real_detector_cover_only_the_password() -> None:
    text = f"sqlplus scott/{_PW}@orcl"
    assert _secrets(detector("dsn-password"), text) == [_PW]


# ----------------------------------------------------------------------------- anchoring


def _anchored(source: str, starts: str) -> Detector:
    """A fresh detector (nothing compiled yet) that tries `source` only where `starts` matches."""
    return Detector(
        id="test-anchored",
        description="A precise pattern tried only at its starts",
        category="credential",
        source=source,
        prefilter=starts,
        starts=starts,
    )


def _scanning(source: str) -> Detector:
    return Detector(
        id="test-scanned",
        description="The same precise pattern tried at every offset",
        category="credential",
        source=source,
        prefilter=source,
    )


@pytest.mark.parametrize(
    ("source", "starts", "text", "spans"),
    [
        # The first candidate fails; the next one, a single place on, is a match.
        ("ab", "a", "aab", [(1, 3)]),
        ("ab", "a", "aaab xab ab", [(2, 4), (6, 8), (9, 11)]),
        # Offsets are characters, not UTF-8 bytes, after non-ASCII text.
        ("ab", "a", "éaab ü ab", [(2, 4), (7, 9)]),
        ("ab", "a", "\ud800aab", [(2, 4)]),
        # An empty match moves the search one place on, as scanning does.
        ("(?=k)", "k", "kk", [(0, 0), (1, 1)]),
        ("(?=k)", "k", "xkyk", [(1, 1), (3, 3)]),
        ("(?=k)", "k", "ékk", [(1, 1), (2, 2)]),
    ],
)
def test_an_anchored_detector_finds_what_scanning_finds(
    source: str, starts: str, text: str, spans: list[tuple[int, int]]
) -> None:
    anchored = _anchored(source, starts)
    # At most a few more than expected: a search that stopped moving would repeat forever.
    assert list(islice(anchored.find(text), len(spans) + 3)) == spans
    assert list(islice(_scanning(source).find(text), len(spans) + 3)) == spans


def test_an_anchored_detector_answers_the_same_on_every_call() -> None:
    anchored = _anchored("ab", "a")
    assert [list(anchored.find(text)) for text in ("aab", "ab", "aab")] == [
        [(1, 3)],
        [(0, 2)],
        [(1, 3)],
    ]


# ----------------------------------------------------------------------------- timeouts

# A mistaken pattern: `a|a` under `+` backtracks through every split of a run of `a` before it
# gives up for want of a `b` (tens of seconds for this run). The pattern timeout stops it.
_RUNAWAY = r"(?:a|a)+b"
_RUN = "a" * 27


def test_a_runaway_pattern_raises_a_timeout_that_names_the_detector() -> None:
    runaway = Detector(
        id="test-runaway",
        description="A pattern that backtracks without end",
        category="credential",
        source=_RUNAWAY,
        prefilter="a",
    )
    with pytest.raises(DetectorTimeout) as raised:
        runaway.search(_RUN)
    assert raised.value.detector_id == "test-runaway"
    assert str(raised.value) == "detector test-runaway timed out"


def test_a_runaway_pattern_tried_at_its_starts_raises_a_timeout_too() -> None:
    runaway = Detector(
        id="test-runaway-anchored",
        description="A pattern that backtracks without end, tried where it may start",
        category="credential",
        source=_RUNAWAY,
        prefilter="a",
        starts="a",
    )
    with pytest.raises(DetectorTimeout) as raised:
        list(runaway.secret_spans(_RUN))
    assert raised.value.detector_id == "test-runaway-anchored"


# ----------------------------------------------------------------------------- registry


def test_an_unknown_id_far_from_every_id_gets_no_suggestion() -> None:
    with pytest.raises(KeyError) as raised:
        detector("zzzzzzzzzzzz")
    assert raised.value.args == ("unknown detector 'zzzzzzzzzzzz'",)


# ----------------------------------------------------------------------------- vendor names

_DIGITS = "1234567890" * 3 + "12"


@pytest.mark.parametrize(
    ("value", "found"),
    [
        # A numeric id with enough distinct digits is a vendor value.
        (_DIGITS, True),
        # Two classes (lower case and digits) are enough.
        (("a1b2c3d4e5f6" * 3)[:32], True),
        # Exactly six distinct characters are enough ...
        (("abc123" * 6)[:32], True),
        # ... five or fewer are a pattern, even of two classes.
        (("ab12" * 8), False),
        (("abc12" * 7)[:32], False),
        # One class only (letters of one case) is a word or a hash's half, not a key.
        ("abcdefgh" * 4, False),
        ("12" * 16, False),
    ],
)
def test_a_vendor_value_needs_variety_and_a_mixture(value: str, found: bool) -> None:
    text = f'ADAFRUIT_IO_KEY = "{value}"'
    assert _secrets(detector("adafruit-key"), text) == ([value] if found else [])


# ----------------------------------------------------------------------------- bundler


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"BUNDLE_GEMS__CONTRIBSYS__COM=user:{_PW}", f"user:{_PW}"),
        (f'BUNDLE_GEMS__CONTRIBSYS__COM: "user:{_PW}"', f"user:{_PW}"),
        (f"export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:{_PW}", f"cafebabe:{_PW}"),
        # A host of one-letter first label (x.io): its `__` comes right after the first letter.
        (f"BUNDLE_X__IO=user:{_PW}", f"user:{_PW}"),
        # A password may hold a colon; the user ends at the first one.
        (f"BUNDLE_GEMS__COM=user:{_PW[:4]}:aa", f"user:{_PW[:4]}:aa"),
        # Four distinct characters are enough for a password, three are not.
        ("BUNDLE_GEMS__COM=user:abcd", "user:abcd"),
        ("BUNDLE_GEMS__COM=user:abcab", None),
        # Settings that are no host: a list of groups, a name with no `__` for a dot.
        ("BUNDLE_WITHOUT=development:test", None),
        # The `__` must be in the host, not in the value after it ...
        (f"BUNDLE_GEMS_COM=us__er:{_PW}", None),
        (f"BUNDLE_GEMS_COM:us__er:{_PW}", None),
        # ... nor at the name's end.
        (f"BUNDLE_GEMS_COM__=user:{_PW}", None),
        # A reference or a placeholder is no password.
        ("BUNDLE_GEMS__COM=user:${GEM_PASSWORD}", None),
        ("BUNDLE_GEMS__COM=user:changeme", None),
    ],
)
def test_bundler_credentials_need_a_host_and_a_password(text: str, secret: str | None) -> None:
    assert _secrets(detector("bundler-credentials"), text) == ([secret] if secret else [])


# ----------------------------------------------------------------------------- SQL

_SQL_WINDOW = 400


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"ALTER USER app WITH PASSWORD '{_PW}'", _PW),
        (f"CREATE USER 'app'@'%' IDENTIFIED BY '{_PW}'", _PW),
        # `''` is one quote: the value is measured as the database stores it.
        (f"ALTER USER app WITH PASSWORD 'it''s-{_PW}'", f"it''s-{_PW}"),
        ("ALTER USER app WITH PASSWORD '''ab'", "''ab"),
        ("ALTER USER app WITH PASSWORD '''a'", None),
        # A bind variable or a placeholder, not a password.
        ("ALTER ROLE app WITH PASSWORD ':app_pw'", None),
        ("ALTER ROLE app WITH PASSWORD '?new_pw'", None),
        ("ALTER ROLE app WITH PASSWORD 'NULL'", None),
        # The statement ends at the last `;` before the match: a user created two statements
        # earlier does not make a settings row a password ...
        (f"SELECT 1;\nCREATE USER app;\nUPDATE mail SET host = 'smtp', password = '{_PW}'", None),
        # ... nor one created in the statement just ended, `;` touching the keyword.
        (f"CREATE USER app;password = '{_PW}'", None),
        (f"CREATE USER app;\nALTER USER app PASSWORD '{_PW}'", _PW),
        # The statement is looked for in the 400 characters before the match, no further.
        ("CREATE USER app" + " " * (_SQL_WINDOW - 15) + f"PASSWORD '{_PW}'", _PW),
        ("CREATE USER app" + " " * (_SQL_WINDOW - 14) + f"PASSWORD '{_PW}'", None),
    ],
)
def test_a_sql_password_belongs_to_a_statement_that_sets_one(text: str, secret: str | None) -> None:
    assert _secrets(detector("sql-password"), text) == ([secret] if secret else [])


# ----------------------------------------------------------------------------- .pgpass


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        (f"db.example.com:5432:shop:app:{_PW}", _PW),
        (f"localhost:*:*:postgres:{_PW}", _PW),
        # Escapes count as the character they stand for: `\:x` is two characters, too short.
        ("db.example.com:5432:shop:app:\\:xy", "\\:xy"),
        ("db.example.com:5432:shop:app:\\:x", None),
        ("db.example.com:5432:shop:app:\\\\x", None),
        # A default or a wildcard is no password; numbers alone are a time, not a host.
        ("db.example.com:5432:shop:app:changeme", None),
        ("db.example.com:5432:shop:app:*", None),
        ("12:30:45:00:1234", None),
    ],
)
def test_a_pgpass_password_needs_a_host_and_a_real_value(line: str, secret: str | None) -> None:
    assert _secrets(detector("pgpass-password"), line) == ([secret] if secret else [])


# ----------------------------------------------------------------------------- Oracle logon


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"sqlplus scott/{_PW}@orcl", _PW),
        ("sqlplus scott/abc@orcl", "abc"),
        # Words of the command line that sit where a password would.
        ("sqlplus sys/nolog", None),
        ("sqlplus sys/NOLOG", None),
        ("sqlplus sys/as sysdba", None),
        ("sqlplus sys/AS SYSDBA", None),
    ],
)
def test_an_oracle_logon_password_is_not_a_keyword(text: str, secret: str | None) -> None:
    assert _secrets(detector("dsn-password"), text) == ([secret] if secret else [])
