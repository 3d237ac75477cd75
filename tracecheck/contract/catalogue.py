"""The ready-made contracts with their descriptions, as `tracecheck contracts` lists them.

Apart from builtin.py because it reads each contract (load.py), and reading a contract resolves
`builtin:NAME` through builtin.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tracecheck.contract.builtin import PREFIX, builtin_files
from tracecheck.contract.load import load_document

__all__ = ["BuiltinContract", "builtin_contracts"]


@dataclass(frozen=True, slots=True)
class BuiltinContract:
    name: str  # what follows `builtin:`, the file's name without its suffix
    description: str
    path: Path

    @property
    def ref(self) -> str:
        return PREFIX + self.name


def builtin_contracts() -> list[BuiltinContract]:
    """Every ready-made contract with its description, sorted by name."""
    contracts: list[BuiltinContract] = []
    for name, path in builtin_files().items():
        doc, _ = load_document(path)
        description = doc.get("description") if isinstance(doc, dict) else None
        text = " ".join(description.split()) if isinstance(description, str) else ""
        contracts.append(BuiltinContract(name, text, path))
    return contracts
