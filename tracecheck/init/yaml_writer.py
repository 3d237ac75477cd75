"""A small YAML writer for contract drafts: block mappings and sequences, flow collections for
short leaves, and comments before any entry or after it on its line.

PyYAML writes no comments, and a draft is mostly comments, so drafts are built as `Map` and
`Seq` nodes and written here. What it writes reads back under the YAML 1.2 loader contracts
are read with (tracecheck/yaml12.py) as exactly the value `plain(node)` gives: a string is
written plain only when both YAML 1.1 and 1.2 read it as that string, and double-quoted with
escapes otherwise; a comment holds no character a YAML stream may not contain.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Item", "Map", "Node", "Scalar", "Seq", "plain", "write_yaml"]

Scalar = str | int | float | bool | None
WIDTH = 100  # lines are kept to this width where they can be: comments wrapped, long flow
# collections written as blocks (a long word or scalar stays whole)


@dataclass(frozen=True, slots=True)
class Item:
    """One entry of a mapping (`key` set) or a sequence (`key` None), with the comment lines
    written before it (`notes`) and the comment after it on its line (`note`)."""

    value: Node
    key: str | None = None
    notes: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Map:
    """A mapping in the order written; `flow` writes it on one line (`{a: 1, b: 2}`), for
    which no entry may carry a comment."""

    items: tuple[Item, ...]
    flow: bool = False

    def __post_init__(self) -> None:
        keys = [item.key for item in self.items]
        if None in keys:
            raise ValueError("every entry of a mapping has a key")
        if len(set(keys)) != len(keys):
            raise ValueError("a mapping holds each key once")
        _flow_without_comments(self)


@dataclass(frozen=True, slots=True)
class Seq:
    """A sequence; `flow` writes it on one line (`[a, b]`)."""

    items: tuple[Item, ...]
    flow: bool = False

    def __post_init__(self) -> None:
        if any(item.key is not None for item in self.items):
            raise ValueError("an entry of a sequence has no key")
        _flow_without_comments(self)


Node = Map | Seq | Scalar


def _flow_without_comments(node: Map | Seq) -> None:
    if node.flow and any(item.notes or item.note for item in node.items):
        raise ValueError("a collection written on one line cannot carry comments")


def plain(node: Node) -> Any:
    """The value a node stands for: dicts, lists and scalars."""
    if isinstance(node, Map):
        return {item.key: plain(item.value) for item in node.items}
    if isinstance(node, Seq):
        return [plain(item.value) for item in node.items]
    return node


def write_yaml(root: Map, header: tuple[str, ...] = ()) -> str:
    """The document as YAML text: `header` as comment lines, then the root mapping."""
    lines = [*_comment_lines(header, "")]
    if root.flow or not root.items:
        lines.append(_flow(root))
    else:
        lines.extend(_map_lines(root, 0))
    return "\n".join(lines) + "\n"


# --- block style ------------------------------------------------------------------------------


def _map_lines(node: Map, indent: int) -> Iterator[str]:
    pad = " " * indent
    for item in node.items:
        yield from _comment_lines(item.notes, pad)
        key = _scalar(item.key)
        value = _fitted(item.value, len(pad + key) + 2)
        if _is_block(value):
            yield pad + key + ":" + _trailing(item.note)
            # A sequence under a key is indented too, so that comments line up with its dashes.
            yield from _block_lines(value, indent + 2)
        else:
            yield pad + key + ": " + _flow(value) + _trailing(item.note)


def _seq_lines(node: Seq, indent: int) -> Iterator[str]:
    pad = " " * indent
    for item in node.items:
        yield from _comment_lines(item.notes, pad)
        value = _fitted(item.value, len(pad) + 2)
        if not _is_block(value):
            yield pad + "- " + _flow(value) + _trailing(item.note)
            continue
        inner = list(_block_lines(value, indent + 2))
        first = inner[0]
        if item.note is None and not first.lstrip().startswith("#"):
            # The first line of the entry goes on the dash's line: `- parallel: [a, b]`.
            yield pad + "- " + first[indent + 2 :]
            yield from inner[1:]
        else:
            yield pad + "-" + _trailing(item.note)
            yield from inner


def _block_lines(node: Node, indent: int) -> Iterator[str]:
    if isinstance(node, Map):
        yield from _map_lines(node, indent)
    elif isinstance(node, Seq):
        yield from _seq_lines(node, indent)


def _fitted(node: Node, used: int) -> Node:
    """A collection meant for one line, written as a block when the line would run past
    `WIDTH` (`used`: the columns before it)."""
    too_long = isinstance(node, (Map, Seq)) and node.flow and used + len(_flow(node)) > WIDTH
    return replace(node, flow=False) if too_long else node  # type: ignore[type-var]


def _is_block(node: Node) -> bool:
    return isinstance(node, (Map, Seq)) and not node.flow and bool(node.items)


# --- flow style and scalars -------------------------------------------------------------------


def _flow(node: Node) -> str:
    if isinstance(node, Map):
        return "{" + ", ".join(f"{_scalar(i.key)}: {_flow(i.value)}" for i in node.items) + "}"
    if isinstance(node, Seq):
        return "[" + ", ".join(_flow(item.value) for item in node.items) + "]"
    return _scalar(node)


# A plain scalar safe in block and flow context alike: no indicator, space, colon or comma.
_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./@-]*\Z")


def _scalar(value: Scalar) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if _PLAIN.match(value) and _reads_as_string(value):
        return value
    return _quoted(value)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    # YAML 1.1 reads a float only with a dot in its mantissa: `1e+16` is written `1.0e+16`.
    mantissa, e, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def _reads_as_string(text: str) -> bool:
    """Whether a plain scalar reads back as this string under YAML 1.2 and 1.1 (`yes`, `on`
    and `null` do not)."""
    import yaml

    from tracecheck.yaml12 import Yaml12Loader

    return all(
        _tag(loader, text) == "tag:yaml.org,2002:str" for loader in (Yaml12Loader, yaml.SafeLoader)
    )


def _tag(loader: Any, text: str) -> str:
    """The tag a loader's resolvers give a plain scalar (they are class data, so the class
    stands in for a loader)."""
    import yaml

    return str(loader.resolve(loader, yaml.ScalarNode, text, (True, False)))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _quoted(text: str) -> str:
    return '"' + "".join(_ESCAPES.get(char) or _escaped(char) for char in text) + '"'


def _escaped(char: str) -> str:
    if _printable(char):
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _printable(char: str) -> bool:
    """Whether a character may stand as itself in a YAML stream (both versions' printable
    set, without the line breaks YAML 1.1 adds: NEL, LS, PS)."""
    code = ord(char)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code not in (0xFEFF,))
        or 0x10000 <= code <= 0x10FFFF
    ) and code not in (0x2028, 0x2029)


# --- comments ---------------------------------------------------------------------------------


def _comment_lines(notes: tuple[str, ...], pad: str) -> Iterator[str]:
    for note in notes:
        for line in note.splitlines() or [""]:
            text = _comment_text(line)
            indent = " " * (len(text) - len(text.lstrip(" ")))
            width = max(40, WIDTH - len(pad) - 2)
            wrapped = textwrap.wrap(
                text,
                width,
                subsequent_indent=indent + "  " if indent else indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
            for part in wrapped or [""]:
                yield f"{pad}# {part}".rstrip()


def _trailing(note: str | None) -> str:
    if note is None:
        return ""
    return "  # " + _comment_text(" ".join(note.splitlines()))


def _comment_text(text: str) -> str:
    """A comment's text with each character YAML may not hold (a control character) escaped."""
    return "".join(char if char == "\t" or _printable(char) else _escaped(char) for char in text)
