"""The ready-made contracts, addressed as `builtin:NAME` wherever a contract is taken (check,
lint, explain, compile_contract, assert_contract, the trace_contract marker), and listed by
`tracecheck contracts`. Their source is contracts/; the wheel carries them (test_packaging.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tracecheck import compile_contract, read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.contract.builtin import (
    builtin_names,
    builtin_path,
    contract_source,
    contracts_folder,
    is_builtin,
    schema_path,
)
from tracecheck.contract.catalogue import builtin_contracts
from tracecheck.errors import ContractError
from tracecheck.testing import assert_contract

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {
    path.name.rsplit(".", 1)[0]: path
    for path in sorted((ROOT / "contracts").iterdir())
    if path.suffix in (".json", ".yaml") and path.name != "contract.schema.json"
}
CLEAN = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
FORBIDDEN = str(ROOT / "fixtures" / "otel-genai" / "forbidden.otlp.jsonl")


def document(path: Path) -> dict[str, object]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_every_contract_in_the_folder_is_builtin_under_its_own_name() -> None:
    assert contracts_folder() == ROOT / "contracts"  # a checkout: the source folder itself
    assert schema_path() == ROOT / "contracts" / "contract.schema.json"
    assert builtin_names() == list(SOURCES)
    assert "refund-desk" in SOURCES and "no-shell" in SOURCES
    for name, path in SOURCES.items():
        assert document(path)["name"] == name  # the address is the contract's own name
        assert builtin_path(f"builtin:{name}") == path


def test_builtin_compiles_the_same_contract_as_its_file() -> None:
    for name, path in SOURCES.items():
        builtin = compile_contract(f"builtin:{name}")
        from_file = compile_contract(path)
        assert builtin.name == from_file.name
        assert [r.label for r in builtin.rules] == [r.label for r in from_file.rules]
        assert builtin.source == f"builtin:{name}"


def test_an_unknown_name_is_refused_with_the_names_there_are() -> None:
    with pytest.raises(ContractError) as caught:
        compile_contract("builtin:no-shel")
    assert str(caught.value) == (
        'builtin:no-shel: no ready-made contract of that name — did you mean "builtin:no-shell"? '
        f"(there are: {', '.join(SOURCES)}; `tracecheck contracts` lists them)"
    )


def test_a_command_line_contract_is_builtin_or_a_file() -> None:
    assert contract_source("builtin:no-shell") == "builtin:no-shell"
    assert contract_source("contracts/no-shell.yaml") == Path("contracts/no-shell.yaml")
    assert is_builtin("builtin:x") and not is_builtin(Path("builtin:x")) and not is_builtin(3)


def test_contracts_lists_name_and_description_one_per_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["contracts"]) == ExitCode.OK
    lines = capsys.readouterr().out.splitlines()
    width = max(map(len, SOURCES))
    expected = []
    for name, path in SOURCES.items():
        description = " ".join(str(document(path)["description"]).split())
        expected.append(f"{name:<{width}}  {description}")
    assert lines == expected


def test_contracts_json_names_refs_descriptions_files_and_the_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["contracts", "--json"]) == ExitCode.OK
    listed = json.loads(capsys.readouterr().out)
    assert listed["version"] == 1
    assert listed["schema"] == str(schema_path())
    assert [c["name"] for c in listed["contracts"]] == list(SOURCES)
    for entry, contract in zip(listed["contracts"], builtin_contracts(), strict=True):
        assert entry == {
            "name": contract.name,
            "ref": f"builtin:{contract.name}",
            "description": contract.description,
            "path": str(SOURCES[contract.name]),
        }
        assert entry["description"]


def test_contracts_schema_prints_the_contracts_json_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["contracts", "--schema"]) == ExitCode.OK
    schema = json.loads(capsys.readouterr().out)
    assert schema == json.loads((ROOT / "contracts" / "contract.schema.json").read_text())


def test_check_lint_and_explain_take_builtin(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", CLEAN, FORBIDDEN, "--contract", "builtin:refund-desk"]) == 1
    out = capsys.readouterr().out
    assert 'contract "refund-desk" PASS (9/9 rules passed)' in out
    assert 'contract "refund-desk" FAIL (8/9 rules passed)' in out
    assert "tools.forbidden[run_shell]" in out
    assert main(["lint", "builtin:no-shell", "builtin:refund-desk"]) == ExitCode.OK
    assert capsys.readouterr().out == (
        "builtin:no-shell: no findings\nbuiltin:refund-desk: no findings\n"
    )
    assert main(["explain", "builtin:no-shell"]) == ExitCode.OK
    assert capsys.readouterr().out.startswith('Contract "no-shell" — The agent never opens a shell')
    assert main(["check", CLEAN, "--contract", "builtin:nope"]) == ExitCode.USAGE
    assert "builtin:nope: no ready-made contract of that name" in capsys.readouterr().err


def test_assert_contract_takes_builtin() -> None:
    assert assert_contract(read_traces(CLEAN)[0], "builtin:no-shell").status == "pass"
    with pytest.raises(AssertionError, match=r"tools\.forbidden\[run_shell\]"):
        assert_contract(read_traces(FORBIDDEN)[0], "builtin:no-shell")


pytest_plugins = ["pytester"]


def test_the_marker_takes_builtin(pytester: pytest.Pytester) -> None:
    pytest.importorskip("opentelemetry.sdk")
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider --strict-markers\n")
    pytester.makepyfile(
        """
        import pytest

        def run(tracer, tool):
            with tracer.start_as_current_span("execute_tool " + tool) as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", tool)

        @pytest.mark.trace_contract("builtin:no-shell")
        def test_reads(trace_spans):
            run(trace_spans.tracer("agent"), "lookup_order")

        @pytest.mark.trace_contract("builtin:no-shell")
        def test_opens_a_shell(trace_spans):
            run(trace_spans.tracer("agent"), "run_shell")

        @pytest.mark.trace_contract("builtin:no-such")
        def test_unknown(trace_spans):
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*builtin:no-such: no ready-made contract*", "*tools.forbidden[[]run_shell[]]*"]
    )
