"""Which convention reads a span: by instrumentation scope and version, then by attributes."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tracecheck.conventions.model import Convention, ScopeMatch

__all__ = ["Selector", "release"]

_RELEASE_PART = re.compile(r"\d+")
_MEMO_LIMIT = 4096


def release(version: str) -> tuple[int, ...] | None:
    """A version's release numbers (`0.47.3` → (0, 47, 3); `1.0.0rc2` → (1, 0, 0)), or None."""
    parts = []
    for piece in version.strip().lstrip("vV").split("."):
        match = _RELEASE_PART.match(piece)
        if match is None:
            break
        parts.append(int(match.group()))
        if match.end() != len(piece):  # a pre-release or local tag ends the release numbers
            break
    return tuple(parts) or None


class Selector:
    """The first convention, in priority order, that claims a span.

    A convention claims a span by its instrumentation scope (name, and version range when it
    gives one) or by the presence of one of its marker attributes. Spans of one producer share
    their scope and attribute keys, so the choice is remembered per (scope, keys).
    """

    def __init__(self, conventions: Sequence[Convention], fallback: Convention) -> None:
        self.conventions = tuple(conventions)
        self.fallback = fallback
        self._memo: dict[tuple[Any, ...], Convention] = {}

    def __call__(self, scope: Any, attributes: Mapping[str, Any]) -> Convention:
        # Called once for every span read: the key built in one expression, the memo hit
        # taken without a method call.
        key = ("", "", *attributes) if scope is None else (scope.name, scope.version, *attributes)
        try:
            return self._memo[key]
        except KeyError:
            pass
        found = self._choose(key[0], key[1], attributes)
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = found
        return found

    def _choose(self, name: str, version: str, attributes: Mapping[str, Any]) -> Convention:
        prefixes = {key.partition(".")[0] + ".*" for key in attributes if "." in key}
        for convention in self.conventions:
            if any(_scope_matches(match, name, version) for match in convention.scopes):
                return convention
            for marker in convention.markers:
                if marker in attributes or (
                    marker.endswith(".*") and _namespace(marker, prefixes, attributes)
                ):
                    return convention
        return self.fallback


def _namespace(marker: str, prefixes: set[str], attributes: Mapping[str, Any]) -> bool:
    if marker.count(".") == 1:  # a top-level namespace such as `ai.*`
        return marker in prefixes
    start = marker[:-1]
    return any(key.startswith(start) for key in attributes)


def _scope_matches(match: ScopeMatch, name: str, version: str) -> bool:
    if match.name.endswith("*"):
        if not name.startswith(match.name[:-1]):
            return False
    elif name != match.name:
        return False
    if match.min_version is None and match.below_version is None:
        return True
    found = release(version)
    if found is None:  # a range cannot be judged without a version
        return False
    if match.min_version is not None and found < (release(match.min_version) or ()):
        return False
    return not (match.below_version is not None and found >= (release(match.below_version) or ()))
