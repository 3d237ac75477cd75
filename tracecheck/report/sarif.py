"""SARIF 2.1.0: the verdicts as a static-analysis log, for GitHub code scanning and other viewers.

One run; its tool is tracecheck, with one rule (reportingDescriptor) per contract rule checked,
identified as `<contract name>/<rule label>` (a second contract of the same name from another
file gets `<name>#2/...`). Each violation is one result (`kind: fail`, `level: error`); a
rule that could not be evaluated is one result of `kind: open` (SARIF: the tool could not tell
whether the rule holds; its level is then `none`) and is counted in a notification per rule, so
that it cannot pass unseen. Passing and skipped rules give no result.

A result is located where the rule is written: the contract file (relative to `base`, the
current directory, with `uriBaseId: %SRCROOT%`, when it lies below it; a `file:` URI otherwise)
at the rule's line (`tracecheck.contract.places`); a ready-made contract (`builtin:NAME`), or
one that came from no file, only by a logical location. The trace file is a related location,
and the trace id, span id and file are properties. `partialFingerprints` hold a hash of the
rule, trace file, trace, span and argument pointer, so that a viewer knows the same violation
in the next run. Inputs that could not be read are notifications of the invocation, which is
then not `executionSuccessful`, nor is it when a rule could not be evaluated.

Nothing is read from the trace beyond what the other reports print: ids, the violation's prose
(written to hold names, never values), tool names, argument pointers and file names. Recorded
text is shown with its control and bidi characters escaped.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from tracecheck.distribution import DISTRIBUTION, version
from tracecheck.report.model import CheckedTrace, ReadFailure
from tracecheck.report.safe import printable
from tracecheck.verdict import RuleResult, Violation

if TYPE_CHECKING:
    from tracecheck.contract.model import Contract
    from tracecheck.rules.base import Rule

__all__ = [
    "INFORMATION_URI",
    "SARIF_SCHEMA",
    "SARIF_VERSION",
    "SRCROOT",
    "artifact",
    "driver",
    "file_uri",
    "fingerprint",
    "render_sarif",
    "root_of",
    "sarif_parts",
    "unread_notification",
]

SARIF_VERSION = "2.1.0"
# The schema's own `id`: the OASIS standard with its errata (tests/schemas/ holds a copy).
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = f"https://pypi.org/project/{DISTRIBUTION}/"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "tracecheck/v1"
BUILTIN = "builtin:"

# What each kind of rule asks, in words (the rule's own description may quote contract values,
# which can be secrets a contract forbids: it is not repeated here).
_KIND_WORDS = {
    "always": "every span matches the rule's predicate",
    "never": "no span matches the rule's predicate",
    "eventually": "some span matches the rule's predicate",
    "atMost": "no more spans than the limit match the rule's predicate",
    "tokensAtMost": "the matching spans use no more tokens than the limit",
    "argument": "tool calls pass arguments that meet the rule's check",
    "precedes": "one call comes before another",
    "neverUnless": "a call comes only after an earlier one",
    "toolsOffered": "every tool call names a tool offered to the model",
    "retrySafe": "repeated calls are safe to repeat",
    "run": "the run ends as the contract asks",
    "errorsAtMost": "no more spans of a kind are in error than the limit",
    "stepCount": "the run has as many spans of a kind as the limits allow",
    "toolDuration": "a tool's calls take no longer than the limit at a percentile",
    "repeatedCalls": "no call is repeated with equal arguments more often than the limit",
    "consecutiveCalls": "no tool is called more times in a row than the limit",
    "repeatedCycles": "no cycle of calls repeats more times in a row than the limit",
    "trajectory": "the run's tool calls follow the reference trajectory in its match mode",
    "maxCost": "the model calls cost no more than the limit",
    "requires": "a tool runs only after another tool succeeded",
}
_NOTIFICATIONS = (
    ("unreadable", "an input could not be read"),
    ("ambiguous", "an input's format is ambiguous"),
    ("rule-error", "a rule could not be evaluated"),
)


@dataclass(frozen=True, slots=True)
class _Rule:
    """One reportingDescriptor: a rule of one contract."""

    id: str
    contract: str
    label: str
    kind: str | None
    source: str | None


@dataclass(frozen=True)
class _Catalog:
    """The rules of the run, and how a verdict's rule finds its descriptor and its line."""

    rules: list[_Rule] = field(default_factory=list)
    index: dict[tuple[str, str | None, str], int] = field(default_factory=dict)
    prefixes: dict[tuple[str, str | None], str] = field(default_factory=dict)
    lines: dict[str, dict[str, int]] = field(default_factory=dict)

    def prefix(self, name: str, source: str | None) -> str:
        """`name`, or `name#N` for the Nth contract of that name from another file."""
        key = (name, source)
        if key not in self.prefixes:
            taken = sum(known == name for known, _ in self.prefixes)
            self.prefixes[key] = f"{name}#{taken + 1}" if taken else name
        return self.prefixes[key]

    def add(self, name: str, source: str | None, label: str, kind: str | None) -> int:
        key = (name, source, label)
        if key not in self.index:
            rule_id = f"{self.prefix(name, source)}/{label}"
            self.index[key] = len(self.rules)
            self.rules.append(_Rule(rule_id, name, label, kind, source))
        return self.index[key]

    def line(self, source: str | None, label: str) -> int | None:
        if source is None:
            return None
        if source not in self.lines:
            from tracecheck.contract.places import rule_lines

            self.lines[source] = rule_lines(source)
        return self.lines[source].get(label)


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What a first look at every verdict tells the log's head: the rules that could not be
    evaluated (descriptor index -> traces) and whether any was."""

    errors: Counter[int]


def render_sarif(
    checked: Sequence[CheckedTrace],
    failures: Sequence[ReadFailure] = (),
    contracts: Sequence[Contract] = (),
    *,
    base: str | None = None,
) -> dict[str, Any]:
    """The SARIF log of the verdicts, the unread inputs and the rules of `contracts` (a
    verdict's rules that none of them declares get a descriptor too). Relative file URIs are
    taken against `base` (default: the current directory)."""
    root = root_of(base)
    catalog, outcome = _survey(lambda: checked, contracts)
    log = _log(catalog, outcome, failures, root)
    log["runs"][0]["results"] = list(_results(checked, catalog, root))
    return log


def sarif_parts(
    checked: Callable[[], Iterable[CheckedTrace]],
    failures: Sequence[ReadFailure] = (),
    contracts: Sequence[Contract] = (),
    *,
    base: str | None = None,
) -> Iterator[bytes]:
    """The UTF-8 bytes of `render_sarif` as two-space-indented JSON, one result at a time.
    `checked` gives the verdicts afresh on each call: once for the rules and notifications
    the log opens with, once for the results."""
    root = root_of(base)
    catalog, outcome = _survey(checked, contracts)
    head, tail = _frame(_log(catalog, outcome, failures, root))
    yield _utf8(head)
    indent = " " * 8  # the results of the one run: "runs" > run > "results" > item
    for number, result in enumerate(_results(checked(), catalog, root)):
        text = json.dumps(result, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
        yield _utf8(("," if number else "") + "\n" + indent + text)
        if number == 0:
            tail = "\n" + " " * 6 + tail
    yield _utf8(tail + "\n")


def _frame(log: dict[str, Any]) -> tuple[str, str]:
    """The log's text before and after its (empty) results array; `results` is the last
    member of the only run, so the array is the last `[]` opened after `"results": `."""
    text = json.dumps(log, indent=2, ensure_ascii=False)
    at = text.rindex('"results": []') + len('"results": [')
    return text[:at], text[at:]


def _utf8(text: str) -> bytes:
    # A lone surrogate (a file name that is not UTF-8) is shown as its escape.
    return text.encode("utf-8", "backslashreplace")


def root_of(base: str | None) -> str:
    """The absolute directory relative file URIs are taken against (`base`, default: the
    current directory)."""
    # abspath, not resolve: `..` goes, symlinks stay as the user named them (a checkout under
    # a symlinked home is still the checkout).
    return os.path.abspath(base if base is not None else Path.cwd())  # noqa: PTH100


def _survey(
    checked: Callable[[], Iterable[CheckedTrace]], contracts: Sequence[Contract]
) -> tuple[_Catalog, _Outcome]:
    """Every rule of the contracts, then those only a verdict names; which could not be
    evaluated."""
    catalog = _Catalog()
    for contract in contracts:
        for label, rule in _labelled(contract):
            catalog.add(contract.name, contract.source, label, _kind(rule))
    errors: Counter[int] = Counter()
    for item in checked():
        verdict = item.verdict
        for result in verdict.rules:
            index = catalog.add(verdict.contract, item.contract_source, result.label, result.kind)
            if result.status == "error":
                errors[index] += 1
    return catalog, _Outcome(errors)


def _labelled(contract: Contract) -> Iterator[tuple[str, Rule]]:
    """The contract's rules under the labels verdicts report them by (§2.1)."""
    for rule in contract.rules:
        yield rule.label, rule
    for alternative in contract.alternatives:
        for rule in alternative.rules:
            yield (f"{alternative.id}/{rule.label}" if alternative.id else rule.label), rule


def _kind(rule: Rule) -> str:
    # As verdicts name a rule's operator: its class in lower camel case, `RunCheck` as `run`.
    name = type(rule).__name__.removesuffix("Check") or type(rule).__name__
    return name[:1].lower() + name[1:]


def _log(
    catalog: _Catalog, outcome: _Outcome, failures: Sequence[ReadFailure], root: str
) -> dict[str, Any]:
    notifications = [unread_notification(failure, root) for failure in failures]
    notifications += [
        _rule_error(catalog.rules[index], count, index)
        for index, count in sorted(outcome.errors.items())
    ]
    run: dict[str, Any] = {
        "tool": {"driver": driver(map(_descriptor, catalog.rules), _NOTIFICATIONS)},
        "invocations": [
            {
                "executionSuccessful": not failures and not outcome.errors,
                "toolExecutionNotifications": notifications,
            }
        ],
        "originalUriBaseIds": {SRCROOT: {"uri": file_uri(root).rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [],
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def driver(
    rules: Iterable[dict[str, Any]], notifications: Iterable[tuple[str, str]]
) -> dict[str, Any]:
    """The tool's driver: tracecheck, its version, its rules (reportingDescriptors) and its
    notifications (id, short description)."""
    return {
        "name": "tracecheck",
        "fullName": f"tracecheck ({DISTRIBUTION})",
        "version": version(),
        "informationUri": INFORMATION_URI,
        "rules": list(rules),
        "notifications": [
            {"id": key, "shortDescription": {"text": text}} for key, text in notifications
        ],
    }


def _descriptor(rule: _Rule) -> dict[str, Any]:
    asks = _KIND_WORDS.get(rule.kind or "", "the rule holds")
    where = f" ({printable(rule.source)})" if rule.source else ""
    full = f'Contract "{printable(rule.contract)}"{where}, rule "{printable(rule.label)}": {asks}.'
    described: dict[str, Any] = {
        "id": printable(rule.id),
        "shortDescription": {"text": printable(f"{rule.contract}: {rule.label}")},
        "fullDescription": {"text": full},
        "defaultConfiguration": {"level": "error"},
        "properties": {
            "contract": printable(rule.contract),
            "label": printable(rule.label),
            "tags": ["tracecheck", *([rule.kind] if rule.kind else [])],
        },
    }
    if rule.source:
        described["help"] = {
            "text": f"`tracecheck explain {printable(rule.source)}` shows every rule in words."
        }
    return described


def unread_notification(failure: ReadFailure, root: str) -> dict[str, Any]:
    """An input that could not be read, as a notification of the invocation (at its file)."""
    notification: dict[str, Any] = {
        "level": "error",
        "message": {"text": printable(failure.message)},
        "descriptor": {"id": failure.kind},
    }
    where = artifact(failure.source, root)
    if where is not None:
        notification["locations"] = [{"physicalLocation": {"artifactLocation": where}}]
    return notification


def _rule_error(rule: _Rule, count: int, index: int) -> dict[str, Any]:
    traces = "1 trace" if count == 1 else f"{count} traces"
    return {
        "level": "error",
        "message": {
            "text": printable(
                f'rule "{rule.label}" of contract "{rule.contract}" could not be evaluated '
                f"on {traces}"
            )
        },
        "descriptor": {"id": "rule-error"},
        "associatedRule": {"id": printable(rule.id), "index": index},
    }


def artifact(source: str, root: str) -> dict[str, Any] | None:
    """Where a file is: relative to `root` when it lies below it, else a `file:` URI; None for
    what names no file (`<stdin>`, a ready-made contract)."""
    if not source or source.startswith(("<", BUILTIN)):
        return None
    path = os.path.abspath(source)  # noqa: PTH100 (as `root_of`)
    relative = os.path.relpath(path, root)
    if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
        return {"uri": quote(_bytes(Path(relative).as_posix()), safe="/"), "uriBaseId": SRCROOT}
    return {"uri": file_uri(path)}


def file_uri(path: str) -> str:
    """A path as a `file:` URI (percent-encoded bytes where no encoding can hold its name)."""
    try:
        return Path(path).as_uri()
    except (UnicodeEncodeError, ValueError):  # a name no file system encoding can hold
        return "file://" + quote(_bytes(path), safe="/")


def fingerprint(parts: Iterable[str]) -> str:
    """A `partialFingerprints` value: the SHA-256 of the parts joined by NUL (a lone surrogate
    hashed as its UTF-8 form)."""
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _bytes(name: str) -> bytes:
    """A file name's bytes, as the file system holds them (a lone surrogate: its UTF-8 form,
    percent-encoded like the rest)."""
    try:
        return os.fsencode(name)
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogatepass")


def _results(
    checked: Iterable[CheckedTrace], catalog: _Catalog, root: str
) -> Iterator[dict[str, Any]]:
    for item in checked:
        verdict = item.verdict
        for rule in verdict.rules:
            if rule.status not in ("fail", "error"):
                continue
            index = catalog.index[(verdict.contract, item.contract_source, rule.label)]
            described = catalog.rules[index]
            line = catalog.line(item.contract_source, rule.label)
            at = _Place(item, described, index, line, root)
            if rule.status == "error":
                yield at.result(_error_message(rule), None, kind="open")
            elif not rule.violations:
                yield at.result(f'rule "{rule.label}" fails', None)
            for violation in rule.violations:
                yield at.result(violation.detail, violation)


@dataclass(frozen=True, slots=True)
class _Place:
    """One rule of one verdict: where its results point."""

    item: CheckedTrace
    rule: _Rule
    index: int
    line: int | None
    root: str

    def result(self, text: str, violation: Violation | None, kind: str = "fail") -> dict[str, Any]:
        trace_id = self.item.verdict.trace_id
        span_id = violation.span_id if violation else None
        on = f"trace {trace_id or '(no trace id)'}" + (f", span {span_id}" if span_id else "")
        result: dict[str, Any] = {
            "ruleId": printable(self.rule.id),
            "ruleIndex": self.index,
            "kind": kind,
            "level": "error" if kind == "fail" else "none",
            "message": {"text": printable(f"{text} ({on})")},
            "locations": [self._location()],
        }
        trace = artifact(self.item.source, self.root)
        if trace is not None:
            related = {"physicalLocation": {"artifactLocation": trace}}
            result["relatedLocations"] = [
                {"id": 1, **related, "message": {"text": printable(f"the {on}")}}
            ]
        result["partialFingerprints"] = {FINGERPRINT: self._fingerprint(violation, text)}
        result["properties"] = self._properties(violation)
        return result

    def _location(self) -> dict[str, Any]:
        source = self.item.contract_source
        logical = printable(f"{source or self.rule.contract}#{self.rule.label}")
        location: dict[str, Any] = {}
        where = artifact(source, self.root) if source else None
        if where is not None:
            physical: dict[str, Any] = {"artifactLocation": where}
            if self.line is not None:
                physical["region"] = {"startLine": self.line}
            location["physicalLocation"] = physical
        name = printable(self.rule.label)
        location["logicalLocations"] = [{"name": name, "fullyQualifiedName": logical}]
        return location

    def _fingerprint(self, violation: Violation | None, text: str) -> str:
        """The same violation in the next run: rule, trace file and id, span and pointer; the
        prose only where no span says which one it is. (The file tells apart one trace given
        twice, as JSON and as protobuf.)"""
        span_id = violation.span_id if violation else None
        parts = [
            self.rule.id,
            self.item.files,
            self.item.verdict.trace_id or "",
            span_id or "",
            (violation.pointer or "") if violation else "",
            "" if span_id else text,
        ]
        return fingerprint(parts)

    def _properties(self, violation: Violation | None) -> dict[str, Any]:
        item = self.item
        properties: dict[str, Any] = {
            "traceId": item.verdict.trace_id,
            "traceSource": printable(item.source),
            "contract": printable(self.rule.contract),
            "rule": printable(self.rule.label),
        }
        if len(item.sources) > 1:
            properties["traceSources"] = [printable(source) for source in item.sources]
        if self.rule.kind:
            properties["ruleKind"] = self.rule.kind
        if violation is not None:
            properties["spanId"] = violation.span_id
            if violation.tool is not None:
                properties["tool"] = printable(violation.tool)
            if violation.pointer is not None:
                properties["pointer"] = printable(violation.pointer)
        return properties


def _error_message(rule: RuleResult) -> str:
    return f'rule "{rule.label}" could not be evaluated: {rule.error or "no reason given"}'
