"""What a tool's name and parameters suggest: whether it writes, and which parameter is its
idempotency key. Guesses for a reviewer, never rules: the draft marks each one for review."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["idempotency_key", "looks_like_write", "words"]

# Verbs that change something outside the agent. A name whose first word reads (get, list,
# search, ...) is a read whatever follows: `get_refund_status` reads a refund.
_WRITES = frozenset(
    [
        "add",
        "append",
        "book",
        "cancel",
        "charge",
        "create",
        "delete",
        "deploy",
        "drop",
        "edit",
        "execute",
        "insert",
        "issue",
        "kill",
        "merge",
        "modify",
        "move",
        "patch",
        "pay",
        "post",
        "publish",
        "purge",
        "put",
        "refund",
        "remove",
        "rename",
        "replace",
        "reset",
        "run",
        "save",
        "send",
        "set",
        "submit",
        "transfer",
        "truncate",
        "update",
        "upload",
        "upsert",
        "write",
    ]
)
_READS = frozenset(
    [
        "check",
        "count",
        "describe",
        "fetch",
        "find",
        "get",
        "glob",
        "grep",
        "inspect",
        "list",
        "load",
        "lookup",
        "query",
        "read",
        "retrieve",
        "search",
        "show",
        "view",
    ]
)
# Parameter names that carry an idempotency key, compared without case, `_` or `-`.
_KEYS = frozenset(
    [
        "idempotencykey",
        "idempotencytoken",
        "clientrequestid",
        "clienttoken",
        "requestid",
        "dedupkey",
        "dedupekey",
        "deduplicationkey",
        "deduplicationid",
    ]
)


def words(name: str) -> list[str]:
    """A tool name's words, lower case: `issue_refund`, `issueRefund`, `IssueRefund`,
    `mcp__orders__issue-refund` and `orders.issue_refund` all end in `issue`, `refund`."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [word.lower() for word in re.split(r"[^A-Za-z0-9]+", spaced) if word]


def looks_like_write(name: str) -> bool:
    """Whether the tool's name suggests it changes something (`issue_refund`, `Write`,
    `NotebookEdit`, `send_email`), judged on the words after an MCP server prefix."""
    if name.startswith("mcp__") and name.count("__") >= 2:
        name = name.split("__", 2)[2]  # `mcp__server__tool`: the server says nothing of it
    found = words(name)
    if not found or found[0] in _READS:
        return False
    return any(word in _WRITES for word in found)


def idempotency_key(keys: Iterable[str]) -> str | None:
    """The first of `keys` (argument or parameter names) named like an idempotency key."""
    return next((key for key in keys if re.sub(r"[-_\s]", "", key.lower()) in _KEYS), None)
