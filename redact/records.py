"""Claude Code records (stream-json, the Agent SDK's stdout, session transcripts) redacted and
judged in their own shape, one JSON record at a time.

Every string of a record goes through the redactor; what is kept is the record's structure,
described here as data (`ENVELOPES`): which containers hold the record's parts (the API
`message`, its `content` blocks, a tool's `toolUseResult`, a progress record's inner record,
a stream event's message), and which fields hold ids that stay as they are.

Two things differ from a plain `redact` of the record, both about structure, never about what a
detector finds:

- A container that Claude Code names with a raw-content key (`message`, `content`,
  `toolUseResult`) is walked, not replaced whole, under a profile that removes raw content
  (`strict`), so that tool calls, models and token counts survive. Inside it, under such a
  profile, every field not listed as structural is raw content (text, thinking, tool input,
  tool output, signatures), whatever its own key.
- A session id written as a UUID (`sessionId`, `session_id`) stays: it names the session (and
  the file), as a trace id does. Any other value there goes by the identifier rule.

A base64 image or document in a content block is judged as the data URI it is (its media
type and payload), so a screenshot is not cut by the size cap and a payload nothing can read is
replaced, not passed on. JSON held in a string is redacted as JSON (`json_text`).

The assessment walks the same way, so that the gate judges the written records as the
redactor treated them. Report paths name the record's line and the field
(`line 12: message.content[1].input.command`).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol, TypeVar

from redact.core import KnownSecretsArg, assessing_classes, pseudonym_key_of, redactor_for
from redact.inspector import MAX_DEPTH, known_secrets_of, pointer_segment, strings_in
from redact.json_text import (
    JsonTextAssessor,
    JsonTextInspector,
    JsonTextRedactor,
    json_container,
)
from redact.model import RedactionFinding, RedactionReport, ShareVerdict
from redact.profiles import Profile, resolve_profile
from redact.streamed import StreamedBlocks, with_piece
from redact.walk import Assessor, Redactor, unclassified

__all__ = ["RecordAssessor", "RecordRedactor", "dotted_path"]

# The key a raw-content field of a record is judged under, whatever Claude Code named it.
RAW_ALIAS = "content"


@dataclass(frozen=True, slots=True)
class Field:
    """How one field of an envelope is read. `kind` is an envelope's name, `blocks` (a list of
    content blocks), `session` (a session id), `text` (free text under a key the key lists do
    not classify), `media` (a base64 payload beside its `media_type`) or `field` (a structural
    field: its own key's rules apply). `structure`: an envelope field walked even where the
    profile removes raw content; otherwise, there, its own key's rule applies."""

    kind: str
    structure: bool = True


@dataclass(frozen=True, slots=True)
class Envelope:
    """A container of a record: its known fields, and whether Claude Code's key for it is raw
    content (then, where the profile removes raw content, every field not listed is too)."""

    fields: Mapping[str, Field]
    raw: bool = False


def _structural(*names: str) -> dict[str, Field]:
    return dict.fromkeys(names, Field("field"))


# The containers of Claude Code 2.0/2.1 records (fixtures/claude/recorded/), by name.
ENVELOPES: Mapping[str, Envelope] = {
    "record": Envelope(
        {
            "sessionId": Field("session"),
            "session_id": Field("session"),
            "message": Field("message"),
            "toolUseResult": Field("tool-result"),
            "tool_use_result": Field("tool-result"),
            "data": Field("progress"),
            "event": Field("event"),
            "summary": Field("text"),
        }
    ),
    # `progress` records: `agent_progress` carries a sub-agent's whole record.
    "progress": Envelope({"message": Field("record")}),
    # `stream_event` records (`--include-partial-messages`).
    "event": Envelope(
        {"message": Field("message"), "content_block": Field("block"), "delta": Field("delta")}
    ),
    "delta": Envelope({"partial_json": Field("text")}),
    # An Anthropic Messages API message.
    "message": Envelope(
        {
            **_structural(
                "id",
                "type",
                "role",
                "model",
                "stop_reason",
                "stop_sequence",
                "usage",
                "container",
                "context_management",
            ),
            "content": Field("blocks"),
        },
        raw=True,
    ),
    # A content block: text, thinking, tool_use, tool_result, image, document, server tools.
    "block": Envelope(
        {
            **_structural(
                "type", "id", "name", "tool_use_id", "is_error", "server_name", "cache_control"
            ),
            "content": Field("blocks", structure=False),
            "source": Field("source"),
        },
        raw=True,
    ),
    "source": Envelope({**_structural("type", "media_type"), "data": Field("media")}, raw=True),
    # A tool's own result object: the sub-agent it ran and its last message's usage are read.
    "tool-result": Envelope(_structural("agentId", "usage", "status", "type"), raw=True),
}

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_MIME = re.compile(r"[A-Za-z0-9_.+-]+/[A-Za-z0-9_.+-]+")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_DELTA = "/event/delta/"
_UNCAPPED = 1 << 62
# Records prescanned together (every string of the batch in one pass), as spans are batched.
_BATCH = 512
_Carried = TypeVar("_Carried")


class _Visitor(Protocol):
    """What the walk asks of a redactor or an assessor; each answers with the value to keep."""

    def keyed(self, key: str, value: Any, path: str, depth: int) -> Any: ...
    def value(self, value: Any, path: str, depth: int) -> Any: ...
    def string(self, text: str, path: str) -> Any: ...
    def mapping(self, value: Mapping[str, Any], path: str, depth: int) -> Any: ...
    def media(self, mime: str, data: str, path: str) -> Any: ...
    def plain_key(self, key: str) -> bool: ...


class _Walk:
    """One record's envelopes, walked with a visitor; everything else is the visitor's."""

    def __init__(self, visitor: _Visitor, profile: Profile) -> None:
        self.visitor = visitor
        self.removes_raw = profile.remove_raw_content_keys

    def envelope(self, name: str, value: dict[str, Any], path: str, depth: int) -> dict[str, Any]:
        spec = ENVELOPES[name]
        raw = spec.raw and self.removes_raw
        visitor = self.visitor
        as_raw = {key for key in value if key not in spec.fields and raw and visitor.plain_key(key)}
        # Fields with no part in the structure go through the visitor together, so a key that
        # holds a secret is renamed as in any mapping; merged back in the record's order.
        rest = {k: v for k, v in value.items() if k not in spec.fields and k not in as_raw}
        walked = iter(visitor.mapping(rest, path, depth).items()) if rest else iter(())
        out: dict[str, Any] = {}
        for key, item in value.items():
            where = f"{path}/{pointer_segment(key)}"
            field = spec.fields.get(key)
            if field is not None:
                out[key] = self.field(field, key, item, value, where, depth, raw=raw)
            elif key in as_raw:
                out[key] = visitor.keyed(RAW_ALIAS, item, where, depth)
            else:
                new_key, new_item = next(walked)
                out[new_key] = new_item
        return out

    def field(
        self,
        field: Field,
        key: str,
        item: Any,
        parent: Mapping[str, Any],
        path: str,
        depth: int,
        *,
        raw: bool,
    ) -> Any:
        visitor = self.visitor
        kind = field.kind
        walked = field.structure or not self.removes_raw
        if depth > MAX_DEPTH:
            return visitor.keyed(key, item, path, depth)  # the visitor's depth limit
        if kind == "session" and item.__class__ is str and _UUID.fullmatch(item):
            return visitor.string(item, path)
        if kind == "text":
            return visitor.keyed(RAW_ALIAS, item, path, depth)
        if kind == "media":
            mime = parent.get("media_type")
            if (
                parent.get("type") == "base64"
                and item.__class__ is str
                and mime.__class__ is str
                and _MIME.fullmatch(mime)
            ):
                return visitor.media(mime, item, path)
        elif kind == "blocks" and item.__class__ is list and walked:
            return [self.block(block, f"{path}/{i}", depth + 1) for i, block in enumerate(item)]
        elif kind in ENVELOPES and item.__class__ is dict and walked:
            return self.envelope(kind, item, path, depth + 1)
        if raw and kind != "field" and visitor.plain_key(key):
            return visitor.keyed(RAW_ALIAS, item, path, depth)
        return visitor.keyed(key, item, path, depth)

    def block(self, block: Any, path: str, depth: int) -> Any:
        if block.__class__ is dict:
            return self.envelope("block", block, path, depth)
        if self.removes_raw:
            return self.visitor.keyed(RAW_ALIAS, block, path, depth)
        return self.visitor.value(block, path, depth)


class _Redacting:
    """The walk's visitor that redacts."""

    def __init__(self, redactor: Redactor, whole: Redactor) -> None:
        self.redactor = redactor
        self.whole = whole
        self.keyed = redactor.keyed
        self.value = redactor.value
        self.string = redactor.string
        self.mapping = redactor.mapping

    def media(self, mime: str, data: str, path: str) -> Any:
        kind = mime.lower()
        if not (kind.startswith(("image/", "text/")) or kind == "application/json"):
            # A payload no detector can read (a PDF, audio) cannot be judged: not passed on.
            self.redactor.findings.append(RedactionFinding(path, "media", "media", "redacted"))
            return "[REDACTED:media]"
        # The payload as written is a string like any other (a token can be spelled in base64
        # text), read uncut: a cut payload is no picture, and the data URI's rule decides size.
        found = self.whole.findings
        found.clear()
        data = self.whole.string(data, path)
        self.redactor.findings.extend(found)
        found.clear()
        head = f"data:{mime};base64,"
        out = self.redactor.string(head + data, path)
        return out[len(head) :] if out.startswith(head) else out

    def plain_key(self, key: str) -> bool:
        return unclassified(self.redactor.inspector, key)


class _Looking:
    """The walk's visitor that only assesses (each answer is the value as it was)."""

    def __init__(self, assessor: Assessor) -> None:
        self.assessor = assessor
        self.plain_key = assessor.is_plain

    def keyed(self, key: str, value: Any, path: str, depth: int) -> Any:
        self.assessor.keyed(key, value, path, depth)
        return value

    def value(self, value: Any, path: str, depth: int) -> Any:
        self.assessor.value(value, path, depth)
        return value

    def string(self, text: str, path: str) -> Any:
        self.assessor.string(text, path)
        return text

    def mapping(self, value: Mapping[str, Any], path: str, depth: int) -> Any:
        self.assessor.mapping(value, path, depth)
        return value

    def media(self, mime: str, data: str, path: str) -> Any:
        self.assessor.string(data, path)
        self.assessor.string(f"data:{mime};base64,{data}", path)
        return data


class RecordRedactor:
    """Claude Code records redacted with one state: pseudonyms agree across the records of a
    file (and across files and runs with one `pseudonym_key`), one report covers them all, its
    paths naming each record by its place (`line 12: message.content[1].text`)."""

    def __init__(
        self,
        *,
        profile: str | Profile = "default",
        known_secrets: KnownSecretsArg = (),
        pseudonym_key: bytes | str | None = None,
        max_string_bytes: float | None = None,
    ) -> None:
        # One key for both redactors, so that a value has one pseudonym in the whole file.
        key = pseudonym_key_of(pseudonym_key) or secrets.token_bytes(32)
        self._redactor = redactor_for(
            profile,
            known_secrets,
            key,
            max_string_bytes,
            inspector=JsonTextInspector,
            redactor=JsonTextRedactor,
        )
        # Streamed blocks are judged whole, uncut: each piece is cut by the cap on its own.
        self._whole = type(self._redactor)(self._redactor.inspector, _UNCAPPED, key)
        self.profile = self._redactor.profile
        self._walk = _Walk(_Redacting(self._redactor, self._whole), self.profile)
        self._findings: list[RedactionFinding] = []

    def redact_records(
        self, read: Callable[[], Iterable[tuple[int, dict[str, Any] | None, _Carried]]]
    ) -> Iterator[tuple[int, _Carried, dict[str, Any] | None]]:
        """The records of a file redacted, in order. `read()` gives the file's lines as (line
        number, record, or None for a line that holds none, what the caller carries along);
        it is called twice: first to join the blocks partial messages send in pieces
        (`redact.streamed`), then to redact every record. Yields (line number, what was
        carried, the redacted record, or None when it stays as it was read)."""
        blocks = StreamedBlocks()
        for number, record, _ in read():
            if record is not None:
                blocks.add(record, number)
        pieces = self._joined(blocks)
        lines = iter(read())
        while batch := list(islice(lines, _BATCH)):
            records: list[dict[str, Any]] = []
            for number, record, _ in batch:
                piece = pieces.get(number)
                if record is not None and piece is not None:
                    record = with_piece(record, *piece)
                if record is not None:
                    records.append(record)
            # Every string of the batch scanned in one pass first, as spans are.
            self._redactor.inspector.prescan(*strings_in(records))
            walked = iter(records)
            for number, record, carried in batch:
                if record is None:
                    yield number, carried, None
                    continue
                out, touched = self._redact(next(walked), f"line {number}")
                yield number, carried, out if touched or number in pieces else None

    def _redact(self, record: dict[str, Any], where: str) -> tuple[dict[str, Any], bool]:
        """The record redacted, and whether anything changed; `where` names it in the report
        (`line 12`)."""
        findings = self._redactor.findings
        findings.clear()
        out = self._walk.envelope("record", record, "", 0)
        parsed: dict[int, Any] = {}
        self._findings.extend(
            RedactionFinding(f"{where}: {_dotted(record, f.path, parsed)}", *_rest(f))
            for f in findings
        )
        changed = bool(findings)
        findings.clear()
        return out, changed

    def _joined(self, blocks: StreamedBlocks) -> dict[int, tuple[str, str]]:
        """What each piece of the streamed blocks becomes, by line, as (delta field, text),
        for the blocks whose joined text redaction changes: the first piece carries the
        redacted whole, the others are emptied. Under a profile that removes raw content,
        every piece is removed in its record, and nothing is joined."""
        pieces: dict[int, tuple[str, str]] = {}
        if self.profile.remove_raw_content_keys:
            return pieces
        findings = self._whole.findings
        for block in blocks.joined():
            whole = block.text
            findings.clear()
            redacted = self._whole.string(whole, "")
            if not findings:
                continue
            first, *rest = block.pieces
            shape = {"event": {"delta": {first.field: whole}}}
            parsed: dict[int, Any] = {}
            self._findings.extend(
                RedactionFinding(
                    f"line {first.line}: {_dotted(shape, _DELTA + first.field + f.path, parsed)}",
                    *_rest(f),
                )
                for f in findings
            )
            pieces[first.line] = (first.field, redacted)
            pieces.update((piece.line, (piece.field, "")) for piece in rest)
        findings.clear()
        return pieces

    def report(self) -> RedactionReport:
        return RedactionReport(self.profile.name, tuple(self._findings))


def _rest(finding: RedactionFinding) -> tuple[Any, ...]:
    return finding.category, finding.detector, finding.action


class RecordAssessor:
    """The share-safety verdict of Claude Code records, judged as the record redactor treats
    them; paths are JSON Pointers under the root each record is given."""

    def __init__(
        self, *, profile: str | Profile = "default", known_secrets: KnownSecretsArg = ()
    ) -> None:
        resolved = resolve_profile(profile)
        looking, judging = assessing_classes(resolved, JsonTextInspector, JsonTextAssessor)
        inspector = looking(resolved, known_secrets_of(known_secrets))
        self._assessor = judging(inspector)
        self._walk = _Walk(_Looking(self._assessor), inspector.profile)

    def assess_all(self, records: Iterable[tuple[dict[str, Any], str]]) -> ShareVerdict:
        """The verdict of a file's records, each under its root, and of the blocks their
        stream events send in pieces, joined (placed at the first piece's delta)."""
        blocks = StreamedBlocks()
        roots: dict[int, str] = {}
        number = 0
        given = iter(records)
        while batch := list(islice(given, _BATCH)):
            # Every string of the batch scanned in one pass first, as `assess` does.
            self._assessor.inspector.prescan(*strings_in([record for record, _ in batch]))
            for record, root in batch:
                self._walk.envelope("record", record, root, 0)
                blocks.add(record, number)
                roots[number] = root
                number += 1
        for block in blocks.joined():
            first = block.pieces[0]
            self._assessor.string(block.text, f"{roots[first.line]}{_DELTA}{first.field}")
        return self._assessor.verdict()


def dotted_path(record: Any, pointer: str) -> str:
    """A JSON Pointer into `record` written as a field path: `/message/content/1/input` →
    `message.content[1].input`; keys that are not names are quoted (`["a b"]`). JSON held in
    a string is followed as the redactor followed it."""
    return _dotted(record, pointer, {})


def _dotted(record: Any, pointer: str, parsed: dict[int, Any]) -> str:
    """`dotted_path`, the JSON held in strings parsed once for all the pointers into one
    record (`parsed`: by the string's identity, while the record lives)."""
    parts: list[str] = []
    current = record
    for raw in pointer.split("/")[1:] if pointer else ():
        segment = raw.replace("~1", "/").replace("~0", "~")
        if current.__class__ is str:
            text = current
            current = parsed.get(id(text), parsed)
            if current is parsed:
                current = parsed[id(text)] = json_container(text)
        if current.__class__ is list and segment.isdigit():
            index = int(segment)
            parts.append(f"[{index}]")
            current = current[index] if index < len(current) else None
            continue
        if current is None and segment.isdigit():
            parts.append(f"[{segment}]")
            continue
        current = current.get(segment) if current.__class__ is dict else None
        if _NAME.fullmatch(segment):
            parts.append(f".{segment}" if parts else segment)
        else:
            parts.append(f"[{json.dumps(segment, ensure_ascii=False)}]")
    return "".join(parts)
