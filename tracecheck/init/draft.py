"""A contract draft: the document, the comments that explain it, and its YAML text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracecheck.init.yaml_writer import Map, plain, write_yaml

__all__ = ["Draft"]


@dataclass(frozen=True, slots=True)
class Draft:
    """A contract drafted from runs or from an MCP server's tools: `root` is the document with
    its comments, `header` the comment lines above it, `notes` what a reviewer should know
    first (also in the header), one line each."""

    root: Map
    header: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def document(self) -> dict[str, Any]:
        """The contract as a value `compile_contract` and `lint_contract` accept."""
        value = plain(self.root)
        assert isinstance(value, dict)
        return value

    def yaml(self) -> str:
        """The contract as YAML with comments, which reads back as `document()`."""
        return write_yaml(self.root, self.header)
