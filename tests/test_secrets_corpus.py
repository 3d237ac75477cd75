"""Coverage against the public scanners' rule sets, measured on secrets written in context.

The corpus (tests/secrets_corpus.py) holds, per detector family, credentials written in a line
of code, config, a command or a log, and the scanners' own near misses plus adversarial ordinary
content. Recall is whether the secret is gone after `redact_text`; a near miss counts as changed
when `redact_text` changes it at all. Failures name a family, a rule and a syntax, never a value.
"""

from __future__ import annotations

import string
from collections import defaultdict

import pytest
from detector_support import assert_linear_time, assert_prefilter_covers, texts_around
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from secrets_corpus import FAMILIES, documentation_values, near_misses, positives

from redact import assess_spans, redact_spans, redact_text
from redact.detectors import CREDENTIAL_DETECTORS
from redact.detectors.assignment import ASSIGNMENT_DETECTORS
from redact.detectors.base import Detector
from redact.detectors.named import NAMED_DETECTORS
from redact.engine import re2
from tracecheck.spans import Event, Link, Scope, Span

RECALL_TARGET = 0.95
NEAR_MISS_LIMIT = 0.02

CONTEXT_DETECTORS: tuple[Detector, ...] = (*NAMED_DETECTORS, *ASSIGNMENT_DETECTORS)


def _recall_by_family() -> dict[str, tuple[int, list[str]]]:
    found: dict[str, int] = defaultdict(int)
    missed: dict[str, list[str]] = defaultdict(list)
    for case in positives():
        if case.secret in redact_text(case.text):
            missed[case.family].append(f"{case.rule}/{case.syntax}")
        else:
            found[case.family] += 1
    return {family: (found[family], missed[family]) for family in FAMILIES}


RECALL = _recall_by_family()


def test_corpus_covers_every_family_with_many_cases() -> None:
    by_family: dict[str, int] = defaultdict(int)
    for case in positives():
        by_family[case.family] += 1
    assert set(by_family) == set(FAMILIES)
    assert all(count >= 40 for count in by_family.values()), dict(by_family)
    assert len(positives()) >= 3000
    assert len(near_misses()) >= 100


@pytest.mark.parametrize("family", FAMILIES)
def test_recall_per_family(family: str) -> None:
    found, missed = RECALL[family]
    recall = found / (found + len(missed))
    assert recall >= RECALL_TARGET, f"{family}: recall {recall:.1%}; missed {missed[:20]}"


@pytest.mark.parametrize("family", sorted({family for family, _ in near_misses()}))
def test_near_misses_pass_untouched_per_family(family: str) -> None:
    texts = [text for fam, text in near_misses() if fam == family]
    changed = [i for i, text in enumerate(texts) if redact_text(text) != text]
    rate = len(changed) / len(texts)
    assert rate <= NEAR_MISS_LIMIT, f"{family}: {rate:.1%} changed (cases {changed})"


def test_whole_corpus_thresholds() -> None:
    found = sum(f for f, _ in RECALL.values())
    total = found + sum(len(m) for _, m in RECALL.values())
    assert found / total >= 0.99
    changed = sum(1 for _, text in near_misses() if redact_text(text) != text)
    assert changed == 0


def test_documentation_values_are_measured_not_required() -> None:
    # Secret-shaped documentation values may go either way; the test only checks the corpus
    # is readable, and that no value is echoed by a marker.
    for text in documentation_values():
        out = redact_text(text)
        assert out == text or "[REDACTED:" in out


# ----------------------------------------------------------------------------- detector health


def _examples(detector: Detector) -> list[str]:
    return [case.text for case in positives() if detector.search(case.text)][:40]


def test_every_context_detector_finds_something_in_the_corpus() -> None:
    silent = [d.id for d in CONTEXT_DETECTORS if not _examples(d)]
    assert not silent, silent


def test_context_detectors_are_well_formed() -> None:
    ids = [d.id for d in CREDENTIAL_DETECTORS]
    assert len(ids) == len(set(ids))
    for d in CONTEXT_DETECTORS:
        assert d.id == d.id.lower() and " " not in d.id and "_" not in d.id
        assert d.description and "\n" not in d.description
        re2.compile(d.prefilter.encode())


def test_every_prefilter_matches_its_own_findings() -> None:
    for detector in CREDENTIAL_DETECTORS:
        prefilter = re2.compile(detector.prefilter.encode())
        for case in positives():
            if detector.search(case.text):
                assert prefilter.search(case.text.encode()), f"{detector.id} on {case.rule}"


_NOISE = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + "_-.:=/+%$@\"'` \n\t<>,?"),
    max_size=24,
)


@pytest.mark.parametrize("detector", CONTEXT_DETECTORS, ids=lambda d: d.id)
def test_prefilter_never_misses_a_match(detector: Detector) -> None:
    examples = _examples(detector)
    assert_prefilter_covers(detector, texts_around(examples, _NOISE), max_examples=60)


_HOSTILE_UNITS = (
    "token=",
    "Token := ",
    "<fooToken>",
    "secret: a1",
    "passwd ",
    "api_key,",
    "authorization: Bearer ",
    "aB3",
    "curl -u a:",
    "--user ",
    "BUNDLE_A__",
    "BUNDLE_A__B=",
    "name: API_TOKEN\n",
    "value: ",
    'key="password" ',
    "adafruit_",
    "twitterToken = ",
    "sumo",
    "AAAAAAAA",
    "xoxa-1-",
    "ZXlK",
    "sk_prod_",
)


@pytest.mark.parametrize("detector", CONTEXT_DETECTORS, ids=lambda d: d.id)
def test_context_detector_runs_in_linear_time(detector: Detector) -> None:
    units = [*_HOSTILE_UNITS, _examples(detector)[0]]
    assert_linear_time(detector, units)


# ----------------------------------------------------------------------------- planted anywhere

# The cases each family's detectors find (recall above measures the rest): planted anywhere in a
# span, they must be found there too.
_BY_FAMILY: dict[str, list[tuple[str, str]]] = defaultdict(list)
for _case in positives():
    if len(_BY_FAMILY[_case.family]) < 60 and _case.secret not in redact_text(_case.text):
        _BY_FAMILY[_case.family].append((_case.text, _case.secret))

planted = st.sampled_from(FAMILIES).flatmap(lambda family: st.sampled_from(_BY_FAMILY[family]))
SURFACES = (
    "name",
    "attribute-value",
    "attribute-key",
    "status",
    "event-name",
    "event-attribute",
    "link-attribute",
    "resource",
    "scope-name",
    "scope-attribute",
    "list-item",
)


def _span_with(surface: str, text: str) -> Span:
    attributes: dict[str, object] = {"gen_ai.operation.name": "chat"}
    events: tuple[Event, ...] = ()
    links: tuple[Link, ...] = ()
    resource: dict[str, object] = {"service.name": "agent"}
    scope = Scope("agent.tracer", "1.0")
    name = "tool call"
    status_message = None
    if surface == "name":
        name = text
    elif surface == "attribute-value":
        attributes["tool.output"] = text
    elif surface == "attribute-key":
        attributes[text] = "x"
    elif surface == "status":
        status_message = text
    elif surface == "event-name":
        events = (Event(text, 1),)
    elif surface == "event-attribute":
        events = (Event("log", 1, {"body": text}),)
    elif surface == "link-attribute":
        links = (Link("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", {"note": text}),)
    elif surface == "resource":
        resource["process.command_line"] = text
    elif surface == "scope-name":
        scope = Scope(text, "1.0")
    elif surface == "scope-attribute":
        scope = Scope("agent.tracer", "1.0", {"config": text})
    else:
        attributes["llm.messages"] = ["hello", text]
    return Span(
        trace_id="0af7651916cd43dd8448eb211c80319c",
        span_id="00f067aa0ba902b7",
        name=name,
        start_ns=1,
        end_ns=2,
        status_message=status_message,
        attributes=attributes,
        events=events,
        links=links,
        resource=resource,
        scope=scope,
    )


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def _span_strings(span: Span) -> list[str]:
    out = [span.name, span.status_message or ""]
    out += _strings(dict(span.attributes)) + _strings(dict(span.resource))
    for event in span.events:
        out += [event.name, *_strings(dict(event.attributes))]
    for link in span.links:
        out += _strings(dict(link.attributes))
    if span.scope is not None:
        out += [span.scope.name, span.scope.version, *_strings(dict(span.scope.attributes))]
    return out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted, st.sampled_from(SURFACES), st.sampled_from(["default", "share", "strict"]))
def test_a_planted_credential_of_any_family_in_any_surface_is_not_left(
    case: tuple[str, str], surface: str, profile: str
) -> None:
    text, secret = case
    out = redact_spans([_span_with(surface, text)], profile=profile).spans
    assert not any(secret in s for span in out for s in _span_strings(span)), surface
    verdict = assess_spans(out, profile=profile)
    assert not [f for f in verdict.findings if f.category == "credential"]
