"""Mutation testing of the core: which changes to the code the tests notice.

    python bench/mutation.py                      # every group, two workers
    python bench/mutation.py contract --jobs 2    # one group
    python bench/mutation.py --report-only DIR    # summarise a finished run again

mutmut (the test extras install it) mutates every function and method of a group's modules and
runs, for each mutant, the tests of the group's selection that executed that function. Each group
runs in a copy of the working tree under --workdir, with its own `[tool.mutmut]` table appended
to the copy's pyproject.toml, so the repository's own file stays free of it.

mutmut 3 mutates code inside functions and methods only: module-level tables (the detectors'
patterns, the conventions' attribute names) are not mutated; the corpus recall figures in
bench/README.md measure those. Functions under a decorator other than staticmethod/classmethod
are left alone too.

The summary counts a mutant as killed when a test failed or timed out, and as surviving when
every test passed or no selected test ran its function ("no tests"): a mutant nobody notices is
not noticed, whatever the reason. Results: bench/README.md "Mutation testing", the survivors and
why each is left in bench/mutation-survivors.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Group:
    """Modules mutated together, and the tests that are meant to notice."""

    name: str
    areas: tuple[str, ...]  # glob patterns, one reported area each
    tests: tuple[str, ...]
    deselected: tuple[str, ...] = ()


GROUPS = (
    Group(
        "contract",
        ("tracecheck/rules/*", "tracecheck/contract/compile.py"),
        (
            "tests/test_rules_*.py",
            "tests/test_contract_*.py",
            "tests/test_alignment.py",
            "tests/test_builtin_contracts.py",
            "tests/test_canonical_numbers.py",
            "tests/test_capture_evidence.py",
            "tests/test_cost.py",
            "tests/test_cost_rule.py",
            "tests/test_cost_prices.py",
            "tests/test_duplicate_calls.py",
            "tests/test_loops*.py",
            "tests/test_matchers*.py",
            "tests/test_requires.py",
            "tests/test_run.py",
            "tests/test_run_totals.py",
            "tests/test_spec_audit.py",
            "tests/test_spec_heldout.py",
            "tests/test_steps.py",
            "tests/test_subject_index.py",
            "tests/test_timing*.py",
            "tests/test_trajectory*.py",
            "tests/test_diff.py",
            "tests/test_diff_sequence.py",
            "tests/test_wrong_values.py",
            "tests/test_hook_scope.py",
        ),
        # counts the walks of a monkeypatched function: 16 instead of 12 when mutmut's rewritten
        # modules run it, with no mutant active (not investigated further)
        (
            "tests/test_duplicate_calls.py::test_show_walks_the_merges_a_fixed_number_of_times_"
            "however_many_spans",
        ),
    ),
    Group(
        "conventions",
        ("tracecheck/conventions/*",),
        (
            "tests/test_conventions*.py",
            "tests/test_producers*.py",
            "tests/test_reader_*.py",
            "tests/test_fixtures.py",
            "tests/test_fixtures_frameworks.py",
            "tests/test_fixture_doubt.py",
            "tests/test_recorded_fields.py",
            "tests/test_langfuse_export.py",
            "tests/test_typed_reader_fast_paths.py",
            "tests/test_reading_fast_path.py",
            "tests/test_normalize.py",
            "tests/test_otlp_details.py",
            "tests/test_proto_attributes.py",
            "tests/test_jaeger_forms.py",
            "tests/test_fail_closed_inputs.py",
            "tests/test_capture_evidence.py",
            "tests/test_cost.py",
        ),
    ),
    Group(
        "detectors",
        ("redact/detectors/*",),
        # The detectors' own tests: the corpus, engine and encoding suites (three minutes a
        # mutant that survives them) measure recall, which bench/README.md reports apart.
        (
            "tests/test_detector*.py",
            "tests/test_known_secrets.py",
            "tests/test_redact_core.py",
            "tests/test_redact_scan.py",
            "tests/test_redact_strings.py",
            "tests/test_redact_keys.py",
            "tests/test_redact_decoded.py",
            "tests/test_redaction_corpus.py",
            "tests/test_safety_planted.py",
            "tests/test_verify_safe_gate.py",
            "tests/test_unquoted.py",
        ),
    ),
)

KILLED = {"killed", "timeout", "caught by type check", "segfault"}
# mutmut's exit codes (mutmut/stats.py): anything else it calls suspicious
STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
    -24: "timeout",
    24: "timeout",
    152: "timeout",
    255: "timeout",
    37: "caught by type check",
    -11: "segfault",
    -9: "segfault",
    None: "not checked",
}


def copy_tree(destination: Path) -> None:
    """Copy the working tree as git sees it (tracked and new files, nothing ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        source = ROOT / os.fsdecode(raw)
        if source.is_file():
            target = destination / os.fsdecode(raw)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def mutmut_table(group: Group, tests: Sequence[str]) -> str:
    also_copy = ["fixtures/", "contracts/", "docs/", "examples/", "bench/"]
    also_copy += ["README.md", "CHANGELOG.md", "mkdocs.yml"]
    return "\n".join(
        (
            "",
            "[tool.mutmut]",
            f"source_paths = {json.dumps(['tracecheck/', 'redact/'])}",
            f"only_mutate = {json.dumps(list(group.areas))}",
            f"also_copy = {json.dumps(also_copy)}",
            f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}",
            f"pytest_add_cli_args = {json.dumps([f'--deselect={t}' for t in group.deselected])}",
            "",
        )
    )


def run_group(group: Group, workdir: Path, jobs: int) -> Path:
    place = workdir / group.name
    shutil.rmtree(place, ignore_errors=True)
    copy_tree(place)
    tests = sorted(
        str(path.relative_to(place)) for pattern in group.tests for path in place.glob(pattern)
    )
    with (place / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write(mutmut_table(group, tests))
    mutmut = Path(sys.executable).with_name("mutmut")
    # a subset of the suite may skip what the whole suite does not (tests/conftest.py)
    env = {**os.environ, "TRACECHECK_ALLOW_SKIPS": "1"}
    with (place / "mutmut.log").open("wb") as log:
        subprocess.run(
            [str(mutmut), "run", "--max-children", str(jobs)],
            cwd=place,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    # Functions that run when a module is imported (detectors, conventions and the tests' own
    # tables are built by calls at module level) ran before mutmut forked its workers, so the
    # mutmut pass never called their mutants: those it did not kill run again, each in a fresh
    # process.
    rerun_at_import(place, group, tests, jobs)
    return place


# Run in the mutated copy: collects the tests as mutmut's workers do, with mutmut's "stats" mode
# on and its hit recorder replaced, and prints the functions that ran.
_CALLED_AT_IMPORT = """
import sys
import pytest
import mutmut.mutation.trampoline as trampoline
called = set()
trampoline.record_trampoline_hit = lambda name, caller=None: called.add(name)
pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *sys.argv[1:]])
print("\\n".join(sorted(called)), file=sys.stderr)
"""
RERUN = "fresh-imports.json"
RECHECK = "rechecked.json"


def exit_codes(
    place: Path, names: Sequence[str], arguments: Sequence[str], jobs: int, timeout: float
) -> dict[str, int]:
    """pytest's exit code with each mutant active, each in a fresh process (so that functions
    run at import run mutated too). A mutant that makes the tests run past `timeout` seconds
    (an endless loop) is counted killed by timeout, as mutmut counts it."""
    env = {**os.environ, "TRACECHECK_ALLOW_SKIPS": "1"}
    # Some mutants turn a walk into an endless loop that grows a list (about 40 MB/s): bounded,
    # the process fails with MemoryError long before the machine runs out.
    command = ["prlimit", f"--as={6 << 30}", "--", sys.executable, "-m", "pytest", "-x", "-q"]
    command += ["-p", "no:cacheprovider", *arguments]

    def exit_code(name: str) -> int:
        try:
            return subprocess.run(
                command,
                cwd=place / "mutants",
                env={**env, "MUTANT_UNDER_TEST": name},
                capture_output=True,
                check=False,
                timeout=timeout,
            ).returncode
        except subprocess.TimeoutExpired:
            return 36

    with ThreadPoolExecutor(jobs) as pool:
        return dict(zip(names, pool.map(exit_code, names), strict=True))


def recheck(place: Path, group: Group, tests: Sequence[str], jobs: int) -> int:
    """Run `tests` (new ones, copied in from the working tree) against every mutant the last run
    left alive; the ones they kill are recorded (`RECHECK`). Returns how many."""
    shutil.copytree(ROOT / "tests", place / "mutants" / "tests", dirs_exist_ok=True)
    # The tests must pass on the run's own code with no mutant active, or every mutant would
    # read as killed (a test of behaviour changed since the run; leave it out with --deselect).
    if exit_codes(place, [""], tests, 1, timeout=600)[""] != 0:
        raise SystemExit(f"{group.name}: the tests fail with no mutant active: nothing recorded")
    alive = [
        mutant
        for statuses in outcomes(place, group).values()
        for mutant, status in statuses.items()
        if status not in KILLED and status not in {"skipped", "not checked"}
    ]
    codes = exit_codes(place, alive, tests, jobs, timeout=120)
    path = place / RECHECK
    kills = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    kills.update({name: code for name, code in codes.items() if code not in (0, 5)})
    path.write_text(json.dumps(kills, indent=1), encoding="utf-8")
    return sum(1 for code in codes.values() if code not in (0, 5))


def rerun_at_import(place: Path, group: Group, tests: Sequence[str], jobs: int) -> None:
    """Run the group's tests again, in a new process each, for every mutant not killed whose
    function ran at import; record their exit codes beside mutmut's (`RERUN`)."""
    mutated = place / "mutants"
    env = {**os.environ, "TRACECHECK_ALLOW_SKIPS": "1", "MUTANT_UNDER_TEST": "stats"}
    collected = subprocess.run(
        [sys.executable, "-c", _CALLED_AT_IMPORT, *tests],
        cwd=mutated,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    at_import = set(collected.stderr.split())
    names = [
        mutant
        for statuses in outcomes(place, group).values()
        for mutant, status in statuses.items()
        if status not in KILLED and mutant.rsplit("__mutmut_", 1)[0] in at_import
    ]
    # fastest files first, as mutmut orders tests: a mutant noticed is noticed sooner
    stats = json.loads((mutated / "mutmut-stats.json").read_text(encoding="utf-8"))
    seconds: Counter[str] = Counter()
    for test, duration in stats["duration_by_test"].items():
        seconds[test.split("::")[0]] += duration
    ordered = sorted(tests, key=lambda test: seconds[test])
    deselected = [f"--deselect={test}" for test in group.deselected]
    codes = exit_codes(place, names, [*deselected, *ordered], jobs, timeout=900)
    (place / RERUN).write_text(json.dumps(codes, indent=1), encoding="utf-8")


def area_of(mutant: str, group: Group) -> str:
    module_path = mutant.split(".x")[0].replace(".", "/")
    for area in group.areas:
        if Path(module_path + ".py").match(area) or (module_path + ".py").startswith(
            area.rstrip("*")
        ):
            return area
    return module_path


def outcomes(place: Path, group: Group) -> dict[str, dict[str, str]]:
    """Every mutant's status, by area."""
    again: dict[str, int] = {}
    for name in (RERUN, RECHECK):
        if (place / name).exists():
            again.update(json.loads((place / name).read_text(encoding="utf-8")))
    by_area: dict[str, dict[str, str]] = {}
    for meta in sorted((place / "mutants").rglob("*.py.meta")):
        exit_codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for mutant, code in exit_codes.items():
            code = again.get(mutant, code)
            # pytest's 2 and 4 (interrupted, usage) are a failed import: the mutant is noticed
            status = "killed" if mutant in again and code in (2, 4) else STATUS.get(code)
            by_area.setdefault(area_of(mutant, group), {})[mutant] = status or "suspicious"
    return by_area


def summary(place: Path, group: Group) -> tuple[list[str], list[str]]:
    rows, survivors = [], []
    for area, statuses in sorted(outcomes(place, group).items()):
        counts = Counter(statuses.values())
        counted = len(statuses) - counts["skipped"] - counts["not checked"]
        killed = sum(counts[status] for status in KILLED)
        share = killed / counted if counted else 0.0
        rows.append(
            f"| `{area}` | {counted} | {killed} | {counts['timeout']} | {counts['survived']} "
            f"| {counts['no tests']} | {counts['not checked']} | {share:.1%} |"
        )
        survivors += [
            f"{mutant} ({status})"
            for mutant, status in sorted(statuses.items())
            if status not in KILLED and status not in {"skipped", "not checked"}
        ]
    return rows, survivors


_SHOW = """
import sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
for name in sys.stdin.read().split():
    try:
        shown = get_diff_for_mutant(name)
    except Exception as exc:  # one mutant mutmut cannot show does not hide the rest
        shown = f"(not shown: {exc!r})"
    print(f"## {name}\\n\\n```diff\\n{shown}\\n```\\n")
"""


def diffs(place: Path, names: Sequence[str]) -> str:
    """What each mutant changed, as mutmut shows it (one process for all: `mutmut show` takes a
    second each)."""
    return subprocess.run(
        [sys.executable, "-c", _SHOW],
        cwd=place,
        input="\n".join(names),
        capture_output=True,
        text=True,
        check=True,
    ).stdout


HEADER = (
    "| area | mutants | killed | of which by timeout | survived | no tests | not run | killed |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", help=f"any of {', '.join(g.name for g in GROUPS)}")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/tracecheck-mutation"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--report-only", action="store_true", help="summarise the last run")
    parser.add_argument("--survivors", type=Path, help="write the surviving mutants' names here")
    parser.add_argument("--diffs", type=Path, help="write the surviving mutants' diffs here")
    parser.add_argument(
        "--recheck",
        nargs="+",
        metavar="TEST",
        help="run these test files against the last run's survivors and record what they kill",
    )
    parser.add_argument(
        "--deselect",
        action="append",
        default=[],
        metavar="TEST",
        help="with --recheck: leave this test out (one whose behaviour changed since the run)",
    )
    args = parser.parse_args(argv)
    unknown = set(args.groups) - {g.name for g in GROUPS}
    if unknown:
        parser.error(f"no group named {', '.join(sorted(unknown))}")
    chosen = [g for g in GROUPS if not args.groups or g.name in args.groups]
    rows, survivors, shown = list(HEADER), [], []
    for group in chosen:
        place = args.workdir / group.name
        if args.recheck:
            tests = [*args.recheck, *(f"--deselect={test}" for test in args.deselect)]
            print(f"{group.name}: {recheck(place, group, tests, args.jobs)} more killed")
        elif not args.report_only:
            run_group(group, args.workdir, args.jobs)
        group_rows, group_survivors = summary(place, group)
        rows += group_rows
        survivors += group_survivors
        if args.diffs:
            shown.append(diffs(place, [line.split()[0] for line in group_survivors]))
    print("\n".join(rows))
    if args.survivors:
        args.survivors.write_text("\n".join(survivors) + "\n", encoding="utf-8")
    if args.diffs:
        args.diffs.write_text("".join(shown), encoding="utf-8")
    print(f"\n{len(survivors)} mutants not killed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
