"""The draft writer: what it writes reads back, under the YAML 1.2 loader contracts are read
with (and PyYAML's YAML 1.1 safe loader), as exactly the document it stands for, comments and
all; strings another type would swallow are quoted."""

from __future__ import annotations

import math

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tracecheck.init.yaml_writer import Item, Map, Node, Seq, plain, write_yaml
from tracecheck.yaml12 import load_yaml


def test_a_small_draft_is_written_as_expected() -> None:
    root = Map(
        (
            Item("refund-desk", key="name"),
            Item(
                Map(
                    (
                        Item(
                            Seq((Item("lookup_order"), Item("issue_refund")), flow=True),
                            key="required",
                            notes=("Called in every run.",),
                        ),
                        Item(
                            Seq(
                                (
                                    Item(
                                        Map(
                                            (
                                                Item("a", key="tool"),
                                                Item("/x", key="pointer"),
                                                Item("string", key="type"),
                                            ),
                                            flow=True,
                                        ),
                                        note="why",
                                    ),
                                )
                            ),
                            key="arguments",
                        ),
                    )
                ),
                key="tools",
                notes=("top", "two lines"),
            ),
            Item(
                Seq((Item(Map((Item(Seq((Item("b"), Item("c")), flow=True), key="parallel"),))),)),
                key="calls",
            ),
        )
    )
    assert write_yaml(root, ("header",)) == (
        "# header\n"
        "name: refund-desk\n"
        "# top\n"
        "# two lines\n"
        "tools:\n"
        "  # Called in every run.\n"
        "  required: [lookup_order, issue_refund]\n"
        "  arguments:\n"
        "    - {tool: a, pointer: /x, type: string}  # why\n"
        "calls:\n"
        "  - parallel: [b, c]\n"
    )


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("lookup_order", "lookup_order"),
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("/order_id", "/order_id"),
        ("yes", '"yes"'),  # a boolean to YAML 1.1
        ("null", '"null"'),
        ("1e3", '"1e3"'),
        ("0o17", '"0o17"'),
        ("010", '"010"'),
        ("", '""'),
        ("a: b", '"a: b"'),
        ("x # y", '"x # y"'),
        ("-", '"-"'),
        ("[a]", '"[a]"'),
        ('say "hi"\\', '"say \\"hi\\"\\\\"'),
        ("tab\tnew\nline", '"tab\\tnew\\nline"'),
        ("\x00\x85\u2028\ufeff", '"\\x00\\x85\\u2028\\ufeff"'),
        ("naïve 😀", '"naïve 😀"'),
        (None, "null"),
        (True, "true"),
        (42, "42"),
        (1e16, "1.0e+16"),
        (-0.5, "-0.5"),
        (math.inf, ".inf"),
    ],
)
def test_scalars_are_written_plain_only_when_they_read_back_as_themselves(
    value: object, written: str
) -> None:
    text = write_yaml(Map((Item(value, key="k"),)))  # type: ignore[arg-type]
    assert text == f"k: {written}\n"
    assert load_yaml(text) == {"k": value}


def test_comments_hold_no_character_a_yaml_stream_cannot() -> None:
    text = write_yaml(Map((Item(1, key="k", notes=("bell \x07 and \x1b[31m",), note="nul \x00"),)))
    assert text == "# bell \\x07 and \\x1b[31m\nk: 1  # nul \\x00\n"
    assert load_yaml(text) == {"k": 1}


def test_a_long_collection_meant_for_one_line_is_written_as_a_block() -> None:
    names = Seq(tuple(Item(f"tool_number_{i}") for i in range(12)), flow=True)
    text = write_yaml(Map((Item(names, key="allowed"),)))
    assert text.splitlines()[:2] == ["allowed:", "  - tool_number_0"]
    assert load_yaml(text) == {"allowed": [f"tool_number_{i}" for i in range(12)]}


def test_long_comments_are_wrapped_and_stay_comments() -> None:
    note = "review: " + " ".join(["word"] * 60)
    text = write_yaml(Map((Item(1, key="k", notes=(note,)),)))
    lines = text.splitlines()
    assert len(lines) > 3 and all(line.startswith("# ") and len(line) <= 100 for line in lines[:-1])
    assert load_yaml(text) == {"k": 1}


def test_malformed_nodes_are_refused() -> None:
    with pytest.raises(ValueError, match="each key once"):
        Map((Item(1, key="a"), Item(2, key="a")))
    with pytest.raises(ValueError, match="has a key"):
        Map((Item(1),))
    with pytest.raises(ValueError, match="no key"):
        Seq((Item(1, key="a"),))
    with pytest.raises(ValueError, match="cannot carry comments"):
        Seq((Item(1, note="x"),), flow=True)


# --- any document reads back as itself -----------------------------------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=12)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | _text
    | st.sampled_from(["yes", "on", "~", "1:20", "0x1F", ".5", "- a", "? x", "!tag", "&a", "*a"])
)
_notes = st.lists(_text, max_size=2).map(tuple)
_note = st.none() | _text


def _nodes() -> st.SearchStrategy[Node]:
    def collections(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        def seq(flow: bool) -> st.SearchStrategy[Node]:
            item = (
                st.builds(Item, children)
                if flow
                else st.builds(Item, children, notes=_notes, note=_note)
            )
            return st.lists(item, max_size=4).map(lambda items: Seq(tuple(items), flow=flow))

        def mapping(flow: bool) -> st.SearchStrategy[Node]:
            def build(pairs: dict[str, tuple[Node, tuple[str, ...], str | None]]) -> Map:
                return Map(
                    tuple(
                        Item(
                            value, key=key, notes=() if flow else notes, note=None if flow else note
                        )
                        for key, (value, notes, note) in pairs.items()
                    ),
                    flow=flow,
                )

            return st.dictionaries(_text, st.tuples(children, _notes, _note), max_size=4).map(build)

        return st.booleans().flatmap(lambda flow: seq(flow) | mapping(flow))

    return st.recursive(_scalars, collections, max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(root=_nodes().filter(lambda node: isinstance(node, Map)), header=_notes)
def test_any_document_reads_back_as_the_value_it_stands_for(
    root: Map, header: tuple[str, ...]
) -> None:
    text = write_yaml(root, header)
    assert load_yaml(text) == plain(root)
    assert yaml.safe_load(text) == plain(root)  # YAML 1.1 reads it the same
