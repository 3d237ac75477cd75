"""Baselines (issue 31, item 4): `verify-safe --baseline FILE` accepts findings a team has
looked at by fingerprint (file, place, detector and a keyed hash of the value, never the value);
`--write-baseline FILE` writes them. An accepted finding is counted but no longer makes the
verdict UNSAFE; a stale entry is reported; a fingerprint is bound to its value and its place,
stable across runs, and with `TRACECHECK_BASELINE_KEY` cannot be made without the key. The
baseline reader is strict (every problem names the file and the place) and never fails any
other way (a hypothesis property). Secrets are fakes, built at run time.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracecheck.cli import ExitCode, main
from tracecheck.sharing.baseline import (
    BaselineError,
    Entry,
    read_baseline,
    write_baseline,
)

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2m" + "N4pQ6rS8tU0vW1xY3zA5"
OTHER = "ghp_" + "Zz9Yy8Xx7Ww6Vv5U" + "u4Tt3Ss2Rr1Qq0Pp9Oo8"
WORDS = "correct" + "-horse-" + "battery"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KEY = "k" * 8 + "-team-baseline-key"


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("TRACECHECK_BASELINE_KEY", raising=False)
    monkeypatch.chdir(tmp_path)


def verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify-safe", *argv])
    out, err = capsys.readouterr()
    for secret in (TOKEN, OTHER, WORDS, KEY):
        assert secret not in out + err
    return code, out, err


def shared(files: dict[str, str]) -> Path:
    root = Path("shared")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def baseline_text(path: Path) -> str:
    text = path.read_text()
    for secret in (TOKEN, OTHER, WORDS, KEY):
        assert secret not in text
    return text


# --- accepting -----------------------------------------------------------------------------------


def test_a_written_baseline_accepts_the_findings_it_lists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = shared(
        {".env": f"GITHUB_TOKEN={TOKEN}\n", "notes.json": json.dumps({"password": WORDS})}
    )
    code, out, err = verify(capsys, "shared", "--write-baseline", "baseline.json")
    # Writing a baseline accepts nothing by itself: the verdict is the same as without it.
    assert code == ExitCode.FAILED
    assert out.splitlines()[0] == "shared: UNSAFE"
    assert err == "wrote baseline.json (2 findings)\n"
    document = json.loads(baseline_text(Path("baseline.json")))
    assert document["version"] == 1 and document["key"] is None
    assert [{k: v for k, v in e.items() if k != "fingerprint"} for e in document["findings"]] == [
        {
            "file": "shared/.env",
            "location": "/line 1",
            "category": "credential",
            "detector": "github-token",
        },
        {
            "file": "shared/notes.json",
            "location": "/password",
            "category": "credential",
            "detector": "credential-key",
        },
    ]
    assert verify(capsys, str(root), "--baseline", "baseline.json") == (
        ExitCode.OK,
        "shared: SAFE\n  2 findings accepted by the baseline\n",
        "",
    )


def test_a_new_finding_is_not_accepted_and_a_stale_entry_is_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shared({".env": f"GITHUB_TOKEN={TOKEN}\n", "old.json": json.dumps({"password": WORDS})})
    verify(capsys, "shared", "--write-baseline", "baseline.json")
    Path("shared/old.json").unlink()
    Path("shared/new.json").write_text(json.dumps({"note": OTHER}))
    assert verify(capsys, "shared", "--baseline", "baseline.json") == (
        ExitCode.FAILED,
        "shared: UNSAFE\n"
        "  error: credential (github-token) ×1 at /new.json/note\n"
        "  1 finding accepted by the baseline\n"
        "baseline.json: 1 entry matches no finding (stale); remove it from the baseline:\n"
        "  shared/old.json /password (credential, credential-key)\n",
        "",
    )


def test_a_fingerprint_holds_for_its_value_and_its_place_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shared({"a.json": json.dumps({"note": TOKEN})})
    verify(capsys, "shared", "--write-baseline", "baseline.json")
    # The same value in another file, or another value in the same place: not accepted.
    Path("shared/b.json").write_text(json.dumps({"note": TOKEN}))
    code, out, _ = verify(capsys, "shared", "--baseline", "baseline.json")
    assert code == ExitCode.FAILED
    assert "error: credential (github-token) ×1 at /b.json/note\n" in out
    Path("shared/b.json").unlink()
    Path("shared/a.json").write_text(json.dumps({"note": OTHER}))
    code, out, _ = verify(capsys, "shared", "--baseline", "baseline.json")
    assert code == ExitCode.FAILED
    assert "stale" in out
    # An entry moved to another file by hand no longer matches anything.
    Path("shared/a.json").write_text(json.dumps({"note": TOKEN}))
    moved = json.loads(Path("baseline.json").read_text())
    moved["findings"][0]["file"] = "shared/c.json"
    Path("shared/c.json").write_text(json.dumps({"note": TOKEN}))
    Path("moved.json").write_text(json.dumps(moved))
    code, out, _ = verify(capsys, "shared/c.json", "--baseline", "moved.json")
    assert code == ExitCode.FAILED


def test_fingerprints_are_stable_across_runs_places_and_rewrites(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    shared({"run.json": json.dumps({"note": TOKEN})})
    Path("ci").mkdir()
    verify(capsys, "shared", "--write-baseline", "ci/baseline.json")
    first = Path("ci/baseline.json").read_text()
    verify(capsys, "shared", "--write-baseline", "ci/baseline.json")
    assert Path("ci/baseline.json").read_text() == first  # same salt, same fingerprints
    # Files are named from the baseline's folder: another working directory, another spelling.
    monkeypatch.chdir(tmp_path / "shared")
    code, out, _ = verify(capsys, ".", "--baseline", "../ci/baseline.json")
    assert (code, out) == (ExitCode.OK, ".: SAFE\n  1 finding accepted by the baseline\n")
    assert json.loads(first)["findings"][0]["file"] == "../shared/run.json"


def test_a_span_and_the_bytes_it_came_from_are_one_accepted_finding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = (FIXTURES / "otel-genai" / "clean.otlp.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    span = record["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["attributes"].append({"key": "deploy.note", "value": {"stringValue": f"used {TOKEN}"}})
    Path("run.otlp.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    code, out, _ = verify(capsys, "run.otlp.jsonl")
    assert code == ExitCode.FAILED and "(github-token) ×1" in out
    verify(capsys, "run.otlp.jsonl", "--write-baseline", "baseline.json")
    locations = {e["location"] for e in json.loads(Path("baseline.json").read_text())["findings"]}
    assert any(place.startswith("span:") for place in locations)
    assert any(place.startswith("/line 1/") for place in locations)
    code, out, _ = verify(capsys, "run.otlp.jsonl", "--baseline", "baseline.json")
    assert code == ExitCode.OK
    assert out.endswith("  1 finding accepted by the baseline\n")
    assert "error" not in out


def test_a_member_name_is_accepted_by_its_place(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(f"cache/{TOKEN}.json", b"{}")
    Path("bundle.zip").write_bytes(out.getvalue())
    verify(capsys, "bundle.zip", "--write-baseline", "baseline.json")
    (entry,) = json.loads(Path("baseline.json").read_text())["findings"]
    assert (entry["file"], entry["location"]) == (
        "bundle.zip!cache/[REDACTED:github-token].json",
        "(name)",
    )
    assert verify(capsys, "bundle.zip", "--baseline", "baseline.json")[0] == ExitCode.OK


def test_what_cannot_be_read_is_never_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    root = shared({"a.json": json.dumps({"note": TOKEN})})
    verify(capsys, "shared", "--write-baseline", "baseline.json")
    os.mkfifo(root / "pipe")
    code, out, _ = verify(capsys, "shared", "--baseline", "baseline.json")
    assert code == ExitCode.FAILED
    assert out.splitlines()[0] == "shared: UNKNOWN"


def test_warnings_are_not_written(capsys: pytest.CaptureFixture[str]) -> None:
    shared({"run.json": json.dumps({"user_id": "u-42", "prompt": "hello"})})
    code, out, err = verify(capsys, "shared", "--write-baseline", "baseline.json")
    assert code == ExitCode.OK and "warning" in out
    assert err == "wrote baseline.json (0 findings)\n"
    assert json.loads(Path("baseline.json").read_text())["findings"] == []


# --- keys ------------------------------------------------------------------------------------------


def test_a_keyed_baseline_needs_its_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared({"a.json": json.dumps({"note": TOKEN})})
    monkeypatch.setenv("TRACECHECK_BASELINE_KEY", KEY)
    verify(capsys, "shared", "--write-baseline", "baseline.json")
    document = json.loads(baseline_text(Path("baseline.json")))
    assert set(document["key"]) == {"id"}
    assert verify(capsys, "shared", "--baseline", "baseline.json")[0] == ExitCode.OK
    monkeypatch.setenv("TRACECHECK_BASELINE_KEY", KEY + "-not")
    assert verify(capsys, "shared", "--baseline", "baseline.json") == (
        ExitCode.USAGE,
        "",
        "tracecheck: error: baseline.json: TRACECHECK_BASELINE_KEY is not the key the "
        "baseline was written with\n",
    )
    monkeypatch.delenv("TRACECHECK_BASELINE_KEY")
    assert verify(capsys, "shared", "--baseline", "baseline.json") == (
        ExitCode.USAGE,
        "",
        "tracecheck: error: baseline.json: written with a key; set TRACECHECK_BASELINE_KEY "
        "to that key\n",
    )


def test_a_fingerprint_cannot_be_made_from_the_file_alone_when_keyed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared({"a.json": json.dumps({"note": TOKEN})})

    def fingerprint(document: dict[str, Any]) -> tuple[str, str]:
        """The fingerprint as written, and as anyone holding the file could compute it."""
        (entry,) = document["findings"]
        message = json.dumps(
            [
                "tracecheck-baseline/1",
                entry["file"],
                entry["location"],
                entry["category"],
                entry["detector"],
                TOKEN,
            ],
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode()
        salt = bytes.fromhex(document["salt"])
        return entry["fingerprint"], hmac.new(salt, message, hashlib.sha256).hexdigest()

    verify(capsys, "shared", "--write-baseline", "plain.json")
    written, guessed = fingerprint(json.loads(Path("plain.json").read_text()))
    assert written == guessed  # unkeyed: whoever holds the file can test a guess
    monkeypatch.setenv("TRACECHECK_BASELINE_KEY", KEY)
    verify(capsys, "shared", "--write-baseline", "keyed.json")
    written, guessed = fingerprint(json.loads(Path("keyed.json").read_text()))
    assert written != guessed  # keyed: not without the key


def test_a_short_key_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared({"a.json": "{}"})
    monkeypatch.setenv("TRACECHECK_BASELINE_KEY", "short")
    assert verify(capsys, "shared", "--write-baseline", "baseline.json") == (
        ExitCode.USAGE,
        "",
        "tracecheck: error: TRACECHECK_BASELINE_KEY must hold at least 16 bytes\n",
    )


# --- the reader --------------------------------------------------------------------------------------

SALT = "ab" * 32
FINGERPRINT = "cd" * 32
ENTRY = {
    "file": "shared/.env",
    "location": "/line 1",
    "category": "credential",
    "detector": "github-token",
    "fingerprint": FINGERPRINT,
}


def document(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"version": 1, "salt": SALT, "key": None, "findings": [ENTRY]}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not ...}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{",
            "baseline.json: line 1, column 2: malformed JSON: Expecting property name enclosed in double quotes",
        ),
        ("[]", "baseline.json: /: is an array, not an object"),
        (
            json.dumps(document(version=2)),
            "baseline.json: /version: a number is not a baseline version tracecheck reads (1)",
        ),
        (json.dumps(document(version=...)), 'baseline.json: /: "version" is missing'),
        (
            json.dumps({**document(), "findngs": []}),
            'baseline.json: /: unknown key "findngs" — did you mean "findings"?',
        ),
        (
            json.dumps(document(salt="XYZ")),
            "baseline.json: /salt: must be 64 lowercase hexadecimal digits",
        ),
        (
            json.dumps(document(key={"id": "12"})),
            "baseline.json: /key/id: must be 16 lowercase hexadecimal digits",
        ),
        (json.dumps(document(findings={})), "baseline.json: /findings: is an object, not an array"),
        (
            json.dumps(document(findings=[{**ENTRY, "fingerprint": TOKEN}])),
            "baseline.json: /findings/0/fingerprint: must be 64 lowercase hexadecimal digits",
        ),
        (
            json.dumps(document(findings=[{**ENTRY, "file": 3}])),
            "baseline.json: /findings/0/file: is a number, not a non-empty string",
        ),
        (
            json.dumps(document(findings=[{**ENTRY, "category": "secret"}])),
            'baseline.json: /findings/0/category: "secret" is not a category (credential, personal-data, identifier, raw-content, media)',
        ),
        (
            f'{{"version": 1, "version": 1, "salt": "{SALT}", "key": null, "findings": []}}',
            'baseline.json: /: writes the key "version" more than once',
        ),
        (
            f'{{"version": {"1" * 5000}, "salt": "{SALT}", "key": null, "findings": []}}',
            "baseline.json: holds a number too long to read",
        ),
    ],
    ids=[
        "malformed",
        "array",
        "version",
        "missing",
        "unknown-key",
        "salt",
        "key-id",
        "findings",
        "fingerprint",
        "file",
        "category",
        "repeated-key",
        "long-number",
    ],
)
def test_a_bad_baseline_is_a_usage_error_naming_file_and_place(
    text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    shared({"a.json": "{}"})
    Path("baseline.json").write_text(text)
    assert verify(capsys, "shared", "--baseline", "baseline.json") == (
        ExitCode.USAGE,
        "",
        f"tracecheck: error: {message}\n",
    )


def test_a_missing_baseline_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    shared({"a.json": "{}"})
    assert verify(capsys, "shared", "--baseline", "nowhere.json") == (
        ExitCode.USAGE,
        "",
        "tracecheck: error: nowhere.json: no such file\n",
    )


def test_a_baseline_that_is_no_regular_file_is_never_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared({"a.json": "{}"})
    os.mkfifo("pipe.json")
    real_read_text = Path.read_text

    def guarded(self: Path, *args: Any, **kwargs: Any) -> str:
        assert self.name != "pipe.json", "a named pipe was opened"  # it could block for ever
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", guarded)
    for option in ("--baseline", "--write-baseline"):
        code, _, err = verify(capsys, "shared", option, "pipe.json")
        assert code == ExitCode.USAGE
        assert "pipe.json: " in err and "is not a regular file" in err


def test_a_stale_entry_is_shown_without_control_characters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shared({"a.json": "{}"})
    Path("baseline.json").write_text(
        json.dumps(document(findings=[{**ENTRY, "file": "shared", "location": "/x\x1b[2J\ud800"}]))
    )
    assert verify(capsys, "shared", "--baseline", "baseline.json") == (
        ExitCode.OK,
        "shared: SAFE\n"
        "baseline.json: 1 entry matches no finding (stale); remove it from the baseline:\n"
        "  shared /x?[2J? (credential, github-token)\n",
        "",
    )


def test_a_file_name_that_is_not_utf8_is_written_and_accepted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = shared({"ok.json": "{}"})
    (root / os.fsdecode(b"\xff.json")).write_text(json.dumps({"note": TOKEN}))
    code, _, err = verify(capsys, "shared", "--write-baseline", "baseline.json")
    assert (code, err) == (ExitCode.FAILED, "wrote baseline.json (1 finding)\n")
    assert '"shared/\\\\xff.json"' in baseline_text(Path("baseline.json"))
    assert verify(capsys, "shared", "--baseline", "baseline.json") == (
        ExitCode.OK,
        "shared: SAFE\n  1 finding accepted by the baseline\n",
        "",
    )


def test_a_file_that_is_no_baseline_is_not_written_over(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shared({"a.json": json.dumps({"note": TOKEN})})
    Path("notes.json").write_text('{"mine": true}\n')
    code, _, err = verify(capsys, "shared", "--write-baseline", "notes.json")
    assert code == ExitCode.USAGE
    assert err == (
        "tracecheck: error: notes.json: exists and is not a baseline tracecheck can write "
        'again (/: unknown key "mine"); remove it or name another file\n'
    )
    assert Path("notes.json").read_text() == '{"mine": true}\n'


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=70) | st.floats(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from([*ENTRY, "version", "salt", "key", "findings", "id", "x"]),
            inner,
            max_size=6,
        )
    ),
    max_leaves=15,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=JSON, base=st.booleans())
def test_any_json_reads_as_a_baseline_or_a_baseline_error(
    value: Any, base: bool, tmp_path: Path
) -> None:
    if base and isinstance(value, dict):  # near misses of a valid baseline too
        value = {**document(), **value}
    path = tmp_path / "any.json"
    path.write_text(json.dumps(value))
    try:
        read_baseline(path, {})
    except BaselineError as exc:
        assert str(exc).startswith(f"{path}: ")


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    entries=st.lists(
        st.builds(
            Entry,
            file=st.text(min_size=1, max_size=20),
            location=st.text(min_size=1, max_size=20),
            category=st.sampled_from(["credential", "personal-data"]),
            detector=st.text(min_size=1, max_size=10),
            fingerprint=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
        ),
        max_size=5,
    ),
    salt=st.binary(min_size=32, max_size=32),
    key_id=st.none() | st.text(alphabet="0123456789abcdef", min_size=16, max_size=16),
)
def test_a_written_baseline_reads_back_as_written(
    entries: list[Entry], salt: bytes, key_id: str | None, tmp_path: Path
) -> None:
    path = tmp_path / "round.json"
    write_baseline(path, salt, key_id, entries)
    from tracecheck.sharing.baseline import _load  # the key's id is not checked here

    read = _load(path)
    assert (read.salt, read.key_id, read.entries) == (salt, key_id, frozenset(entries))


def test_a_lone_surrogate_is_written_as_an_escape_and_read_back(tmp_path: Path) -> None:
    # A path given on the command line that is not UTF-8 (`os.fsdecode`'s escapes).
    entry = Entry(os.fsdecode(b"runs/\xff.json"), "/note", "credential", "github-token", "0" * 64)
    path = tmp_path / "baseline.json"
    write_baseline(path, b"\x01" * 32, None, [entry])
    assert '"runs/\\udcff.json"' in path.read_text(encoding="utf-8")
    assert read_baseline(path, {}).entries == {entry}
