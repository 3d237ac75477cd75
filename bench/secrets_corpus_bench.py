"""Credential coverage per detector family, side by side with detect-secrets on the same strings.

    python bench/secrets_corpus_bench.py --detect-secrets /work/venv-detect-secrets/bin/detect-secrets

The corpus is tests/secrets_corpus.py: secrets written in context (a line of code, config, a
command or a log) built from the public scanners' rule sets and test strings, the scanners'
own near misses and adversarial ordinary content. For tracecheck, a positive counts as found
when `redact_text` leaves no trace of the secret, a near miss as changed when `redact_text`
changes it at all. detect-secrets is not a project dependency: install it in a venv of its own
(`python3.11 -m venv /work/venv-detect-secrets && /work/venv-detect-secrets/bin/pip install
detect-secrets`) and name its executable; each string is written to a file of its own, named
with the extension its syntax has (`.go`, `.yaml`, `.env`, …) so its plugins read it as they
would in a repository, and one `detect-secrets scan --all-files` reads them all. A string counts
as found (or, for a near miss, changed) when detect-secrets reports anything in its file.

    python bench/secrets_corpus_bench.py --gitleaks /path/to/gitleaks

also measures gitleaks' own rule tests, read from a checkout of it (`bench/gitleaks_rule_tests.py`):
recall in context on the true positives generated from a secret in gitleaks' sample contexts (found
when `redact_text` leaves no trace of the secret), and the near misses whose loss would hurt among
its false positives. A false positive's loss does not hurt, and it is counted apart, when it holds
a credential's token format (one of the token-format or vendor-named detectors matches it: a
documentation value such as a key one character short), when what `redact_text` removes from it
is personal data only (an e-mail address: removed in every profile by design), or when it is a
secret value all the same (`gitleaks_rule_tests.SECRET_VALUES`: a generated value or a password
under a secret's name). Every other false positive is a value whose loss would hurt, and a
*harmful near miss* when `redact_text` changes it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from secrets_corpus import FAMILIES, near_misses, positives  # noqa: E402

from redact import redact, redact_text  # noqa: E402
from redact.detectors import CREDENTIAL_DETECTORS, detect_credential  # noqa: E402

# Detectors that judge an assignment, a header or a URL rather than a token's own format.
_CONTEXT_DETECTORS = frozenset(
    [
        "bearer",
        "authorization-header",
        "url-credentials",
        "url-secret-param",
        "secret-assignment",
        "json-secret",
        "env-secret-assignment",
        "cookie-header",
        "bundler-credentials",
        "url-password-no-user",
        "connection-string-password",
        "netrc-password",
        "authorization-scheme",
        "cli-secret-flag",
        "cli-password-option",
        "env-key-assignment",
        "keyed-secret",
        "keyword-assignment",
        "name-value-secret",
        "xml-secret-attribute",
        "curl-user-password",
        "sql-password",
        "pgpass-password",
        "dsn-password",
    ]
)
_TOKEN_FORMATS = tuple(d for d in CREDENTIAL_DETECTORS if d.id not in _CONTEXT_DETECTORS)

_EXTENSIONS = {
    "ini": ".ini",
    "json": ".json",
    "xml": ".xml",
    "yaml": ".yaml",
    "cs": ".cs",
    "go": ".go",
    "java": ".java",
    "kt": ".kt",
    "php": ".php",
    "py": ".py",
    "rb": ".rb",
    "conf": ".conf",
    "mk": ".mk",
    "sh": ".sh",
    "env": ".env",
    "log": ".log",
    "md": ".md",
    "tf": ".tf",
}


def detect_secrets_flags(executable: str, texts: list[tuple[str, str]]) -> list[bool]:
    """For each (syntax, text): whether detect-secrets reports anything in it."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        names = []
        for index, (syntax, text) in enumerate(texts):
            name = f"case{index:05d}{_EXTENSIONS.get(syntax, '.txt')}"
            (root / name).write_text(text + "\n", encoding="utf-8")
            names.append(name)
        run = subprocess.run(
            [executable, "scan", "--all-files", "."],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        )
        results = json.loads(run.stdout)["results"]
        return [bool(results.get(name)) for name in names]


def gitleaks_rule_tests(checkout: Path) -> None:
    """Recall and harmful near misses on the rule tests of a gitleaks checkout."""
    from gitleaks_rule_tests import SECRET_VALUES, digest, read_rule_tests

    tests = read_rule_tests(checkout)
    generated = [sample for sample in tests.positives if sample.secret is not None]
    found = sum(sample.secret not in redact_text(sample.text) for sample in generated)
    shaped = personal = secret_values = would_hurt = harmful = 0
    for sample in tests.near_misses:
        if detect_credential(sample.text, _TOKEN_FORMATS) is not None:
            shaped += 1
            continue
        if digest(sample.text) in SECRET_VALUES:
            secret_values += 1
            continue
        findings = redact(sample.text).report.findings
        if findings and all(f.category == "personal-data" for f in findings):
            personal += 1
            continue
        would_hurt += 1
        harmful += bool(findings)

    def pct(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}%" if whole else "–"

    print(f"\ngitleaks rule tests ({checkout}; {tests.skipped} expressions not read)")
    print("| measure | count | tracecheck |")
    print("|---|---:|---:|")
    print(
        f"| recall in context (generated true positives) | {len(generated)} "
        f"| {pct(found, len(generated))} |"
    )
    print(f"| false positives | {len(tests.near_misses)} | |")
    print(f"| … of a credential's token format (counted apart) | {shaped} | |")
    print(f"| … secret values under a secret's name (counted apart) | {secret_values} | |")
    print(f"| … changed for personal data only (counted apart) | {personal} | |")
    print(f"| near misses whose loss would hurt | {would_hurt} | |")
    print(f"| harmful near misses (changed) | {harmful} | {pct(harmful, would_hurt)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--detect-secrets", help="path of a detect-secrets executable")
    parser.add_argument("--gitleaks", type=Path, help="a checkout of gitleaks: its rule tests too")
    args = parser.parse_args()

    cases = positives()
    misses = near_misses()
    ours_found = [case.secret not in redact_text(case.text) for case in cases]
    ours_changed = [redact_text(text) != text for _, text in misses]
    theirs_found: list[bool] | None = None
    theirs_changed: list[bool] | None = None
    if args.detect_secrets:
        theirs_found = detect_secrets_flags(
            args.detect_secrets, [(case.syntax, case.text) for case in cases]
        )
        theirs_changed = detect_secrets_flags(args.detect_secrets, [("txt", t) for _, t in misses])

    recall: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for index, case in enumerate(cases):
        row = recall[case.family]
        row[0] += 1
        row[1] += ours_found[index]
        row[2] += bool(theirs_found and theirs_found[index])
    noise: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for index, (family, _) in enumerate(misses):
        row = noise[family]
        row[0] += 1
        row[1] += ours_changed[index]
        row[2] += bool(theirs_changed and theirs_changed[index])

    def pct(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}%" if whole else "–"

    print(
        "| family | secrets in context | tracecheck recall | detect-secrets recall "
        "| near misses | tracecheck changed | detect-secrets flagged |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    total = [0, 0, 0, 0, 0, 0]
    for family in FAMILIES:
        r, n = recall[family], noise[family]
        theirs_r = pct(r[2], r[0]) if theirs_found else "not run"
        theirs_n = pct(n[2], n[0]) if theirs_changed else "not run"
        print(
            f"| {family} | {r[0]} | {pct(r[1], r[0])} | {theirs_r} | {n[0]} "
            f"| {pct(n[1], n[0])} | {theirs_n} |"
        )
        for i, v in enumerate((*r, *n)):
            total[i] += v
    print(
        f"| **all** | {total[0]} | {pct(total[1], total[0])} | "
        f"{pct(total[2], total[0]) if theirs_found else 'not run'} | {total[3]} | "
        f"{pct(total[4], total[3])} | {pct(total[5], total[3]) if theirs_changed else 'not run'} |"
    )
    if args.gitleaks:
        gitleaks_rule_tests(args.gitleaks)


if __name__ == "__main__":
    main()
