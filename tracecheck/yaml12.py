"""YAML read as YAML 1.2 (its core schema): the version editors validate contracts against.

PyYAML implements YAML 1.1, where a plain `yes`, `no`, `on` or `off` is a boolean, `010` the
octal 8, `1:20` the sexagesimal 80, `2024-05-01` a date and `=` a value key. Under the YAML 1.2
core schema, which editors and the JSON Schema validators inside them use, those are strings,
except `010`, which is the decimal 10. `Yaml12Loader` is PyYAML's safe loader with the core
schema's implicit types only:

- null: `null`, `Null`, `NULL`, `~` and the empty scalar;
- booleans: `true`, `True`, `TRUE`, `false`, `False`, `FALSE`;
- integers: `[-+]?[0-9]+` (decimal, leading zeros included), `0o[0-7]+`, `0x[0-9a-fA-F]+`;
- floats: `[-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?.inf`, `.nan` (any case
  the core schema allows).

Everything else plain is a string. The `<<` merge key (a YAML 1.1 addition editors also read)
is kept. An explicit `!!bool`, `!!int` or `!!float` tag takes only its YAML 1.2 forms.
`Yaml12Dumper` quotes every string that either YAML version would read as something else, so
that what it writes reads back the same under both.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import yaml

from tracecheck.errors import ContractError, ContractProblem
from tracecheck.naming import key_path

__all__ = ["Yaml12Dumper", "Yaml12Loader", "load_yaml"]

_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCTAL = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INFINITY = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)\Z")
_MERGE = re.compile(r"<<\Z")

_DIGITS = list("-+0123456789")
_RESOLVERS: list[tuple[str, re.Pattern[str], list[str]]] = [
    ("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", _BOOL, list("tTfF")),
    # Integers before floats: `10` matches both patterns and is an integer.
    ("tag:yaml.org,2002:int", _INT, _DIGITS),
    ("tag:yaml.org,2002:int", _OCTAL, ["0"]),
    ("tag:yaml.org,2002:int", _HEX, ["0"]),
    ("tag:yaml.org,2002:float", _FLOAT, [*_DIGITS, "."]),
    ("tag:yaml.org,2002:float", _INFINITY, ["-", "+", "."]),
    ("tag:yaml.org,2002:float", _NAN, ["."]),
    ("tag:yaml.org,2002:merge", _MERGE, ["<"]),
]


def _refuse(node: yaml.Node, what: str) -> yaml.constructor.ConstructorError:
    # The value is not repeated: a contract may hold a secret it forbids.
    return yaml.constructor.ConstructorError(
        None, None, f"an explicit {what} must be written in its YAML 1.2 form", node.start_mark
    )


def _bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    text = loader.construct_scalar(node)  # type: ignore[arg-type]
    if not _BOOL.match(text):
        raise _refuse(node, "!!bool")
    return text.lower() == "true"


def _int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = loader.construct_scalar(node)  # type: ignore[arg-type]
    if _INT.match(text):
        return int(text, 10)
    if _OCTAL.match(text):
        return int(text[2:], 8)
    if _HEX.match(text):
        return int(text[2:], 16)
    raise _refuse(node, "!!int")


def _float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = loader.construct_scalar(node)  # type: ignore[arg-type]
    if _FLOAT.match(text):
        return float(text)
    if _INFINITY.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    raise _refuse(node, "!!float")


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML's safe loader resolving plain scalars by the YAML 1.2 core schema."""

    # Its own table, empty: PyYAML's YAML 1.1 resolvers are not inherited.
    yaml_implicit_resolvers = {}  # noqa: RUF012


for _tag, _pattern, _first in _RESOLVERS:
    Yaml12Loader.add_implicit_resolver(_tag, _pattern, _first)
Yaml12Loader.add_constructor("tag:yaml.org,2002:bool", _bool)
Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _float)


class Yaml12Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper that also quotes the strings YAML 1.2 reads as another type
    (`0o17`, `1e3`, `-.5`, `08`); the YAML 1.1 ones (`yes`, `010`, `1:20`) it quotes already."""


for _tag, _pattern, _first in _RESOLVERS:
    Yaml12Dumper.add_implicit_resolver(_tag, _pattern, _first)


def load_yaml(text: str, source: str | None = None) -> Any:
    """YAML (or JSON) text read as YAML 1.2 (`Yaml12Loader`), refusing a key written twice in
    one mapping with a `ContractError` that names its place and line. PyYAML's own errors
    propagate."""
    loader = Yaml12Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        problems = list(_yaml_duplicates(loader, node, "", set()))
        if problems:
            raise ContractError(problems, source=source)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _yaml_duplicates(
    loader: yaml.SafeLoader, node: yaml.Node, where: str, visited: set[int]
) -> Iterator[ContractProblem]:
    """Keys written twice in one mapping (a `<<` merge may override; that is not a repeat).
    A node reached again through an alias is checked once, so a recursive alias ends."""
    if id(node) in visited:
        return
    visited.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _yaml_duplicates(loader, item, f"{where}[{index}]", visited)
    elif isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = _yaml_key(loader, key_node)
            if key in seen:
                mark = key_node.start_mark
                yield ContractProblem.duplicate_key(
                    where, key, f" (line {mark.line + 1}, column {mark.column + 1})"
                )
            seen.add(key)
            yield from _yaml_duplicates(loader, value_node, key_path(where, str(key)), visited)


def _yaml_key(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """A mapping key as the loader would build it; one that cannot be hashed is compared by
    its text."""
    key = loader.construct_object(node, deep=True)
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key
