"""Which task a run belongs to, by an attribute its spans carry: the key that groups repeated
runs of one task (`resource.attributes["agent.task.id"]`), written as OTTL and the Collector's
processors write attribute paths, and the value each run records under it."""

from __future__ import annotations

import json
import re
from typing import Literal, NamedTuple

from tracecheck.spans import Trace

__all__ = ["TaskKey", "parse_task_key", "task_of"]

_PATH = re.compile(r"""(resource|span)\.attributes\[(?:"([^"]+)"|'([^']+)')\]""")


class TaskKey(NamedTuple):
    """An attribute of a run's spans' resource, or of its spans themselves."""

    scope: Literal["resource", "span"]
    name: str

    def __str__(self) -> str:
        quote = "'" if '"' in self.name else '"'
        return f"{self.scope}.attributes[{quote}{self.name}{quote}]"


def parse_task_key(text: str) -> TaskKey:
    """The key `text` spells (`resource.attributes["agent.task.id"]`, or `span.attributes[...]`
    with single or double quotes). Raises ValueError saying what is wrong."""
    match = _PATH.fullmatch(text.strip())
    if match is None:
        raise ValueError(
            'is not an attribute path: write resource.attributes["KEY"] or span.attributes["KEY"]'
        )
    scope: Literal["resource", "span"] = "resource" if match[1] == "resource" else "span"
    return TaskKey(scope, match[2] or match[3])


def task_of(trace: Trace, key: TaskKey) -> str | None:
    """The task of the run `trace` records: the attribute's value on the first span (in the
    trace's order) whose resource, or which itself, carries it, as text; None when none does."""
    for span in trace.spans:
        attributes = span.resource if key.scope == "resource" else span.attributes
        value = attributes.get(key.name)
        if value is not None:
            return _text(value)
    return None


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):  # as OTLP JSON spells a boolean, not Python's True
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
