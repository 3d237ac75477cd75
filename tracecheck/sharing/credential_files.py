"""Credential files, known by their names and read in their own syntax, so that a secret in the
field that holds one is found whatever it looks like.

A directory someone zips and shares holds the files tools keep credentials in: `.env`,
`.netrc`, `.pgpass`, `.npmrc`, `.pypirc`, `.git-credentials`, git's config, the AWS CLI's
`credentials` and `config`, gcloud's and Azure's JSON, kubeconfig. Read as text, such a file
gives its secrets away only where they have a token's shape or sit in an assignment the
detectors know; `password hunter2hunter2` in a `.netrc` has neither. Read in its syntax, each
line's fields are named: a value under a key the profile classes as a credential
(`aws_secret_access_key`, `_authToken`, `DB_PASSWORD`, `token`), in a place that holds a
password (`.pgpass`'s fifth field, `.netrc`'s `password`, the password of a URL such as
`https://user:token@host`), is a credential whatever it reads like.

Placeholders stay placeholders: an empty value, `${VAR}`, `$VAR`, `<your-api-key>`,
`{{ token }}`, `YOUR_API_KEY`, what the detectors take for one (`xxxx`, `changeme`,
`change_this_secret`: `redact.detectors.vendor_support`), a value that names a file or a URL,
a number or a boolean are not judged by their key (`.env.example` is documentation, not a
leak). Every line, field or not, is also judged as the text it is, so nothing the text
detectors find is lost.

JSON credential files (gcloud's `application_default_credentials.json`, Azure's token caches,
Docker's `config.json`) need nothing of this: they are JSON, and their keys (`client_secret`,
`refresh_token`, `accessToken`, `secret`, `auth`) are classified where they stand.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Final, Literal

import yaml

from redact.detectors import DetectorTimeout
from redact.detectors.vendor_support import PLACEHOLDER_MARKS, placeholder_value
from redact.inspector import Inspector
from redact.json_pairs import pairs_hook
from redact.keys import KeyClass
from redact.known import EMPTY_KNOWN_SECRETS, KnownSecrets
from redact.profiles import Profile
from redact.strings import is_placeholder

__all__ = ["MAX_CREDENTIAL_FILE", "Syntax", "credential_document", "syntax_of"]

Syntax = Literal["dotenv", "ini", "npmrc", "netrc", "pgpass", "url-lines", "yaml"]

# Credential files are small; a larger file of such a name is judged as text only.
MAX_CREDENTIAL_FILE: Final = 1 << 20

# File names (the last part of a path) and the syntax each is written in.
_NAMES: Final[dict[str, Syntax]] = {
    ".env": "dotenv",
    ".envrc": "dotenv",
    ".netrc": "netrc",
    "_netrc": "netrc",
    ".pgpass": "pgpass",
    "pgpass.conf": "pgpass",
    ".npmrc": "npmrc",
    ".pypirc": "ini",
    ".gitconfig": "ini",
    ".git-credentials": "url-lines",
    ".my.cnf": "ini",
    ".s3cfg": "ini",
    ".boto": "ini",
    ".yarnrc.yml": "yaml",
    "kubeconfig": "yaml",
}
# Names that say what they are only inside their tool's directory: (directory, name).
_PLACED: Final[dict[tuple[str, str], Syntax]] = {
    (".git", "config"): "ini",
    ("git", "config"): "ini",  # $XDG_CONFIG_HOME/git/config
    ("git", "credentials"): "url-lines",
    (".aws", "credentials"): "ini",
    (".aws", "config"): "ini",
    (".kube", "config"): "yaml",
    ("gh", "hosts.yml"): "yaml",
    ("hub", "hub"): "yaml",
}


def syntax_of(name: str) -> Syntax | None:
    """The syntax of the credential file a path (or an archive member's name) names, or None
    when it names none."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts:
        return None
    base = parts[-1]
    placed = _PLACED.get((parts[-2], base)) if len(parts) > 1 else None
    if placed is not None:
        return placed
    if base in _NAMES:
        return _NAMES[base]
    if base.startswith(".env.") or base.endswith(".env"):  # .env.local, production.env
        return "dotenv"
    if base.endswith(".kubeconfig"):
        return "yaml"
    return None


@dataclass(frozen=True, slots=True)
class _Field:
    """A value in a line: its key (a name, or the place it holds), where it stands in the line,
    and whether it holds a secret by its place alone (a password field), or by its key."""

    key: str
    value: str
    start: int
    end: int
    by_place: bool = False


def credential_document(
    text: str, syntax: Syntax, profile: Profile, known: KnownSecrets = EMPTY_KNOWN_SECRETS
) -> dict[str, Any]:
    """The file's lines keyed `line N` (from 1): a line without a credential field is its text;
    a line with some is `{"line": its text without their values, <key>: <value>, ...}`, so
    that the walk judges each value under its key and the rest as text. A value a detector
    names by its shape (a GitHub token) stays in its line, to be named by that detector."""
    # Lines as YAML counts them too: `\r\n`, `\r` and `\n` each end one.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    inspector = Inspector(profile, known)
    found: dict[int, list[_Field]] = {}
    for number, field in _fields(lines, syntax):
        taken = found.setdefault(number, [])
        # A URL's password inside a value already taken is part of that value.
        overlaps = any(f.start < field.end and field.start < f.end for f in taken)
        if not overlaps and _judged_by_key(field, profile) and not _named(inspector, field.value):
            taken.append(field)
    document: dict[str, Any] = {}
    for number, line in enumerate(lines, 1):
        fields = found.get(number)
        if not fields:
            if line:
                document[f"line {number}"] = line
            continue
        rest = line
        for field in sorted(fields, key=lambda f: f.start, reverse=True):
            rest = rest[: field.start] + rest[field.end :]
        document[f"line {number}"] = pairs_hook(
            [("line", rest), *((field.key, field.value) for field in fields)]
        )
    return document


def _fields(lines: list[str], syntax: Syntax) -> Iterator[tuple[int, _Field]]:
    """Every (line number, field) of the file: its syntax's fields and URLs' passwords."""
    if syntax == "yaml":
        yield from _yaml_fields("\n".join(lines))
    elif syntax == "netrc":
        yield from _netrc_fields(lines)
    for number, line in enumerate(lines, 1):
        if syntax in ("dotenv", "ini", "npmrc"):
            field = _assignment(line, syntax)
            if field is not None:
                yield number, field
        elif syntax == "pgpass":
            field = _pgpass_password(line)
            if field is not None:
                yield number, field
        for match in _URL_PASSWORD.finditer(line):
            yield number, _Field("password", match["password"], *match.span("password"), True)


def _named(inspector: Inspector, value: str) -> bool:
    """Whether a detector names the value by its shape (or it is a known secret)."""
    try:
        return inspector.credential_in(value) is not None
    except DetectorTimeout:
        return False  # judged by its key then, which fails closed


def _judged_by_key(field: _Field, profile: Profile) -> bool:
    """Whether a field's value is a credential by its key or place (its value a value, not a
    placeholder, a number, a boolean, a file's path or a URL)."""
    value = field.value.strip()
    if _placeholder(value, field.key):
        return False
    if field.by_place:
        return True
    if _NOT_SECRET.fullmatch(value):
        return False
    return profile.keys.classify(field.key) is KeyClass.CREDENTIAL


# --- placeholders ------------------------------------------------------------------------------

_REFERENCE = re.compile(
    r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
    r"|\{\{.*\}\}|<[^<>]*>|\[[^\[\]]*\]"
)
_NAME_OF_A_VALUE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# Values that hold no secret whatever their key: numbers (a port, a lifetime), booleans, a
# file's path, a URL (whose password, if any, is a field of its own).
_NOT_SECRET = re.compile(
    r"-?[0-9]+(?:\.[0-9]+)?|true|false|yes|no|on|off|null|none"
    r"|(?:~|\.{1,2})?/[^\s]*|[A-Za-z]:\\[^\s]*|[A-Za-z][A-Za-z0-9+.-]*://\S*",
    re.IGNORECASE,
)


def _placeholder(value: str, key: str) -> bool:
    """A value that stands for a secret rather than being one: a reference, the key's name
    or a name like it, and what the detectors take for a placeholder (`PLACEHOLDER_MARKS`,
    `placeholder_value`: `xxxx`, `your_…`, `changeme`, `change_this_secret`), no more."""
    lowered = value.lower()
    return (
        not value
        or is_placeholder(value)
        or len(set(value)) <= 2
        or _REFERENCE.fullmatch(value) is not None
        or value.upper() == key.upper()
        or _name_of_a_value(value)
        or any(mark in lowered for mark in PLACEHOLDER_MARKS)
        or placeholder_value(value)
    )


def _name_of_a_value(value: str) -> bool:
    """`YOUR_API_KEY`, `DB_PASSWORD`: a name, mostly letters, as the detectors tell one (an
    upper-case value mostly of digits, `X9K2_P7Q4_Z8M1`, may be drawn)."""
    return (
        _NAME_OF_A_VALUE.fullmatch(value) is not None
        and sum(c.isalpha() for c in value) > len(value) // 2
    )


# --- the syntaxes ------------------------------------------------------------------------------

# `scheme://user:password@host`: the password is a field wherever the URL stands.
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:\"']*:(?P<password>[^\s/@\"']+)@")
_DOTENV = re.compile(r"\s*(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(?P<value>.*)")
_INI = re.compile(r"\s*(?P<key>[^\s=:#;\[][^=]*?)\s*(?:=|:(?!//))\s*(?P<value>.*)")
_NPMRC = re.compile(r"\s*(?P<key>[^\s=#;][^=]*?)\s*=\s*(?P<value>.*)")
_INLINE_COMMENT = re.compile(r"\s+[#;].*$")


def _assignment(line: str, syntax: Syntax) -> _Field | None:
    """The `key = value` of a line of an env, INI or npmrc file (sections and comments hold
    none); a quoted value without its quotes, an unquoted one without a trailing comment."""
    stripped = line.lstrip()
    if not stripped or stripped[0] in "#;[":
        return None
    pattern = _DOTENV if syntax == "dotenv" else _NPMRC if syntax == "npmrc" else _INI
    match = pattern.match(line)
    if match is None:
        return None
    key = match["key"]
    if syntax == "npmrc":
        key = key.rsplit(":", 1)[-1]  # `//registry.npmjs.org/:_authToken` names `_authToken`
    start, end = match.span("value")
    value = line[start:end]
    quote = value[:1]
    if quote in ('"', "'"):
        close = value.find(quote, 1)
        if close > 0:
            return _Field(key, value[1:close], start + 1, start + close)
        return _Field(key, value[1:], start + 1, end)  # continues on the next lines
    comment = _INLINE_COMMENT.search(value)
    if comment is not None:
        end = start + comment.start()
    value = line[start:end].rstrip()
    return _Field(key, value, start, start + len(value))


def _pgpass_password(line: str) -> _Field | None:
    """`hostname:port:database:username:password`; `\\:` and `\\\\` are escapes."""
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    colons = 0
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\":
            index += 2
            continue
        if char == ":":
            colons += 1
            if colons == 4:
                start = index + 1
                return _Field("password", line[start:], start, len(line), True)
        index += 1
    return None


def _netrc_fields(lines: list[str]) -> Iterator[tuple[int, _Field]]:
    """The value after each `password` token (on its line or the next), `macdef` bodies aside
    (they are text)."""
    wanted = False
    in_macro = False
    for number, line in enumerate(lines, 1):
        if in_macro:
            in_macro = bool(line.strip())
            continue
        position = 0
        for token in _netrc_tokens(line):
            at = line.find(token, position)
            position = at + len(token) if at >= 0 else position
            if wanted:
                value = token.strip("\"'")
                start = line.find(value, at) if at >= 0 else -1
                if start >= 0:
                    yield number, _Field("password", value, start, start + len(value), True)
                wanted = False
            elif token == "password":
                wanted = True
            elif token == "macdef":
                in_macro = True
                break


def _netrc_tokens(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True, posix=False)
    except ValueError:  # an unclosed quote
        return line.split()


def _yaml_fields(text: str) -> Iterator[tuple[int, _Field]]:
    """Each `key: value` of a YAML file whose value is a scalar on one line. YAML that does not
    parse gives none (its lines are judged as text)."""
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return
    lines = text.split("\n")
    seen: set[int] = set()
    stack: list[yaml.Node] = [node for node in documents if node is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias: its node is walked once
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (
                    isinstance(key, yaml.ScalarNode)
                    and isinstance(value, yaml.ScalarNode)
                    and value.start_mark.line == value.end_mark.line
                ):
                    field = _yaml_field(key.value, value, lines)
                    if field is not None:
                        yield value.start_mark.line + 1, field
                else:
                    stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _yaml_field(key: str, node: yaml.ScalarNode, lines: list[str]) -> _Field | None:
    line = lines[node.start_mark.line] if node.start_mark.line < len(lines) else ""
    start, end = node.start_mark.column, node.end_mark.column
    if not (0 <= start <= end <= len(line)):
        return None
    written = line[start:end]
    if node.style in ('"', "'") and len(written) >= 2:  # the value without its quotes
        start, end = start + 1, end - 1
    return _Field(str(key), str(node.value), start, end)
