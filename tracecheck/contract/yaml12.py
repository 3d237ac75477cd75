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

import yaml

__all__ = ["Yaml12Dumper", "Yaml12Loader"]

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
