"""Reading a contract document: a path, JSON or YAML text, or an already-parsed value.

A file's problems name the file (`ContractError.source`). JSON syntax errors carry their line
and column; YAML is read as YAML 1.2 (tracecheck/yaml12.py: `yes` and `1:20` are strings, `010` is 10),
the version editors validate it as. A key written twice in one object is refused at its place
(both parsers would silently keep the last one, dropping a check).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from tracecheck.contract.builtin import builtin_path, is_builtin
from tracecheck.errors import ContractError, ContractProblem
from tracecheck.naming import key_path

if TYPE_CHECKING:  # PyYAML is imported when a YAML contract is read, not for a JSON one
    pass

__all__ = ["ContractSource", "load_document", "parse_text"]

ContractSource = str | os.PathLike[str] | bytes | Any
_JSON_SUFFIXES = (".json",)
_YAML_SUFFIXES = (".yaml", ".yml")


def load_document(source: ContractSource) -> tuple[Any, str | None]:
    """The parsed document and the file it came from (None for text and values).

    A `Path` is a file. A string is a ready-made contract when it reads `builtin:NAME`
    (`builtin.py`), a file when it is one line that names an existing file or ends in `.json`,
    `.yaml` or `.yml`; otherwise it is JSON or YAML text. Anything else is taken as the
    document itself (validation reports a value that is not an object).
    """
    if isinstance(source, os.PathLike):
        path = Path(os.fspath(source))
        return _read_file(path), str(path)
    if isinstance(source, bytes):
        return parse_text(_decode(source, None), None), None
    if isinstance(source, str):
        if is_builtin(source):
            return _read_file(builtin_path(source)), source
        if _names_a_file(source):
            return _read_file(Path(source)), source
        return parse_text(source, None), None
    return source, None


def _names_a_file(text: str) -> bool:
    if "\n" in text or "\r" in text or not text.strip():
        return False
    if text.lstrip().startswith(("{", "[")):
        return False
    if text.lower().endswith(_JSON_SUFFIXES + _YAML_SUFFIXES):
        return True
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def _fail(source: str | None, message: str, where: str = "") -> ContractError:
    return ContractError([ContractProblem(where, message)], source=source)


def _decode(data: bytes, source: str | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(source, f"is not UTF-8 text (byte {exc.start})") from None


def _read_file(path: Path) -> Any:
    source = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _fail(source, f"cannot be read: {exc.strerror or exc}") from None
    text = _decode(data, source)
    suffix = path.suffix.lower()
    if suffix in _JSON_SUFFIXES:
        return _parse_json(text, source)
    if suffix in _YAML_SUFFIXES:
        return _parse_yaml(text, source)
    return parse_text(text, source)


def parse_text(text: str, source: str | None) -> Any:
    """JSON when the text opens with `{` or `[` (strict JSON, so that a JSON typo is reported
    as one rather than read as YAML flow style); otherwise YAML. A YAML document in flow
    style is read from a `.yaml`/`.yml` file."""
    if text.lstrip().startswith(("{", "[")):
        return _parse_json(text, source)
    return _parse_yaml(text, source)


def _parse_json(text: str, source: str | None) -> Any:
    """orjson judges the syntax (strict JSON, with line and column); the value is `json`'s,
    which keeps every integer exact, as YAML does (orjson reads one over 2**64 as a float)."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise _json_error(exc, source) from None
    try:
        members = json.loads(text, object_pairs_hook=_Pairs)
        _refuse(list(_json_duplicates(members, "")), source)
        return json.loads(text)
    except RecursionError:
        raise _fail(source, "malformed JSON: nested too deeply") from None


def _refuse(problems: list[ContractProblem], source: str | None) -> None:
    if problems:
        raise ContractError(problems, source=source)


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as written: its members in order, repeated keys kept (an
    `object_pairs_hook`), so that a second pass can name where a key repeats."""


def _json_duplicates(value: Any, where: str) -> Iterator[ContractProblem]:
    if isinstance(value, _Pairs):
        seen: set[str] = set()
        for key, member in value:
            if key in seen:
                yield ContractProblem.duplicate_key(where, key)
            seen.add(key)
            yield from _json_duplicates(member, key_path(where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_duplicates(item, f"{where}[{index}]")


def _json_error(exc: orjson.JSONDecodeError, source: str | None) -> ContractError:
    return _fail(
        source, f"malformed JSON: {exc.msg.rstrip('.')}", f"line {exc.lineno}, column {exc.colno}"
    )


def _parse_yaml(text: str, source: str | None) -> Any:
    import yaml

    from tracecheck.yaml12 import load_yaml

    try:
        return load_yaml(text, source)
    except ContractError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise _fail(source, f"malformed YAML: {exc.problem or exc}", where) from None
    except RecursionError:
        raise _fail(source, "malformed YAML: nested too deeply") from None
    except Exception as exc:
        raise _fail(source, f"malformed YAML: {exc}") from None
