"""The prescan's engine: RE2 where `google-re2` installs, the `regex` module where it cannot (it
has no wheel for musl libc), with the same results (`redact/engine.py`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from redact.engine import ENGINE, alternatives, fallback, re2, translate

ROOT = Path(__file__).resolve().parent.parent
HIDE_RE2 = "import sys; sys.modules['re2'] = None\n"
# The redaction tests' core cases, run again with RE2 hidden.
CORE_TESTS = (
    "tests/test_redact_core.py",
    "tests/test_redact_spans.py",
    "tests/test_known_secrets.py",
    "tests/test_redact_scan.py",
)
FIXTURES = (
    "fixtures/otel-genai/leaky.otlp.jsonl",
    "fixtures/otel-genai/clean.otlp.jsonl",
    "fixtures/openinference/forbidden.otlp.jsonl",
)


def test_re2_is_the_engine_where_it_installs() -> None:
    google_re2 = pytest.importorskip("re2")
    assert ENGINE == "re2"
    assert re2 is google_re2


def test_every_use_of_re2_goes_through_the_engine() -> None:
    importing = re.compile(r"^\s*(?:import re2\b|from re2\b)", re.M)
    found = [
        path.relative_to(ROOT).as_posix()
        for folder in ("redact", "tracecheck", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if importing.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["redact/engine.py"]


BOUNDARY = r"(?:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))"


@pytest.mark.parametrize(
    ("pattern", "python"),
    [
        (r"[\x{200b}-\x{200d}\x{feff}]", r"[\U0000200b-\U0000200d\U0000feff]"),
        (r"\w+\d\s", r"[0-9A-Za-z_]+[0-9][\t\n\f\r ]"),
        (r"[\w.-]{0,24}[^\s\\|]", r"[0-9A-Za-z_.-]{0,24}[^\t\n\f\r \\|]"),
        (r"(?i)\bbearer$", rf"(?i){BOUNDARY}bearer\Z"),
        (r"access_token\$|[$<]", r"access_token\$|[$<]"),
        (r"\\x{41}\\u[0-9]", r"\\x{41}\\u[0-9]"),
        (r"[:=][]a][^]b]", r"[:=][\]a][^\]b]"),
        (r"[a[b]", r"[a\[b]"),
    ],
)
def test_re2_syntax_is_translated_to_the_same_meaning(pattern: str, python: str) -> None:
    assert translate(pattern) == python


@pytest.mark.parametrize("pattern", [r"[[:alpha:]]", r"(?m)^a$", r"(?U)a+", r"\C", r"[\W]", "[a"])
def test_syntax_it_does_not_translate_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError):
        translate(pattern)


def test_an_alternation_splits_at_its_top_level_and_in_whole_groups() -> None:
    assert alternatives(r"a|(b|c)|[|]|[]|]|\|x|(?i:d|e)|(?:f|g)+|(?:h|i)j") == [
        "a",
        "(b|c)",
        "[|]",
        "[]|]",
        r"\|x",
        "(?i:d)",
        "(?i:e)",
        "(?:f|g)+",
        "(?:h|i)j",
    ]
    assert alternatives("abc") == ["abc"]
    assert alternatives("(?:a|b)") == ["(?:a|b)"]


def corpus() -> list[str]:
    sys.path.insert(0, str(ROOT / "tests"))
    from secrets_corpus import documentation_values, near_misses, positives

    texts = [case.text for case in positives()[::3]]
    texts += [text for _, text in near_misses()] + list(documentation_values())
    # Text that is not ASCII: offsets in bytes differ from offsets in characters.
    texts += [f"naïve café {text} — ü" for text in texts[:200]]
    texts += ["\u200bsk-\u00e9", "zero\u200dwidth", "K\u212a token=abc", "\ud800 %41 x", "a\nb$"]
    return texts


def prescan_patterns() -> list[str]:
    from redact.decoded import TRIGGER
    from redact.detectors import DETECTORS

    return [detector.prefilter for detector in DETECTORS.values()] + [TRIGGER]


def test_the_fallback_finds_what_re2_finds() -> None:
    google_re2 = pytest.importorskip("re2")
    texts = [text.encode("utf-8", "surrogatepass") for text in corpus()]
    patterns = prescan_patterns()
    options = google_re2.Options()
    options.max_mem = 64 << 20
    # Which patterns match each text (the prescan's set), then where each of those matches.
    sets = [google_re2.Set.SearchSet(options=options), fallback.Set.SearchSet()]
    for engine_set in sets:
        for pattern in patterns:
            engine_set.Add(pattern.encode())
        engine_set.Compile()
    compiled = [(google_re2.compile(p.encode()), fallback.compile(p.encode())) for p in patterns]
    for data in texts:
        matched = sorted(sets[0].Match(data) or [])
        assert sorted(sets[1].Match(data) or []) == matched, data
        for index in matched:
            ours, theirs = compiled[index]
            assert [m.span() for m in theirs.finditer(data)] == [
                m.span() for m in ours.finditer(data)
            ], (patterns[index], data)
    # The one combined scan over every text joined, as the prescan runs it.
    combined = "|".join(f"(?:{p})" for p in patterns).encode()
    joined = b"\n".join(texts)
    expected = [m.span() for m in google_re2.compile(combined, options=options).finditer(joined)]
    assert [m.span() for m in fallback.compile(combined).finditer(joined)] == expected


@pytest.mark.parametrize(
    "subject", ["ab KEY=1 é key=2", "ab KEY=1 é key=2".encode(), "Key=1 ü €key=2".encode()]
)
def test_search_and_match_from_a_position_agree(subject: str | bytes) -> None:
    google_re2 = pytest.importorskip("re2")
    pattern = "(?i)key="
    ours = google_re2.compile(pattern if isinstance(subject, str) else pattern.encode())
    theirs = fallback.compile(pattern if isinstance(subject, str) else pattern.encode())
    for pos in range(len(subject) + 1):  # in bytes, also inside a character's bytes
        for method in ("search", "match"):
            expected = getattr(ours, method)(subject, pos)
            found = getattr(theirs, method)(subject, pos)
            assert (found and found.span()) == (expected and expected.span()), (method, pos)
            if found:
                assert found.group() == expected.group()


def outcomes() -> dict[str, Any]:
    """What redaction gives on the corpus and on recorded traces (run once per engine)."""
    from redact import assess_spans, redact_spans, redact_text
    from redact.engine import ENGINE
    from tracecheck import read_traces

    known = ["sk-" + "proj-" + "Zx81Kq27Lm04Np63Rs95Tu18", "hunter2-correct-horse"]
    texts = corpus()
    results: dict[str, Any] = {"engine": ENGINE, "texts": [redact_text(t) for t in texts]}
    key = b"0123456789abcdef-pseudonyms"
    for fixture in FIXTURES:
        spans = [span for trace in read_traces(ROOT / fixture) for span in trace.spans]
        for profile in ("default", "share", "strict"):
            out = redact_spans(spans, profile=profile, known_secrets=known, pseudonym_key=key)
            results[f"{fixture} {profile}"] = {
                "attributes": [repr(sorted(span.attributes.items())) for span in out.spans],
                "findings": sorted(
                    f"{f.path} {f.category} {f.detector} {f.action}" for f in out.report.findings
                ),
                "verdict": assess_spans(spans, profile=profile).status.value,
            }
    return results


# A cap for a hung child, not a measure: far above what the child takes on a loaded machine (its
# test files take minutes without RE2), so that load never decides these tests.
HANG_CAP = 3600


def _run_without_re2(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HIDE_RE2 + code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_CAP,
        check=False,
    )


def test_without_re2_redaction_gives_the_same_results() -> None:
    pytest.importorskip("re2")
    done = _run_without_re2(
        "import json\n"
        f"sys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "from test_redact_engine import outcomes\n"
        "print(json.dumps(outcomes()))\n"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    without = json.loads(done.stdout)
    assert without.pop("engine") == "regex"
    with_re2 = outcomes()
    assert with_re2.pop("engine") == "re2"
    assert without.keys() == with_re2.keys()
    for name in with_re2:
        assert without[name] == with_re2[name], name


def test_without_re2_the_core_redaction_tests_pass() -> None:
    done = _run_without_re2(
        "import pytest\n"
        "from redact.engine import ENGINE\n"
        "assert ENGINE == 'regex', ENGINE\n"
        f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *{list(CORE_TESTS)!r}]))\n"
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
