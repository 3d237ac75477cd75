"""redact: remove credentials and personal data from spans before they are shared."""

from __future__ import annotations

__all__: list[str] = []
