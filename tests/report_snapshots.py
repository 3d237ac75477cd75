"""What `check`, `fleet check`, `redact` and `verify-safe` write for every trace in fixtures/,
kept as digests in tests/snapshots/reports.json, so that a change meant to keep behaviour (moving
modules, another executor, a faster reader or redactor) is shown to keep every verdict, report,
redacted copy and exit code byte for byte.

    python tests/report_snapshots.py                # write the digests anew from this tree
    python tests/report_snapshots.py --diff REV     # what this tree writes unlike revision REV

The reports themselves are 66 MB, too much to keep in the repository: the digests say which
report changed, and `--diff` shows how (it writes both trees' reports and runs `diff -u`).

Every fixture trace file is one input of one `check` (each against every bundled contract), with
the JSON, JUnit, SARIF and GitHub reports, and what it printed; a smaller set draws the HTML page,
and `fleet check` of the same inputs writes its Parquet verdicts and summary. What two runs never
share (how long a check took, when the page was made, where the repository is) is blanked,
and so are the page's charts (matplotlib's drawing); the rest is compared as written.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots" / "reports.json"
TRACE_SUFFIXES = (".json", ".jsonl", ".pb", ".pbstream")
# The page draws every trace: one folder of each kind of producer keeps it small.
PAGE_INPUTS = ("fixtures/otel-genai", "fixtures/openinference", "fixtures/claude")


def fixture_inputs() -> list[str]:
    """Every trace file under fixtures/ (not the redaction corpus), relative to the root."""
    found = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "fixtures").rglob("*")
        if path.is_file() and path.name.endswith(TRACE_SUFFIXES) and "redaction" not in path.parts
    ]
    return sorted(found)


def contracts() -> list[str]:
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "contracts").iterdir()
        if path.suffix in (".json", ".yaml") and path.name != "contract.schema.json"
    )


@contextmanager
def at_root() -> Iterator[None]:
    """Inputs and reports named relative to the repository, as a user in it names them."""
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def _blank(text: str) -> str:
    """`text` without what differs from run to run: how long each check took and when, and
    where the repository is (SARIF names its root)."""
    text = text.replace(ROOT.as_uri() + "/", "file:///ROOT/")
    text = re.sub(r' (time|timestamp)="[^"]+"', r' \1="-"', text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "-", text)


def _run(
    argv: list[str], out: Path, environ: dict[str, str], stdin: bytes = b"", *, blank: bool = True
) -> dict[str, str]:
    from tracecheck.cli import Environment, main

    stdout, stderr = io.StringIO(), io.StringIO()
    # No progress line: on a loaded machine a slow input would print one.
    quiet = {"progress_bytes": 1 << 62, "progress_seconds": 1e9}
    env = Environment(io.TextIOWrapper(io.BytesIO(stdin)), stdout, stderr, environ, **quiet)
    with at_root():
        code = main(argv, env=env)
    written = {"code": f"{code}\n", "stdout": stdout.getvalue(), "stderr": stderr.getvalue()}
    for path in sorted(out.iterdir()):
        data = path.read_bytes()
        try:
            written[path.name] = data.decode("utf-8")
        except UnicodeDecodeError:  # a protobuf copy: one character per byte, as compared
            written[path.name] = data.decode("latin-1")
    return {name: _blank(text) if blank else text for name, text in written.items()}


def check_reports(tmp: Path) -> dict[str, str]:
    """`check` of every fixture against every bundled contract: each thing it wrote."""
    out = tmp / "check"
    out.mkdir()
    summary = out / "summary.md"
    summary.write_text("")
    reports = ["--json", str(out / "report.json"), "--junit", str(out / "junit.xml")]
    reports += ["--sarif", str(out / "report.sarif")]
    contract_args = [f"--contract={path}" for path in contracts()]
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    argv = ["check", *contract_args, *reports, "-v", "--", *fixture_inputs()]
    return {f"check.{name}": text for name, text in _run(argv, out, environ).items()}


def folder_reports(tmp: Path) -> dict[str, str]:
    """`check` of standard input and of every fixture folder (a directory's files are read
    with its rules: only trace files, a trace spread over files read whole)."""
    out = tmp / "folders"
    out.mkdir()
    folders = [
        path.relative_to(ROOT).as_posix()
        for parent in (ROOT / "fixtures", ROOT / "fixtures" / "producers")
        for path in sorted(parent.iterdir())
        if path.is_dir() and path.name not in ("redaction", "__pycache__")
    ]
    stdin = (ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl").read_bytes()
    contract_args = [f"--contract={path}" for path in contracts()]
    argv = ["check", *contract_args, "--json", str(out / "report.json"), "--", "-", *folders]
    return {f"folders.{name}": text for name, text in _run(argv, out, {}, stdin).items()}


def page_reports(tmp: Path) -> dict[str, str]:
    """`check --html` of a few folders: the page as written."""
    out = tmp / "page"
    out.mkdir()
    contract_args = [f"--contract={path}" for path in contracts()]
    argv = ["check", *contract_args, "-q", "--html", str(out / "page.html"), *PAGE_INPUTS]
    written = _run(argv, out, {"SOURCE_DATE_EPOCH": "0"})
    # The charts are matplotlib's drawing, which changes with its version and fonts: the page
    # is compared around them (what they show is in its tables too).
    page = re.sub(r"<svg .*?</svg>", "<svg/>", written["page.html"], flags=re.DOTALL)
    return {f"page.{name}": text for name, text in {**written, "page.html": page}.items()}


def fleet_reports(tmp: Path) -> dict[str, str]:
    """`fleet check` in this process of every fixture: its summary, and its Parquet verdicts
    as rows (the file itself names the writer's version)."""
    import pyarrow.parquet as pq

    out = tmp / "fleet"
    out.mkdir()
    verdicts = tmp / "verdicts.parquet"
    contract_args = [f"--contract={path}" for path in contracts()]
    argv = ["fleet", "check", "-j", "1", *contract_args, "-o", str(verdicts)]
    argv += ["--json", str(out / "summary.json"), "--", *fixture_inputs()]
    written = _run(argv, out, {})
    rows = pq.read_table(verdicts).to_pylist()
    written["verdicts.jsonl"] = "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows)
    return {f"fleet.{name}": text for name, text in written.items()}


PROFILES = ("default", "share", "strict")


def redaction_reports(tmp: Path) -> dict[str, str]:
    """`redact` of every fixture under each built-in profile, with one pseudonym key: what it
    wrote (the redacted copy, or nothing when the gate refused), printed and exited with; and
    `verify-safe` of every fixture under each profile."""
    key = tmp / "pseudonym.key"
    key.write_bytes(b"k" * 32)
    reports: dict[str, str] = {}
    for number, trace in enumerate(fixture_inputs()):
        for profile in PROFILES:
            out = tmp / f"redact-{number}-{profile}"
            out.mkdir()
            argv = ["redact", trace, "-o", str(out / "copy"), "--profile", profile]
            # A redacted copy holds what its fixture holds (a recording's own paths, which may
            # be this repository's): nothing in it differs from run to run, nothing is blanked.
            written = _run([*argv, "--pseudonym-key-file", str(key)], out, {}, blank=False)
            reports[f"redact.{profile}.{trace}"] = "".join(
                f"--- {name}\n{text}" for name, text in written.items()
            )
    for profile in PROFILES:
        out = tmp / f"verify-{profile}"
        out.mkdir()
        # The trace files, not the folder: a checkout's folder also holds what git ignores.
        argv = ["verify-safe", "--profile", profile, *fixture_inputs()]
        written = _run(argv, out, {}, blank=False)
        reports.update({f"verify.{profile}.{name}": text for name, text in written.items()})
    return reports


def all_reports(tmp: Path) -> dict[str, str]:
    return {
        **check_reports(tmp),
        **folder_reports(tmp),
        **page_reports(tmp),
        **fleet_reports(tmp),
        **redaction_reports(tmp),
    }


def digests(reports: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Each report's SHA-256 and line count."""
    import hashlib

    return {
        name: {"sha256": hashlib.sha256(text.encode()).hexdigest(), "lines": text.count("\n")}
        for name, text in sorted(reports.items())
    }


def _written_at(revision: str, target: Path) -> None:
    """The reports of `revision`'s product (its tracecheck and redact packages, this tree's
    fixtures and contracts), as files in `target`."""
    import subprocess
    import tarfile

    code = target / "code"
    code.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "tracecheck", "redact"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(code, filter="data")
    environ = {**os.environ, "PYTHONPATH": str(code)}
    subprocess.run(
        [sys.executable, __file__, "--to", str(target / "reports")], env=environ, check=True
    )


def _to_files(reports: dict[str, str], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in reports.items():
        path = folder / name  # a redacted fixture's report is named by the fixture's path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    import argparse
    import subprocess
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--diff", metavar="REV", help="show how this tree's reports differ from REV's"
    )
    parser.add_argument("--to", metavar="DIR", help=argparse.SUPPRESS)  # `--diff`'s other side
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tracecheck-snapshots-") as spare:
        reports = all_reports(Path(spare))
        if args.to:
            _to_files(reports, Path(args.to))
            return 0
        if args.diff:
            _to_files(reports, Path(spare) / "now")
            _written_at(args.diff, Path(spare) / "then")
            folders = [str(Path(spare) / "then" / "reports"), str(Path(spare) / "now")]
            return subprocess.run(["diff", "-ru", *folders], check=False).returncode
    SNAPSHOTS.write_text(json.dumps(digests(reports), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
