"""The gate judges every file it is given, and says UNKNOWN for what it cannot (issue 31, item 1).

A directory is judged whole: hidden files and folders (`.env`, `.secrets/`, `.git/config`) and
files that are no trace, each credential file in its own syntax so that a secret with no
token's shape is found in the field that holds one; a named pipe, a socket or a device is never
opened and makes the verdict UNKNOWN; a link out of the directory is not followed (UNKNOWN); an
entry's name, an archive member's name and a link's target are judged as the strings they are,
a part of a name that is a token whole included. A JSON object that writes a key twice is
judged on every value. Secrets are fakes, built at run time.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import socket
import stat
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

import tracecheck.sharing.gate as gate
from redact.profiles import resolve_profile
from tracecheck.cli import ExitCode, main
from tracecheck.sharing.credential_files import credential_document, syntax_of

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2m" + "N4pQ6rS8tU0vW1xY3zA5"
# A password with no token's shape: only its field says it is one.
WORDS = "correct" + "-horse-" + "battery"
PASSWORD = "Tr0ub4" + "dor&3x"


@pytest.fixture(autouse=True)
def no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("TRACECHECK_BASELINE_KEY", raising=False)


def verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify-safe", *argv])
    out, err = capsys.readouterr()
    for secret in (TOKEN, WORDS, PASSWORD):
        assert secret not in out + err
    return code, out, err


def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "shared"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# --- every file of a directory ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "place"),
    [
        (".env", f"GITHUB_TOKEN={TOKEN}\n", "/.env line 1"),
        (".secrets/creds.json", json.dumps({"token": TOKEN}), "/.secrets~1creds.json/token"),
        (
            ".git/config",
            f'[remote "origin"]\n\turl = https://x-access-token:{TOKEN}@github.com/o/r.git\n',
            "/.git~1config line 2",
        ),
        ("notes/todo.txt", f"push with {TOKEN}\n", "/notes~1todo.txt line 1"),
    ],
    ids=["dotenv", "hidden-folder", "git-config", "text"],
)
def test_a_file_that_is_unsafe_alone_makes_its_directory_unsafe(
    name: str, text: str, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {"README.md": "nothing here\n", name: text})
    code, out, _ = verify(capsys, str(root))
    assert code == ExitCode.FAILED
    assert out.splitlines()[0] == f"{root}: UNSAFE"
    assert place in out
    # The file alone says the same.
    assert verify(capsys, str(root / name))[0] == ExitCode.FAILED


# Each credential file with a secret that has no token's shape: the field holds it.
CREDENTIAL_FILES = [
    (".env", f"PORT=8080\nDB_PASSWORD='{WORDS}'\n", "/.env line 2/DB_PASSWORD"),
    (".env.local", f"export SESSION_SECRET={PASSWORD}\n", "/.env.local line 1/SESSION_SECRET"),
    (
        ".netrc",
        f"machine api.example.test\n  login alice\n  password {PASSWORD}\n",
        "/.netrc line 3/password",
    ),
    (
        ".pgpass",
        f"# hosts\ndb.example.test:5432:app:alice:{PASSWORD}\n",
        "/.pgpass line 2/password",
    ),
    (
        ".npmrc",
        f"registry=https://registry.npmjs.org/\n//npm.example.test/:_password={PASSWORD}\n",
        "/.npmrc line 2/_password",
    ),
    (
        ".pypirc",
        f"[pypi]\nusername = alice\npassword = {WORDS}\n",
        "/.pypirc line 3/password",
    ),
    (
        ".git-credentials",
        f"https://alice:{PASSWORD}@git.example.test\n",
        "/.git-credentials line 1/password",
    ),
    (
        ".git/config",
        f'[remote "origin"]\n\turl = https://alice:{PASSWORD}@git.example.test/o/r.git\n',
        "/.git~1config line 2/password",
    ),
    (
        ".aws/credentials",
        f"[default]\naws_access_key_id = AKIA\naws_secret_access_key = {WORDS}\n",
        "/.aws~1credentials line 3/aws_secret_access_key",
    ),
    (
        ".aws/config",
        f"[profile ci]\nregion = eu-west-1\naws_session_token = {WORDS}\n",
        "/.aws~1config line 3/aws_session_token",
    ),
    (
        ".config/gcloud/application_default_credentials.json",
        json.dumps({"client_id": "1.apps", "client_secret": WORDS, "type": "authorized_user"}),
        "/.config~1gcloud~1application_default_credentials.json/client_secret",
    ),
    (
        ".azure/msal_token_cache.json",
        json.dumps({"RefreshToken": {"a": {"credential_type": "RefreshToken", "secret": WORDS}}}),
        "/.azure~1msal_token_cache.json/RefreshToken",
    ),
    (
        ".azure/accessTokens.json",
        json.dumps([{"tokenType": "Bearer", "accessToken": WORDS, "_clientId": "04b0"}]),
        "/.azure~1accessTokens.json/0/accessToken",
    ),
    (
        ".kube/config",
        "apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n"
        f'    username: admin\n    password: "{WORDS}"\n',
        "/.kube~1config line 7/password",
    ),
    (
        ".docker/config.json",
        json.dumps({"auths": {"registry.example.test": {"auth": PASSWORD}}}),
        "/.docker~1config.json/auths/registry.example.test/auth",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "place"), CREDENTIAL_FILES, ids=[c[0] for c in CREDENTIAL_FILES]
)
def test_a_credential_file_is_read_in_its_syntax(
    name: str, text: str, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {name: text})
    code, out, _ = verify(capsys, str(root))
    assert code == ExitCode.FAILED, out
    assert out.splitlines()[0] == f"{root}: UNSAFE"
    assert f"error: credential (credential-key) ×1 at {place}\n" in out


def test_placeholders_in_a_credential_file_are_no_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = (
        "DB_PASSWORD=${DB_PASSWORD}\n"
        "OPENAI_API_KEY=<your-api-key>\n"
        "API_TOKEN=YOUR_API_TOKEN\n"
        "SECRET_KEY=changeme\n"
        "SESSION_SECRET=\n"
        "TOKEN_TTL=3600\n"
        "REDIS_PASSWORD=xxxxxxxx\n"
        "NPM_TOKEN=$NPM_TOKEN\n"
        "DEBUG=true\n"
        "SESSION_SECRET=change_this_secret\n"
    )
    root = folder(tmp_path, {".env.example": example, ".netrc": "machine h login a password\n"})
    assert verify(capsys, str(root)) == (ExitCode.OK, f"{root}: SAFE\n", "")


@pytest.mark.parametrize(
    "value",
    ["todolist-" + "Pr0d", "my" + "example" + "99", "Yourself" + "!2024", "X9K2_" + "P7Q4_Z8M1"],
)
def test_a_value_the_detectors_take_for_no_placeholder_is_judged_by_its_key(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The detectors' placeholder rule, no more lenient: a word inside a value (`todo`,
    # `example`, `your`), or an upper-case name mostly of digits, leaves it a credential.
    root = folder(tmp_path, {".env.example": f"DB_PASSWORD={value}\n"})
    code, out, _ = verify(capsys, str(root))
    assert value not in out
    assert (code, out) == (
        ExitCode.FAILED,
        f"{root}: UNSAFE\n  error: credential (credential-key) ×1 at "
        "/.env.example line 1/DB_PASSWORD\n",
    )


def test_a_value_with_a_token_shape_is_named_by_its_detector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {".aws/credentials": f"[default]\naws_session_token = {TOKEN}\n"})
    _, out, _ = verify(capsys, str(root))
    assert "error: credential (github-token) ×1 at /.aws~1credentials line 2\n" in out


# --- what is not a regular file is never read --------------------------------------------------


@pytest.fixture
def never_opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths that must never be opened: opening one fails the test instead of blocking."""
    guarded: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def check(file: object) -> None:
        if isinstance(file, str | os.PathLike) and os.fspath(file) in guarded:
            raise AssertionError(f"opened {os.fspath(file)}")

    def guarded_open(file: object, *args: object, **kwargs: object) -> object:
        check(file)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def guarded_os_open(file: object, *args: object, **kwargs: object) -> int:
        check(file)
        return real_os_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(os, "open", guarded_os_open)
    return guarded


def test_a_named_pipe_in_a_directory_is_unknown_and_never_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], never_opened: list[str]
) -> None:
    root = folder(tmp_path, {"run.json": json.dumps({"a": "nothing"})})
    os.mkfifo(root / "pipe")
    never_opened.append(str(root / "pipe"))
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNKNOWN\n  unreadable: /pipe: a named pipe (FIFO): special files are never "
        "opened\n",
        "",
    )


def test_a_named_pipe_given_by_name_is_unknown_and_never_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], never_opened: list[str]
) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    never_opened.append(str(pipe))
    assert verify(capsys, str(pipe)) == (
        ExitCode.FAILED,
        f"{pipe}: UNKNOWN\n  unreadable: /: a named pipe (FIFO): special files are never opened\n",
        "",
    )


def test_a_socket_in_a_directory_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {"run.json": "{}"})
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(root / "agent.sock"))
        code, out, _ = verify(capsys, str(root))
    finally:
        listener.close()
    assert code == ExitCode.FAILED
    assert (
        out
        == f"{root}: UNKNOWN\n  unreadable: /agent.sock: a socket: special files are never opened\n"
    )


def test_a_device_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)
    assert verify(capsys, "/dev/null") == (
        ExitCode.FAILED,
        "/dev/null: UNKNOWN\n  unreadable: /: a character device: special files are never opened\n",
        "",
    )


def test_a_file_that_cannot_be_opened_in_a_directory_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path, {"a.json": "{}", "locked.json": "{}"})
    real_open = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        if os.fspath(path).endswith("locked.json"):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gate.os, "open", refusing)
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNKNOWN\n  unreadable: /locked.json: could not be read: Permission denied\n",
        "",
    )


def test_gits_object_store_is_one_unknown_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    objects = {f".git/objects/{n:02x}/{'0' * 38}": "x" for n in range(3)}
    root = folder(tmp_path, {".git/HEAD": "ref: refs/heads/main\n", **objects})
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNKNOWN\n  unreadable: /.git~1objects: git's object store (compressed "
        "history) is not read\n",
        "",
    )


# --- symbolic links -----------------------------------------------------------------------------


def test_a_link_inside_the_directory_is_judged_where_it_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {"data/run.json": json.dumps({"note": "fine"})})
    (root / "latest.json").symlink_to("data/run.json")
    (root / "gone.json").symlink_to("data/missing.json")
    assert verify(capsys, str(root)) == (ExitCode.OK, f"{root}: SAFE\n", "")


def test_a_link_out_of_the_directory_is_not_followed_and_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere.env"
    outside.write_text(f"GITHUB_TOKEN={TOKEN}\n")
    root = folder(tmp_path, {"run.json": "{}"})
    (root / "config.env").symlink_to(outside)
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNKNOWN\n  unreadable: /config.env: a symbolic link to a file outside the "
        "directory, which is not followed\n",
        "",
    )


def test_a_link_out_of_the_directory_that_cannot_be_followed_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path, {"run.json": "{}"})
    link = root / "config.env"
    link.symlink_to(tmp_path / "locked" / "elsewhere.env")
    real_stat = os.stat

    def refusing(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if os.fspath(path) == str(link):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied")
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gate.os, "stat", refusing)
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNKNOWN\n  unreadable: /config.env: a symbolic link that could not be "
        "followed: Permission denied\n",
        "",
    )


def test_a_links_target_is_judged_as_a_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {"run.json": "{}"})
    (root / "token").symlink_to(f"/nowhere/{TOKEN}")
    code, out, _ = verify(capsys, str(root))
    assert code == ExitCode.FAILED
    assert out == f"{root}: UNSAFE\n  error: credential (github-token) ×1 at /token (name)\n"


# --- names ----------------------------------------------------------------------------------------


def zipped(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def tarred(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.mark.parametrize(("kind", "pack"), [("zip", zipped), ("tar", tarred)])
def test_a_member_named_by_a_token_makes_the_archive_unsafe(
    kind: str, pack: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"bundle.{kind}"
    path.write_bytes(pack({f"cache/{TOKEN}.json": b"{}", "run.json": b"{}"}))  # type: ignore[operator]
    assert verify(capsys, str(path)) == (
        ExitCode.FAILED,
        f"{path}: UNSAFE\n  error: credential (github-token) ×1 at "
        "/cache~1[REDACTED:github-token].json (name)\n",
        "",
    )


def test_a_file_named_by_a_token_makes_its_directory_unsafe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path, {f"cache/{TOKEN}.tar.gz": "", "run.json": "{}"})
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNSAFE\n  error: credential (github-token) ×1 at "
        "/cache~1[REDACTED:github-token].tar.gz (name)\n",
        "",
    )


def test_a_name_that_cannot_be_printed_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A byte that is not UTF-8 and a line break in file names: one line each, as escapes.
    root = folder(tmp_path, {"ok.json": "{}"})
    (root / os.fsdecode(b"\xff.json")).write_text(json.dumps({"note": TOKEN}))
    (root / "a\nb.txt").write_text(f"{TOKEN}\n")
    assert verify(capsys, str(root)) == (
        ExitCode.FAILED,
        f"{root}: UNSAFE\n  error: credential (github-token) ×2 at /a\\nb.txt line 1, "
        "/\\xff.json/note\n",
        "",
    )


ORDINARY_NAMES = [
    "assets/media_box/video_box.ico-7a388b69018576d24b59331fd60aab0c.png",
    "images/2018-250-xoxo-indieweb-1.jpg",
    "assets/icon@2x.png",
    "reports/report-2024-01-01.json",
    "objects/3f9a1c2b4d5e6f708192a3b4c5d6e7f8091a2b3c.json",
    "runs/0d9c4f5e-8f2a-4b6c-9d1e-2f3a4b5c6d7e.jsonl",
    "traces/run.otlp.jsonl.gz",
]


def test_ordinary_file_names_are_not_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bundle.zip"
    path.write_bytes(zipped({name: b"{}" for name in ORDINARY_NAMES}))
    assert verify(capsys, str(path)) == (ExitCode.OK, f"{path}: SAFE\n", "")


@pytest.mark.parametrize(
    "text",
    [f"https://downloads.example.test/dl/{TOKEN}.zip", f"saved to cache/{TOKEN}.json"],
    ids=["url", "path-in-text"],
)
def test_a_token_named_file_in_a_string_is_found(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"note": text}))
    assert verify(capsys, str(path))[0] == ExitCode.FAILED


# --- keys written twice -----------------------------------------------------------------------------


@pytest.mark.parametrize("first", [True, False], ids=["secret-first", "secret-last"])
@pytest.mark.parametrize("layout", ["document", "lines"])
def test_every_value_of_a_key_written_twice_is_judged(
    first: bool, layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret, clean = f'{{"note": "{TOKEN}"}}', '{"note": "nothing"}'
    values = (secret, clean) if first else (clean, secret)
    record = '{{"attributes": {}, "name": "x", "attributes": {}}}'.format(*values)
    path = tmp_path / "run.json"
    path.write_text(record if layout == "document" else f"{record}\n{record}\n")
    code, out, _ = verify(capsys, str(path))
    assert code == ExitCode.FAILED
    assert "error: credential (github-token)" in out


def test_a_claude_record_that_writes_a_key_twice_is_judged_on_every_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = Path(__file__).resolve().parent.parent / "fixtures" / "claude" / "refund-stream.jsonl"
    lines = source.read_text().splitlines()
    # The first record again, with a field it holds written twice: the first value holds a
    # token, the last (what a reader keeps) does not.
    record = json.loads(lines[0])
    body = json.dumps(record)[1:-1]
    lines.append(f'{{"note": "{TOKEN}", {body}, "note": "nothing"}}')
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = verify(capsys, str(path))
    assert code == ExitCode.FAILED
    assert f"error: credential (github-token) ×1 at /line {len(lines)}/note" in out


# --- credential files, field by field -------------------------------------------------------


def fields(name: str, text: str) -> dict[str, Any]:
    """The fields a credential file's lines hold, by line, its `line` (the rest) left out."""
    syntax = syntax_of(name)
    assert syntax is not None, name
    document = credential_document(text, syntax, resolve_profile("share"))
    return {
        line: {k: v for k, v in value.items() if k != "line"}
        for line, value in document.items()
        if isinstance(value, dict)
    }


def test_credential_files_are_known_by_their_names() -> None:
    named = {
        ".env": "dotenv",
        "app/.env.production": "dotenv",
        "deploy/prod.env": "dotenv",
        "home/.netrc": "netrc",
        ".pgpass": "pgpass",
        "repo/.git/config": "ini",
        "home/.aws/credentials": "ini",
        "home/.kube/config": "yaml",
        "ci.kubeconfig": "yaml",
        ".config/gh/hosts.yml": "yaml",
        ".git-credentials": "url-lines",
    }
    assert {name: syntax_of(name) for name in named} == named
    assert [syntax_of(name) for name in ("config", "credentials", "notes.txt", "env.py")] == [
        None
    ] * 4


def test_each_syntax_gives_the_value_where_the_secret_stands() -> None:
    assert fields(".env", f'export DB_PASSWORD="{WORDS}" # prod\nAPI_KEY={PASSWORD} # ci\n') == {
        "line 1": {"DB_PASSWORD": WORDS},
        "line 2": {"API_KEY": PASSWORD},
    }
    # A password on the line after its keyword; a macro's body is text.
    netrc = f"machine a login b password\n  {PASSWORD}\nmacdef init\npassword x\n\nmachine c\n"
    assert fields(".netrc", netrc) == {"line 2": {"password": PASSWORD}}
    # An escaped colon belongs to the password.
    assert fields(".pgpass", f"h:5432:db:u:{PASSWORD}\\:1\n") == {
        "line 1": {"password": f"{PASSWORD}\\:1"}
    }
    # A URL's password, in a value that is no secret by its key.
    assert fields(".env", f"DATABASE_URL=postgres://app:{PASSWORD}@db:5432/app\n") == {
        "line 1": {"password": PASSWORD}
    }
    # YAML: an alias is walked once; a value on several lines is left to the text.
    kube = f"users:\n- &u\n  name: ci\n  token: {PASSWORD}\n- *u\n- password: |\n    {WORDS}\n"
    assert fields(".kube/config", kube) == {"line 4": {"token": PASSWORD}}
