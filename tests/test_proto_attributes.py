"""Protobuf span attributes read lazily (`ProtoAttributes`): every way of reading them gives the
same mapping, whatever the pairs hold, repeated keys and inherited ones included."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.proto.common.v1.common_pb2 import KeyValue

from tracecheck.readers.proto_attributes import ProtoAttributes
from tracecheck.writers import write_proto_value

KEYS = st.sampled_from(["a", "b", "gen_ai.tool.name", "x.y", ""])
LEAVES = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
VALUES = st.recursive(
    LEAVES | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


def pairs_of(items: list[tuple[str, Any]]) -> list[KeyValue]:
    out = []
    for key, value in items:
        pair = KeyValue(key=key)
        write_proto_value(pair.value, value)
        out.append(pair)
    return out


@given(
    st.lists(st.tuples(KEYS, VALUES), max_size=6),
    st.dictionaries(KEYS, LEAVES, max_size=3),
    st.lists(KEYS, max_size=3),
)
def test_to_dict_is_the_mapping_read_key_by_key(
    own: list[tuple[str, Any]], base: dict[str, Any], looked_up_first: list[str]
) -> None:
    attributes = ProtoAttributes(pairs_of(own), base)
    for key in looked_up_first:  # some values converted and cached before the whole
        attributes.get(key)
    converted = attributes.to_dict()
    expected = ProtoAttributes(pairs_of(own), base)
    assert converted == dict(expected)
    assert list(converted) == list(expected)  # same order: inherited keys, then its own
