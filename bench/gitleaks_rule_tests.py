"""The true- and false-positive test strings of gitleaks' rules, read from a gitleaks checkout.

Each rule of gitleaks (`cmd/generate/config/rules/*.go`) validates itself against strings it
must find (`tps`) and strings it must not (`fps`), written as Go: string literals, `+`,
`utils.GenerateSampleSecrets(id, secret)` (the secret in gitleaks' sample contexts: INI, JSON,
XML, YAML, C#, Go, Java, Kotlin, PHP, Python, Logstash, Makefile, `System.setProperty`),
`secrets.NewSecret(pattern)` (a random string of a pattern), `append`, `fmt.Sprintf` and local
variables. This module reads that subset of Go as data — nothing of gitleaks is built or run —
and gives back the strings, with the secret of each generated sample. Expressions outside the
subset (loops, other helpers) are counted as skipped. Random parts are drawn from a seeded
generator (`tests/shape_text.py`), so a run is repeatable; the checkout is not part of this
repository (clone gitleaks anywhere and name the folder).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from shape_text import ShapeText  # noqa: E402

__all__ = ["SECRET_VALUES", "RuleTests", "Sample", "digest", "read_rule_tests"]

# gitleaks' sample contexts (cmd/generate/config/utils/generate.go, GenerateSampleSecrets), the
# ones it enables; `{i}` is the identifier, `{I}` in upper case, `{s}` the secret.
_CONTEXTS = (
    '{i}Token="{s}"',
    '{i}Token = "{s}"',
    "{i}Token={s}",
    "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}',
    '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}",
    "{i}_token: '{s}'",
    '{i}_token: "{s}"',
    'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"',
    '{i}Token := "{s}"',
    "{i}Token := `{s}`",
    'String {i}Token = "{s}";',
    'var {i}Token = "{s}"',
    '${i}Token .= "{s}"',
    "{i}Token = '{s}'",
    '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")',
    '  "{i}Token" => "{s}"',
    '{i}_TOKEN = "{s}"',
    '{i}_TOKEN := "{s}"',
    '{i}_TOKEN ::= "{s}"',
    '{i}_TOKEN :::= "{s}"',
    '{i}_TOKEN ?= "{s}"',
)


# False positives of one gitleaks rule that are a credential all the same, by this project's
# rules: a generated value, or a password, written under a name that says it is a secret (gitleaks
# lets them pass because they are not *its* vendor's shape, or by its entropy threshold). Their
# removal costs nothing: they are counted apart, not as near misses whose loss would hurt. Keyed
# by `digest(text)` (no gitleaks string stands here), judged one by one from the rule files of
# gitleaks b58d3f1.
SECRET_VALUES: dict[str, str] = {
    "cde2dc6eb82135f1": "generated value under a token name",  # Databricks
    "18c03e454ae0bdca": "generated value under a secret key",  # Freemius
    "605faab10526bff4": "generated value under a secret key",  # Freemius
    "23ce48910f6802b5": "password-generator value under a secret key",  # Freemius
    "7e8c0d25f1b73acc": "hex key under an API key name",  # GenericCredential
    "e8a5cd8b1cdea828": "CSRF token (a credential key, spec B6)",  # GenericCredential
    "a9f1472bd1b2472e": "generated value under a token name",  # Meraki
    "42e8bbcc91a81fc2": "password under a password key",  # NugetConfigPassword
    "aacdffeab551e9e3": "password under a password key",  # NugetConfigPassword
    "24a9ee41f5b3be98": "password under a password key",  # NugetConfigPassword
    "b6c0b75081e49a30": "password under a password key",  # NugetConfigPassword
    "17ac7dbd8684f04e": "generated value under a token name",  # SettlemintPersonalAccessToken
    "656349f314f6e122": "generated value under a token name",  # SettlemintPersonalAccessToken
    "93f4069af827c15c": "generated value under a token name",  # SettlemintApplicationAccessToken
    "053872c02ed48825": "generated value under a token name",  # SettlemintApplicationAccessToken
    "2e0bd9319bf181c5": "generated value under a token name",  # SettlemintServiceAccessToken
    "8ddfe15a986fb3cc": "generated value under a token name",  # SettlemintServiceAccessToken
    "70106c4a24544e43": "generated value under a token name",  # StripeAccessToken
    "a25db0cd18b0f684": "password under an access key name",  # SumoLogicAccessToken
    "9fdaed84683ee0ca": "generated value under a token name",  # TelegramBotToken
    "619b05eee418250c": "generated value under a token name",  # TelegramBotToken
}


def digest(text: str) -> str:
    """The key of a string in `SECRET_VALUES`: the start of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Sample:
    rule: str  # the Go function that defines the rule
    text: str
    secret: str | None  # known when the sample was generated from a secret


@dataclass
class RuleTests:
    positives: list[Sample] = field(default_factory=list)
    near_misses: list[Sample] = field(default_factory=list)
    skipped: int = 0  # list elements or statements outside the subset read here


class _Unsupported(Exception):
    pass


# Tokens: comments, raw and interpreted strings, runes, names (dotted), numbers, operators.
_TOKEN = re.compile(
    r"(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<raw>`[^`]*`)"
    r'|(?P<str>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<rune>'(?:[^'\\\n]|\\.)+')"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|(?P<num>[0-9][0-9a-fA-Fx_.]*)"
    r"|(?P<nl>\n)"
    r"|(?P<op>\.\.\.|:=|==|!=|&&|\|\||<-|[-+*/%&|^!<>=(){}\[\],;:.])"
    r"|(?P<space>[ \t\r]+)",
    re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b"}
_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.DOTALL)


def _unquote(literal: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2) or match.group(3)
        if code:
            return chr(int(code, 16))
        return _ESCAPES.get(match.group(4), match.group(4))

    return _ESCAPE.sub(one, literal[1:-1])


def _tokens(source: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup or ""
        if kind in ("comment", "space"):
            if kind == "comment" and "\n" in match.group():
                out.append(("nl", "\n"))
            continue
        if kind == "raw":
            out.append(("str", match.group()[1:-1].replace("\r", "")))
        elif kind == "str":
            out.append(("str", _unquote(match.group())))
        else:
            out.append((kind, match.group()))
    return out


_SIZED = {
    "utils.Numeric": "[0-9]{%s}",
    "utils.Hex": "[a-f0-9]{%s}",
    "utils.AlphaNumeric": "[a-z0-9]{%s}",
    "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "utils.AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
    "utils.AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
}


class _Reader:
    """A recursive-descent reader of the Go subset over one file's tokens."""

    def __init__(self, tokens: list[tuple[str, str]], rule: str, shapes: ShapeText) -> None:
        self.tokens = tokens
        self.at = 0
        self.rule = rule
        self.shapes = shapes
        self.env: dict[str, Any] = {}
        self.secrets: dict[str, str] = {}  # generated text -> its secret
        self.skipped = 0

    def peek(self, skip_newlines: bool = True) -> tuple[str, str]:
        at = self.at
        while skip_newlines and at < len(self.tokens) and self.tokens[at][0] == "nl":
            at += 1
        return self.tokens[at] if at < len(self.tokens) else ("eof", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        while self.tokens[self.at][0] == "nl":
            self.at += 1
        if value is not None and token[1] != value:
            raise _Unsupported(f"expected {value}")
        self.at += 1
        return token

    def skip_element(self) -> None:
        """Skip to the `,` or closing bracket that ends the current element."""
        depth = 0
        while self.at < len(self.tokens):
            kind, value = self.tokens[self.at]
            if kind == "op" and value in "({[":
                depth += 1
            elif kind == "op" and value in ")}]":
                if depth == 0:
                    return
                depth -= 1
            elif kind == "op" and value == "," and depth == 0:
                return
            self.at += 1

    # Expressions ------------------------------------------------------------------------------

    def expression(self) -> Any:
        value = self.primary()
        while self.peek(skip_newlines=False) == ("op", "+"):
            self.take("+")
            right = self.primary()
            if not (isinstance(value, str) and isinstance(right, str)):
                raise _Unsupported("+ of non-strings")
            value = self._joined(value, right)
        return value

    def _joined(self, left: str, right: str) -> str:
        joined = left + right
        secret = self.secrets.get(left) or self.secrets.get(right)
        if secret is not None:
            self.secrets[joined] = secret
        return joined

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "str":
            return value
        if kind == "op" and value == "[":
            self.take("]")
            _, element = self.take()
            if element != "string":
                raise _Unsupported("slice of non-strings")
            return self.elements("}")
        if kind == "name" and value == "map":
            self.take("[")
            self.take()
            self.take("]")
            self.take()
            return self.pairs()
        if kind == "op" and value == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if kind == "name":
            if self.peek(skip_newlines=False) == ("op", "("):
                return self.call(value)
            if value in self.env:
                return self.env[value]
            if value == "nil":
                return []
            if value in ("true", "false"):
                return value == "true"
        raise _Unsupported(f"{kind} {value}")

    def elements(self, closing: str) -> list[str]:
        self.take("{")
        items: list[str] = []
        while self.peek()[1] != closing:
            start = self.at
            try:
                item = self.expression()
                if not isinstance(item, str):
                    raise _Unsupported("element")
                items.append(item)
            except _Unsupported:
                self.at = start
                self.skip_element()
                self.skipped += 1
            if self.peek()[1] == ",":
                self.take(",")
        self.take(closing)
        return items

    def pairs(self) -> list[str]:
        self.take("{")
        items: list[str] = []
        while self.peek()[1] != "}":
            start = self.at
            try:
                self.expression()
                self.take(":")
                item = self.expression()
                if not isinstance(item, str):
                    raise _Unsupported("value")
                items.append(item)
            except _Unsupported:
                self.at = start
                self.skip_element()
                self.skipped += 1
            if self.peek()[1] == ",":
                self.take(",")
        self.take("}")
        return items

    def arguments(self) -> list[Any]:
        self.take("(")
        args: list[Any] = []
        while self.peek()[1] != ")":
            start = self.at
            try:
                value = self.expression()
            except _Unsupported:
                # An argument outside the subset (the rule `r`): unknown, and an error only
                # where a function needs it.
                self.at = start
                self.skip_element()
                value = None
            if self.peek()[1] == "...":
                self.take("...")
                if not isinstance(value, list):
                    raise _Unsupported("spread")
                args.extend(value)
            else:
                args.append(value)
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        return args

    def call(self, name: str) -> Any:
        args = self.arguments()
        if name == "append" and args and isinstance(args[0], list):
            return [*args[0], *args[1:]]
        if name == "utils.GenerateSampleSecrets" and len(args) == 2:
            return [self._sample(context, *args) for context in _CONTEXTS]
        if name == "utils.GenerateSampleSecret" and len(args) == 2:
            return self._sample('{i}_api_token = "{s}"', *args)
        if name == "secrets.NewSecret" and len(args) == 1:
            return self._drawn(args[0])
        if name in _SIZED and len(args) == 1:
            return _SIZED[name] % args[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "fmt.Sprintf" and args and all(isinstance(a, str) for a in args):
            text = args[0]
            for arg in args[1:]:
                text = re.sub(r"%[sqv]", lambda _, a=arg: a, text, count=1)
            if "%" in text.replace("%%", ""):
                raise _Unsupported("format")
            return text.replace("%%", "%")
        if name in ("strings.ToUpper", "strings.ToLower") and len(args) == 1:
            return args[0].upper() if name.endswith("Upper") else args[0].lower()
        if name == "strings.Repeat" and len(args) == 2 and str(args[1]).isdigit():
            return args[0] * int(args[1])
        raise _Unsupported(name)

    def _sample(self, context: str, identifier: Any, secret: Any) -> str:
        if not (isinstance(identifier, str) and isinstance(secret, str)):
            raise _Unsupported("sample")
        text = (
            context.replace("{i}", identifier)
            .replace("{I}", identifier.upper())
            .replace("{s}", secret)
        )
        self.secrets[text] = secret
        return text

    def _drawn(self, pattern: Any) -> str:
        if not isinstance(pattern, str):
            raise _Unsupported("pattern")
        shape = re.sub(r"\(\?i\)|\(\?-i:|\\b|\^|\$", "", pattern)
        shape = shape.replace("(?i:", "(?:")
        try:
            return self.shapes.make(shape)
        except (ValueError, IndexError, KeyError) as exc:
            raise _Unsupported("shape") from exc

    # Statements -------------------------------------------------------------------------------

    def statements(self) -> Iterator[tuple[str, list[str], list[str]]]:
        """(rule, tps, fps) of every `utils.Validate…(r, tps, fps)` in the file."""
        while self.at < len(self.tokens):
            kind, value = self.tokens[self.at]
            if kind == "name" and value == "func":
                self.env = {}
                name = self.tokens[self.at + 1][1] if self.at + 1 < len(self.tokens) else ""
                self.rule = name
                self.at += 1
                continue
            if kind == "name" and value in ("utils.Validate", "utils.ValidateWithPaths"):
                self.at += 1
                start = self.at
                try:
                    args = self.arguments()
                except _Unsupported:
                    self.at = start + 1
                    self.skipped += 1
                    continue
                tps = args[1] if len(args) > 1 and isinstance(args[1], list) else []
                fps = args[2] if len(args) > 2 and isinstance(args[2], list) else []
                yield self.rule, tps, fps
                continue
            following = self.tokens[self.at + 1] if self.at + 1 < len(self.tokens) else ("", "")
            if kind == "name" and following[1] in (":=", "="):
                self.at += 2
                start = self.at
                try:
                    self.env[value] = self.expression()
                except _Unsupported:
                    self.env.pop(value, None)
                    self.at = start  # read on inside it (a `Validate` call may stand there)
                    if value.endswith(("tps", "fps")):
                        self.skipped += 1
                continue
            self.at += 1


def read_rule_tests(checkout: Path, seed: int = 31) -> RuleTests:
    """Every rule test string of the gitleaks checkout at `checkout`."""
    folder = checkout / "cmd" / "generate" / "config" / "rules"
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{checkout}: no cmd/generate/config/rules (not a gitleaks checkout)"
        )
    shapes = ShapeText(seed)
    out = RuleTests()
    for path in sorted(folder.glob("*.go")):
        if path.name.endswith("_test.go"):
            continue
        reader = _Reader(_tokens(path.read_text(encoding="utf-8")), path.stem, shapes)
        for rule, tps, fps in reader.statements():
            out.positives.extend(Sample(rule, text, reader.secrets.get(text)) for text in tps)
            out.near_misses.extend(Sample(rule, text, None) for text in fps)
        out.skipped += reader.skipped
    return out


if __name__ == "__main__":
    tests = read_rule_tests(Path(sys.argv[1]))
    generated = sum(1 for s in tests.positives if s.secret is not None)
    print(
        f"{len(tests.positives)} true positives ({generated} generated from a secret), "
        f"{len(tests.near_misses)} false positives, {tests.skipped} skipped"
    )
