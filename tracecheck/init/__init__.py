"""Contract drafts: from good runs (`draft_from_runs`) or from an MCP server's `tools/list`
answer (`draft_from_mcp`), each a `Draft` to review, written as YAML with comments."""

from __future__ import annotations

from tracecheck.init.draft import Draft
from tracecheck.init.from_mcp import ToolListError, draft_from_mcp
from tracecheck.init.from_runs import NothingToDraft, draft_from_runs

__all__ = ["Draft", "NothingToDraft", "ToolListError", "draft_from_mcp", "draft_from_runs"]
