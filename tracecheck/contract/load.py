"""Reading a contract document: a path, JSON or YAML text, or an already-parsed value.

A file's problems name the file (`ContractError.source`). JSON syntax errors carry their line
and column; YAML is read with `yaml.safe_load`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import yaml

from tracecheck.errors import ContractError, ContractProblem

__all__ = ["ContractSource", "load_document", "parse_text"]

ContractSource = str | os.PathLike[str] | bytes | Any
_JSON_SUFFIXES = (".json",)
_YAML_SUFFIXES = (".yaml", ".yml")


def load_document(source: ContractSource) -> tuple[Any, str | None]:
    """The parsed document and the file it came from (None for text and values).

    A `Path` is a file. A string is a file when it is one line that names an existing file or
    ends in `.json`, `.yaml` or `.yml`; otherwise it is JSON or YAML text. Anything else is
    taken as the document itself (validation reports a value that is not an object).
    """
    if isinstance(source, os.PathLike):
        path = Path(os.fspath(source))
        return _read_file(path), str(path)
    if isinstance(source, bytes):
        return parse_text(_decode(source, None), None), None
    if isinstance(source, str):
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
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise _json_error(exc, source) from None


def _json_error(exc: orjson.JSONDecodeError, source: str | None) -> ContractError:
    return _fail(
        source, f"malformed JSON: {exc.msg.rstrip('.')}", f"line {exc.lineno}, column {exc.colno}"
    )


def _load_yaml(text: str) -> Any:
    return yaml.safe_load(text)


def _parse_yaml(text: str, source: str | None) -> Any:
    try:
        return _load_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise _fail(source, f"malformed YAML: {exc.problem or exc}", where) from None
    except RecursionError:
        raise _fail(source, "malformed YAML: nested too deeply") from None
    except Exception as exc:
        raise _fail(source, f"malformed YAML: {exc}") from None
