"""The values redaction produces: report findings, share-safety findings and verdicts (§B12).

Nothing here ever holds a removed value or a hash of one (Part A7): a finding is a path, a
category, a detector id and an action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "REDACTION_VERSION",
    "Action",
    "Category",
    "Redaction",
    "RedactionFinding",
    "RedactionReport",
    "Severity",
    "ShareFinding",
    "ShareRedaction",
    "ShareStatus",
    "ShareVerdict",
    "combine_verdicts",
    "share_allowed",
]

# The reference core whose behaviour Part B describes; reports carry it so readers know the rules.
REDACTION_VERSION = "2.3.0"

Category = Literal["credential", "personal-data", "identifier", "raw-content", "media"]
Action = Literal["redacted", "pseudonymized", "truncated"]
Severity = Literal["error", "warning"]

_PATHS_KEPT = 5


class ShareStatus(StrEnum):
    SAFE = "SAFE"
    SAFE_WITH_WARNINGS = "SAFE_WITH_WARNINGS"
    UNSAFE = "UNSAFE"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True, slots=True)
class RedactionFinding:
    """One value changed by `redact`: where (a JSON Pointer), what kind, by which rule, how."""

    path: str
    category: Category
    detector: str
    action: Action


@dataclass(frozen=True)
class RedactionReport:
    profile: str
    findings: tuple[RedactionFinding, ...] = ()
    version: str = REDACTION_VERSION

    @property
    def redaction_count(self) -> int:
        return len(self.findings)

    @property
    def by_detector(self) -> Mapping[str, int]:
        return dict(Counter(finding.detector for finding in self.findings))

    @property
    def truncated_count(self) -> int:
        return sum(1 for finding in self.findings if finding.action == "truncated")

    def __add__(self, other: RedactionReport) -> RedactionReport:
        return RedactionReport(self.profile, self.findings + other.findings, self.version)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "profile": self.profile,
            "redactionCount": self.redaction_count,
            "byDetector": self.by_detector,
            "truncatedCount": self.truncated_count,
            "findings": [
                {"path": f.path, "category": f.category, "detector": f.detector, "action": f.action}
                for f in self.findings
            ],
        }


@dataclass(frozen=True, slots=True)
class Redaction:
    """What `redact` returns: a new value and the report of what changed."""

    value: Any
    report: RedactionReport


@dataclass(frozen=True, slots=True)
class ShareFinding:
    """All findings of one (category, detector), with the first few paths where they occur."""

    category: Category
    detector: str
    severity: Severity
    count: int
    paths: tuple[str, ...]


@dataclass(frozen=True)
class ShareVerdict:
    status: ShareStatus
    profile: str
    findings: tuple[ShareFinding, ...] = ()
    unreadable: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "profile": self.profile,
            "findings": [
                {
                    "category": f.category,
                    "detector": f.detector,
                    "severity": f.severity,
                    "count": f.count,
                    "paths": list(f.paths),
                }
                for f in self.findings
            ],
            "unreadable": list(self.unreadable),
        }


@dataclass(frozen=True, slots=True)
class ShareRedaction:
    """What `redact_for_share` returns: the redacted value, its report, and its verdict."""

    value: Any
    report: RedactionReport
    verdict: ShareVerdict


def share_allowed(verdict: ShareVerdict) -> bool:
    """True exactly for SAFE and SAFE_WITH_WARNINGS: UNKNOWN fails closed."""
    return verdict.status in (ShareStatus.SAFE, ShareStatus.SAFE_WITH_WARNINGS)


def status_of(findings: Iterable[ShareFinding], unreadable: Iterable[str]) -> ShareStatus:
    if any(True for _ in unreadable):
        return ShareStatus.UNKNOWN
    severities = {finding.severity for finding in findings}
    if "error" in severities:
        return ShareStatus.UNSAFE
    return ShareStatus.SAFE_WITH_WARNINGS if severities else ShareStatus.SAFE


@dataclass
class FindingTally:
    """Aggregates findings by (category, detector) in order of first occurrence."""

    counts: dict[tuple[Category, str], list[Any]] = field(default_factory=dict)

    def add(self, category: Category, detector: str, severity: Severity, path: str) -> None:
        self.add_many(category, detector, severity, 1, (path,))

    def add_many(
        self,
        category: Category,
        detector: str,
        severity: Severity,
        count: int,
        paths: Iterable[str],
    ) -> None:
        entry = self.counts.get((category, detector))
        if entry is None:
            entry = self.counts[(category, detector)] = [severity, 0, []]
        entry[1] += count
        kept: list[str] = entry[2]
        for path in paths:
            if len(kept) >= _PATHS_KEPT:
                break
            kept.append(path)

    def findings(self) -> tuple[ShareFinding, ...]:
        return tuple(
            ShareFinding(category, detector, severity, count, tuple(paths))
            for (category, detector), (severity, count, paths) in self.counts.items()
        )


def verdict_of(profile: str, tally: FindingTally, unreadable: Iterable[str]) -> ShareVerdict:
    findings = tally.findings()
    unreadable = tuple(unreadable)
    return ShareVerdict(status_of(findings, unreadable), profile, findings, unreadable)


def combine_verdicts(
    profile: str, verdicts: Iterable[ShareVerdict], extra_unreadable: Iterable[str] = ()
) -> ShareVerdict:
    """One verdict for many: counts add up, paths fill up to five, unreadable lists concatenate."""
    tally = FindingTally()
    unreadable: list[str] = []
    for verdict in verdicts:
        for f in verdict.findings:
            tally.add_many(f.category, f.detector, f.severity, f.count, f.paths)
        unreadable.extend(verdict.unreadable)
    unreadable.extend(extra_unreadable)
    return verdict_of(profile, tally, unreadable)
