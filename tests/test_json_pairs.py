"""JSON objects that write a key twice are read with every value (`redact.json_pairs`).

The fast reader keeps the last value of a key; `repeats_keys` tells, from bytes counts alone,
whether a text wrote some key twice, whatever escapes and spaces it is written with, and
`loads_keeping_repeats` then reads every member. Hypothesis writes JSON texts with keys drawn
from a few characters (so that they repeat, and hold quotes, backslashes and colons) in every
escape and spacing JSON allows.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from redact import assess
from redact.json_pairs import RepeatedKeys, loads_keeping_repeats, repeats_keys, shadowed

KEYS = st.text(alphabet='a"\\:/ é', max_size=3)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.text(alphabet='x"\\: ', max_size=4)
)


def trees() -> st.SearchStrategy[Any]:
    """Values whose objects are lists of (key, value) members, keys possibly repeated."""
    return st.recursive(
        SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3).map(lambda items: ("array", items)),
            st.lists(st.tuples(KEYS, inner), max_size=4).map(lambda pairs: ("object", pairs)),
        ),
        max_leaves=12,
    )


def repeats(tree: Any) -> bool:
    if isinstance(tree, tuple):
        kind, items = tree
        if kind == "array":
            return any(repeats(item) for item in items)
        keys = [key for key, _ in items]
        return len(set(keys)) < len(keys) or any(repeats(value) for _, value in items)
    return False


def written(tree: Any, data: st.DataObject) -> str:
    """The tree as JSON text, each character of each string escaped or not as drawn, white
    space drawn around every token."""
    space = lambda: data.draw(st.sampled_from(["", " ", "\n", "\t", "\r\n  "]))  # noqa: E731
    if isinstance(tree, tuple):
        kind, items = tree
        if kind == "array":
            inner = ",".join(space() + written(item, data) + space() for item in items)
            return "[" + inner + space() + "]"
        members = ",".join(
            f"{space()}{string(key, data)}{space()}:{space()}{written(value, data)}{space()}"
            for key, value in items
        )
        return "{" + members + space() + "}"
    if isinstance(tree, str):
        return string(tree, data)
    return json.dumps(tree)


def string(text: str, data: st.DataObject) -> str:
    forms = {
        '"': ['\\"', "\\u0022"],
        "\\": ["\\\\", "\\u005c", "\\u005C"],
        ":": [":", "\\u003a", "\\u003A"],
        "/": ["/", "\\/"],
    }
    out = []
    for char in text:
        choices = forms.get(char, [char, f"\\u{ord(char):04x}"])
        out.append(data.draw(st.sampled_from(choices)))
    return '"' + "".join(out) + '"'


@settings(max_examples=400, deadline=None)
@given(trees(), st.data())
def test_a_key_written_twice_is_told_from_the_bytes_alone(tree: Any, data: st.DataObject) -> None:
    text = written(tree, data).encode()
    parsed = orjson.loads(text)
    assert repeats_keys(text, parsed) == repeats(tree)


@settings(max_examples=200, deadline=None)
@given(trees(), st.data())
def test_every_member_is_read_when_a_key_repeats(tree: Any, data: st.DataObject) -> None:
    text = written(tree, data).encode()
    whole = loads_keeping_repeats(text, orjson.loads(text))

    def members(tree: Any, value: Any) -> None:
        if isinstance(tree, tuple):
            kind, items = tree
            if kind == "array":
                assert isinstance(value, list) and len(value) == len(items)
                for item, got in zip(items, value, strict=True):
                    members(item, got)
                return
            assert isinstance(value, dict)
            pairs = list(value.items())  # every member, in the order written
            assert [key for key, _ in pairs] == [key for key, _ in items]
            assert isinstance(value, RepeatedKeys) == (len({k for k, _ in items}) < len(items))
            for (_, item), (_, got) in zip(items, pairs, strict=True):
                members(item, got)
        else:
            assert value == tree

    members(tree, whole)


def test_a_repeated_key_keeps_the_last_value_as_a_dict_and_every_value_as_items() -> None:
    text = b'{"attributes": {"a": 1}, "name": "x", "attributes": {"b": 2}}'
    value = loads_keeping_repeats(text, orjson.loads(text))
    assert isinstance(value, RepeatedKeys)
    assert dict(value) == {"attributes": {"b": 2}, "name": "x"}
    assert list(value.items()) == [
        ("attributes", {"a": 1}),
        ("name", "x"),
        ("attributes", {"b": 2}),
    ]
    assert list(value.values()) == [{"a": 1}, "x", {"b": 2}]
    assert list(shadowed(value, "/line 1")) == [("/line 1", "attributes", {"a": 1})]


def test_a_walk_judges_every_value_of_a_repeated_key() -> None:
    secret = "correct" + "-horse-battery"
    text = b'{"login": {"password": "%s"}, "login": {"user": "a"}}' % secret.encode()
    value = loads_keeping_repeats(text, orjson.loads(text))
    verdict = assess(value, profile="share")
    assert verdict.status.value == "UNSAFE"
    assert verdict.findings[0].paths == ("/login/password",)
