"""Content that Claude Code's partial messages (`stream_event` records, written with
`--include-partial-messages`) send in pieces: each text, thinking or tool-input block arrives as
`content_block_delta` events of a few characters each.

A secret the model writes is cut across those pieces, where no detector and no known-secret
form can see it, yet anyone can join them again. So each block's pieces are joined and the
whole judged and redacted as one string: when redaction changes the whole, its first piece
carries the redacted whole and the others become empty, so that joined they still give the
block's (redacted) content.

A block is the run of deltas with one index in one thread (`parent_tool_use_id`), from its
`content_block_start` (or its first delta) to the next start of that index or the thread's next
`message_start`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["StreamedBlocks", "with_piece"]

# The delta types whose pieces make one text, and the field each writes it in.
_DELTA_FIELDS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}


@dataclass(frozen=True, slots=True)
class Piece:
    """One delta: the record's line, the delta field that holds the piece, and its text."""

    line: int
    field: str
    text: str


@dataclass(slots=True)
class StreamedBlock:
    """The pieces of one streamed block, in order."""

    pieces: list[Piece] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(piece.text for piece in self.pieces)

    @property
    def field(self) -> str:
        return self.pieces[0].field


class StreamedBlocks:
    """The blocks of a file's stream events, gathered record by record (`add`)."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, Any, str], StreamedBlock] = {}
        self._blocks: list[StreamedBlock] = []

    def add(self, record: Mapping[str, Any], line: int) -> None:
        if record.get("type") != "stream_event":
            return
        event = record.get("event")
        if not isinstance(event, Mapping):
            return
        thread = str(record.get("parent_tool_use_id") or "")
        kind = event.get("type")
        if kind == "message_start":
            for key in [key for key in self._open if key[0] == thread]:
                del self._open[key]
            return
        index = event.get("index")
        if kind == "content_block_start":
            for key in [key for key in self._open if key[:2] == (thread, index)]:
                del self._open[key]
            return
        delta = event.get("delta")
        if kind != "content_block_delta" or not isinstance(delta, Mapping):
            return
        name = _DELTA_FIELDS.get(str(delta.get("type")))
        text = delta.get(name) if name is not None else None
        if name is None or not isinstance(text, str):
            return
        key = (thread, index if isinstance(index, int) else None, name)
        block = self._open.get(key)
        if block is None:
            block = self._open[key] = StreamedBlock()
            self._blocks.append(block)
        block.pieces.append(Piece(line, name, text))

    def joined(self) -> Iterator[StreamedBlock]:
        """The blocks sent in more than one piece (a block of one piece is judged in its
        record), in the order they began."""
        return (block for block in self._blocks if len(block.pieces) > 1)


def with_piece(record: Mapping[str, Any], name: str, text: str) -> dict[str, Any]:
    """A copy of a stream event record whose delta's `name` field holds `text`."""
    event = dict(record["event"])
    event["delta"] = {**event["delta"], name: text}
    return {**record, "event": event}
