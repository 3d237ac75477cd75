"""`fleet compare BASE NEW`: which rules regressed or improved between two fleets' verdicts, by
Fisher's exact test at a stated level; exit 1 only on a significant regression."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tracecheck.fleet.comparison import compare_runs


def _rows(rule: str, passes: int, runs: int, status: str = "fail") -> list[dict[str, Any]]:
    return [
        {"contract": "payments", "rule": rule, "status": "pass" if n < passes else status}
        for n in range(runs)
    ]


def test_a_significant_drop_regresses_and_a_small_sample_does_not() -> None:
    before = _rows("shell", 20, 20) + _rows("budget", 2, 2) + _rows("gone", 1, 1)
    after = _rows("shell", 12, 20) + _rows("budget", 1, 2, "error") + _rows("new", 3, 3)
    found = {item.rule: item for item in compare_runs(before, after)}
    assert list(found) == ["shell", "budget", "gone", "new"]
    shell, budget = found["shell"], found["budget"]
    assert (shell.change, shell.before, shell.after) == ("regressed", (20, 20), (12, 20))
    # 12 is as few passes as these margins allow: the one table at least as extreme.
    assert shell.p_value == pytest.approx(math.comb(20, 12) / math.comb(40, 32))
    assert budget.change == "no significant change" and budget.p_value == pytest.approx(0.5)
    assert (found["gone"].change, found["new"].change) == ("only before", "only after")
    improved = compare_runs(_rows("shell", 12, 20), _rows("shell", 20, 20))
    assert improved[0].change == "improved"
    strict = compare_runs(before, after, alpha=0.001)
    assert strict[0].change == "no significant change"  # the level is the user's
    with pytest.raises(ValueError):
        compare_runs(before, after, alpha=1.5)


def _parquet(path: Path, rows: list[dict[str, Any]]) -> str:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from tracecheck.fleet.verdicts import COLUMNS, verdict_schema

    full = [{name: row.get(name) for name, _, _ in COLUMNS} for row in rows]
    pq.write_table(pa.Table.from_pylist(full, verdict_schema()), path)
    return str(path)


def _main(argv: list[str]) -> tuple[int, str, str]:
    from tracecheck.cli import Environment, main

    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, env=Environment(io.StringIO(), stdout, stderr, {}))
    return code, stdout.getvalue(), stderr.getvalue()


def test_fleet_compare_exits_1_only_on_a_significant_regression(tmp_path: Path) -> None:
    before = _parquet(tmp_path / "before.parquet", _rows("shell", 20, 20) + _rows("ok", 5, 5))
    worse = _parquet(tmp_path / "worse.parquet", _rows("shell", 12, 20) + _rows("ok", 4, 5))
    code, out, _ = _main(["fleet", "compare", before, worse, "--json", str(tmp_path / "c.json")])
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        f"{worse} against {before}: 1 rule(s) regressed, 0 improved "
        "(Fisher's exact test, one-sided, α = 0.05)"
    )
    assert lines[1].startswith(
        "  payments / shell: regressed — 20/20 → 12/20 runs passed (100.0% → 60.0%), p = 0.00"
    )
    assert lines[2].endswith("; few runs (5): a difference this size may be chance")
    written = json.loads((tmp_path / "c.json").read_text())
    assert written["alpha"] == 0.05 and written["rules"][0]["before"] == {"pass": 20, "runs": 20}
    same = _parquet(tmp_path / "same.parquet", _rows("shell", 19, 20) + _rows("ok", 5, 5))
    assert _main(["fleet", "compare", before, same])[0] == 0
    code, _, err = _main(["fleet", "compare", before, str(tmp_path / "missing.parquet")])
    assert code == 3 and err.endswith("missing.parquet: does not exist\n")
    assert _main(["fleet", "compare", before, same, "--alpha", "2"])[0] == 2
