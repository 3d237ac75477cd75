"""SARIF 2.1.0 (`check --sarif`) validates against the OASIS schema (`tests/schemas/
sarif-schema-2.1.0.json`, copied as it is; its origin is in `tests/schemas/README.md`), for real
runs over the bundled fixtures and contracts and for any verdicts a reporter may be handed. One
result per violation, located at the contract file and the line of the rule; a rule that could
not be evaluated is a result and a notification; unread inputs are notifications; no value read
from a trace ever appears."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft4Validator

from tracecheck import check, compile_contract, read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.contract.places import place_steps, rule_lines
from tracecheck.distribution import version
from tracecheck.report import CheckedTrace, ReadFailure, render_sarif, sarif_parts
from tracecheck.report.sarif import FINGERPRINT, SARIF_SCHEMA, SRCROOT
from tracecheck.verdict import RuleResult, Verdict, Violation

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
VALIDATOR = Draft4Validator(SCHEMA, format_checker=Draft4Validator.FORMAT_CHECKER)
CONTRACTS = sorted(
    str(path)
    for path in (ROOT / "contracts").iterdir()
    if path.suffix in (".json", ".yaml") and not path.name.endswith(".schema.json")
)
REFUND_DESK = str(ROOT / "contracts" / "refund-desk.json")
MODEL_BUDGET = str(ROOT / "contracts" / "model-budget.yaml")


def recorded(scenario: str) -> str:
    return str(ROOT / "fixtures" / "otel-genai" / f"{scenario}.otlp.jsonl")


def assert_valid(log: Any) -> dict[str, Any]:
    problems = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in VALIDATOR.iter_errors(log)
    ]
    assert problems == []
    run: dict[str, Any] = log["runs"][0]
    return run


def sarif_of(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    data.decode("utf-8")  # UTF-8 throughout
    log: dict[str, Any] = json.loads(data)
    return log


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of `path` holding `text`."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def region_line(result: dict[str, Any]) -> int | None:
    physical = result["locations"][0].get("physicalLocation", {})
    region = physical.get("region")
    return None if region is None else int(region["startLine"])


def test_the_schema_is_the_oasis_one() -> None:
    assert SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    assert SCHEMA["id"] == SARIF_SCHEMA
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-04/schema#"
    readme = (ROOT / "tests" / "schemas" / "README.md").read_text()
    assert "oasis-tcs/sarif-spec" in readme and "sarif-schema-2.1.0.json" in readme


def test_every_fixture_against_every_contract_validates_with_one_result_per_violation(
    tmp_path: Path,
) -> None:
    sarif, report = tmp_path / "all.sarif", tmp_path / "all.json"
    missing = str(tmp_path / "gone.jsonl")
    args = ["check", str(ROOT / "fixtures"), missing, "-q"]
    for contract in CONTRACTS:
        args += ["--contract", contract]
    assert main([*args, "--sarif", str(sarif), "--json", str(report)]) >= ExitCode.FAILED
    run = assert_valid(sarif_of(sarif))
    verdicts = json.loads(report.read_text())["results"]
    rules = [rule for verdict in verdicts for rule in verdict["rules"]]
    violations = sum(len(rule["violations"]) for rule in rules if rule["status"] == "fail")
    errored = sum(rule["status"] == "error" for rule in rules)
    kinds = [result["kind"] for result in run["results"]]
    assert violations > 20 and errored > 0
    assert kinds.count("fail") == violations
    assert kinds.count("open") == errored
    assert len(kinds) == violations + errored
    # Every rule of every contract is described once, under an id of its own.
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert len(ids) == len(set(ids))
    assert "refund-desk/tools.forbidden[run_shell]" in ids
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
    fingerprints = [result["partialFingerprints"][FINGERPRINT] for result in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    notifications = invocation["toolExecutionNotifications"]
    unread = [n for n in notifications if n["descriptor"]["id"] != "rule-error"]
    assert [n["descriptor"]["id"] for n in unread] == ["unreadable"]
    assert unread[0]["message"]["text"].startswith(f"{missing}: ")
    assert len(notifications) > 1  # and the rules that could not be evaluated


def test_the_driver_names_the_tool_and_describes_each_rule(tmp_path: Path) -> None:
    log = render_sarif([], [], [compile_contract(REFUND_DESK)], base=str(ROOT))
    run = assert_valid(log)
    assert log["version"] == "2.1.0" and log["$schema"] == SARIF_SCHEMA
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("tracecheck", version())
    assert driver["informationUri"].startswith("https://")
    assert [rule["id"] for rule in driver["rules"]] == [
        "refund-desk/tools.required[lookup_order]",
        "refund-desk/tools.required[issue_refund]",
        "refund-desk/tools.forbidden[run_shell]",
        "refund-desk/tools.requiredOrder[lookup_order->issue_refund]",
        "refund-desk/tools.arguments[0] issue_refund /order_id type string",
        "refund-desk/tools.arguments[1] issue_refund /amount type number",
        "refund-desk/retries",
        "refund-desk/llm.maxTotalTokens",
        "refund-desk/llm.allowedModels",
    ]
    forbidden = driver["rules"][2]
    assert forbidden["shortDescription"]["text"] == "refund-desk: tools.forbidden[run_shell]"
    assert forbidden["fullDescription"]["text"] == (
        f'Contract "refund-desk" ({REFUND_DESK}), rule "tools.forbidden[run_shell]": '
        "no span matches the rule's predicate."
    )
    assert run["results"] == []
    assert run["invocations"][0] == {"executionSuccessful": True, "toolExecutionNotifications": []}


def test_every_kind_of_rule_is_described_by_what_it_asks() -> None:
    contract = compile_contract(
        {
            "name": "kinds",
            "trajectory": {"mode": "in-order", "calls": ["lookup_order"]},
            "tools": {"requires": [{"tool": "issue_refund", "after": "lookup_order"}]},
            "llm": {"maxCostUsd": 1},
            "prices": {"gpt-4.1-mini": {"input": 0.4, "output": 1.6}},
        }
    )
    driver = render_sarif([], [], [contract])["runs"][0]["tool"]["driver"]
    asks = {
        rule["properties"]["tags"][1]: rule["fullDescription"]["text"].rsplit(": ", 1)[1]
        for rule in driver["rules"]
    }
    assert asks == {
        "trajectory": "the run's tool calls follow the reference trajectory in its match mode.",
        "requires": "a tool runs only after another tool succeeded.",
        "maxCost": "the model calls cost no more than the limit.",
    }


def test_a_violation_points_at_the_rules_line_in_a_json_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    sarif = tmp_path / "out.sarif"
    code = main(
        [
            "check",
            recorded("forbidden"),
            "--contract",
            "contracts/refund-desk.json",
            "--sarif",
            str(sarif),
            "-q",
        ]
    )
    assert code == ExitCode.FAILED
    run = assert_valid(sarif_of(sarif))
    (result,) = run["results"]
    assert (result["ruleId"], result["kind"], result["level"]) == (
        "refund-desk/tools.forbidden[run_shell]",
        "fail",
        "error",
    )
    text = result["message"]["text"]
    assert text.startswith('span 4b1b907d90c3da97 ("execute_tool run_shell") matches never(')
    assert text.endswith("(trace 168b0270d96edde63163f0a84510227f, span 4b1b907d90c3da97)")
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {
        "uri": "contracts/refund-desk.json",
        "uriBaseId": SRCROOT,
    }
    assert physical["region"] == {"startLine": line_of(Path(REFUND_DESK), '"forbidden"')}
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"] == {
        "uri": "fixtures/otel-genai/forbidden.otlp.jsonl",
        "uriBaseId": SRCROOT,
    }
    assert result["properties"]["traceId"] == "168b0270d96edde63163f0a84510227f"
    assert result["properties"]["spanId"] == "4b1b907d90c3da97"
    assert result["properties"]["traceSource"] == recorded("forbidden")
    assert run["originalUriBaseIds"][SRCROOT]["uri"] == ROOT.as_uri() + "/"


def test_a_violation_points_at_the_rules_line_in_a_yaml_contract(tmp_path: Path) -> None:
    contract = tmp_path / "budget.yaml"
    contract.write_text(
        "# a budget\n"
        "name: budget\n"
        "llm:\n"
        "  maxTotalTokens: 10\n"
        "alternatives:\n"
        "  anyOf:\n"
        "    - id: lookup\n"
        "      tools:\n"
        "        maxCallsPerTool:\n"
        "          lookup_order: 0\n"
        "    - id: shell\n"
        "      tools:\n"
        "        required: [Bash]\n"
    )
    traces = read_traces(recorded("forbidden"))
    compiled = compile_contract(str(contract))
    items = [CheckedTrace(recorded("forbidden"), str(contract), check(traces[0], compiled))]
    run = assert_valid(render_sarif(items, [], [compiled], base=str(tmp_path)))
    lines = {result["ruleId"]: region_line(result) for result in run["results"]}
    assert lines == {
        "budget/llm.maxTotalTokens": 4,
        "budget/lookup/tools.maxCallsPerTool[lookup_order]": 10,
        "budget/shell/tools.required[Bash]": 13,
    }
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    }
    assert uris == {"budget.yaml"}


def test_the_line_of_every_rule_of_the_bundled_contracts() -> None:
    assert rule_lines(MODEL_BUDGET) == {
        "llm.allowedModels": line_of(Path(MODEL_BUDGET), "allowedModels"),
        "llm.maxCalls": line_of(Path(MODEL_BUDGET), "maxCalls"),
        "llm.maxTotalTokens": line_of(Path(MODEL_BUDGET), "maxTotalTokens"),
    }
    lines = rule_lines(REFUND_DESK)
    assert lines["tools.arguments[1] issue_refund /amount type number"] == line_of(
        Path(REFUND_DESK), '"/amount"'
    )
    assert lines["retries"] == line_of(Path(REFUND_DESK), '"retries"')
    assert rule_lines("builtin:no-shell")["tools.forbidden[Bash]"] == line_of(
        ROOT / "contracts" / "no-shell.yaml", "forbidden:"
    )


def test_json_indented_with_tabs_and_yaml_merges_still_give_lines(tmp_path: Path) -> None:
    tabbed = tmp_path / "tabs.json"
    tabbed.write_text('{\n\t"name": "t",\n\t"tools": {\n\t\t"forbidden": ["Bash"]\n\t}\n}\n')
    assert rule_lines(str(tabbed)) == {"tools.forbidden[Bash]": 4}
    merged = tmp_path / "merged.yaml"
    merged.write_text(
        "name: m\n"
        "alternatives:\n"
        "  anyOf:\n"
        "    - id: a\n"
        "      tools: &shared\n"
        "        forbidden: [Bash]\n"
        "    - id: b\n"
        "      tools:\n"
        "        <<: *shared\n"
        "        maxCalls: 3\n"
    )
    # A merged key is written where its anchor is.
    assert rule_lines(str(merged)) == {
        "a/tools.forbidden[Bash]": 6,
        "b/tools.forbidden[Bash]": 6,
        "b/tools.maxCalls": 10,
    }
    assert rule_lines(str(tmp_path / "gone.json")) == {}


def test_places_are_read_as_compiling_writes_them() -> None:
    assert place_steps('alternatives.anyOf[1].tools.maxCallsPerTool["a.b[0]"]') == [
        "alternatives",
        "anyOf",
        1,
        "tools",
        "maxCallsPerTool",
        "a.b[0]",
    ]
    assert place_steps("rules[12]") == ["rules", 12]
    assert place_steps('tools["unterminated]') is None


def test_a_builtin_contract_is_a_logical_location_only(tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    args = ["check", recorded("forbidden"), "--contract", "builtin:no-shell", "--sarif", str(sarif)]
    assert main([*args, "-q"]) == ExitCode.FAILED
    (result,) = assert_valid(sarif_of(sarif))["results"]
    (location,) = result["locations"]
    assert "physicalLocation" not in location
    assert location["logicalLocations"] == [
        {
            "name": "tools.forbidden[run_shell]",
            "fullyQualifiedName": "builtin:no-shell#tools.forbidden[run_shell]",
        }
    ]


def test_a_contract_outside_the_current_directory_is_a_file_uri(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    sarif = tmp_path / "out.sarif"
    main(["check", recorded("forbidden"), "--contract", REFUND_DESK, "--sarif", str(sarif), "-q"])
    (result,) = assert_valid(sarif_of(sarif))["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": Path(REFUND_DESK).as_uri()}


def test_a_rule_that_cannot_be_evaluated_is_reported(tmp_path: Path) -> None:
    contract = tmp_path / "t.json"
    contract.write_text('{\n  "name": "x",\n  "tools": {\n    "maxCalls": 3\n  }\n}\n')
    trace = tmp_path / "span.json"
    span = {"traceId": "a" * 32, "spanId": "b" * 16, "name": "n"}
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    sarif = tmp_path / "out.sarif"
    args = ["check", str(trace), "--contract", str(contract), "--sarif", str(sarif), "-q"]
    assert main(args) == ExitCode.USAGE
    run = assert_valid(sarif_of(sarif))
    (result,) = run["results"]
    assert (result["ruleId"], result["kind"], result["level"]) == (
        "x/tools.maxCalls",
        "open",
        "none",
    )
    assert result["message"]["text"].startswith('rule "tools.maxCalls" could not be evaluated: ')
    assert "tool capture cannot be confirmed" in result["message"]["text"]
    assert region_line(result) == 4
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"] == [
        {
            "level": "error",
            "message": {
                "text": 'rule "tools.maxCalls" of contract "x" could not be evaluated on 1 trace'
            },
            "descriptor": {"id": "rule-error"},
            "associatedRule": {"id": "x/tools.maxCalls", "index": 0},
        }
    ]


def test_unread_inputs_are_notifications(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"resourceSpans": [')
    sarif = tmp_path / "out.sarif"
    args = ["check", str(broken), "--contract", REFUND_DESK, "--sarif", str(sarif)]
    assert main(args) == ExitCode.UNREADABLE
    run = assert_valid(sarif_of(sarif))
    assert run["results"] == []
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert notification["descriptor"] == {"id": "unreadable"}
    assert notification["message"]["text"].startswith(f"{broken}: ")
    location = notification["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": broken.as_uri()}


def test_no_secret_from_a_trace_or_a_contract_appears(tmp_path: Path) -> None:
    secret = "ghp_" + "x7Qz" * 9  # fake, built at run time
    forbidden_value = "sk-" + "live-" + "Q7f2Vx9Lm4Np8Rs1Tu6Wy3Za"  # fake, in the contract
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "deploy",
        "gen_ai.tool.call.arguments": json.dumps({"command": secret, "token": secret}),
        "deploy.api_key": secret,
    }
    span = {
        "traceId": "ab" * 16,
        "spanId": "2" * 16,
        "name": "execute_tool deploy",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }
    scope = {"scope": {"name": "opentelemetry.instrumentation.openai_agents"}, "spans": [span]}
    trace = tmp_path / "secret.otlp.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [scope]}]}))
    contract = tmp_path / "s.json"
    checks = [
        {"tool": "deploy", "pointer": "/command", "type": "number"},
        {"tool": "deploy", "pointer": "/token", "equals": forbidden_value},
        {"tool": "deploy", "pointer": "/command", "oneOf": ["a", forbidden_value]},
    ]
    contract.write_text(
        json.dumps({"name": "s", "tools": {"maxCalls": 0, "arguments": checks}}, indent=2)
    )
    sarif = tmp_path / "out.sarif"
    args = ["check", str(trace), "--contract", str(contract), "--sarif", str(sarif), "-q"]
    assert main(args) == ExitCode.FAILED
    data = sarif.read_bytes()
    run = assert_valid(json.loads(data))
    assert len(run["results"]) == 4
    assert secret.encode() not in data and forbidden_value.encode() not in data
    assert b"ghp_" not in data and b"sk-live" not in data


def test_sarif_on_stdout_keeps_the_summary_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", recorded("repeated-write"), "--contract", REFUND_DESK, "--sarif", "-"]
    assert main(args) == ExitCode.FAILED
    captured = capsys.readouterr()
    run = assert_valid(json.loads(captured.out))
    assert [result["ruleId"] for result in run["results"]] == ["refund-desk/retries"] * 2
    assert 'contract "refund-desk" FAIL' in captured.err
    assert main(["check", recorded("clean"), "--contract", REFUND_DESK, "--sarif", "-"]) == 0
    run = assert_valid(json.loads(capsys.readouterr().out))
    assert run["results"] == []


@pytest.mark.parametrize("other", ["--json", "--junit"])
def test_sarif_and_another_report_cannot_share_stdout(
    other: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["check", recorded("clean"), "--contract", REFUND_DESK, "--sarif", "-", other, "-"]
    assert main(args) == ExitCode.USAGE
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(f"--sarif - and {other} - both want stdout: send one of them to a file")
    )


def test_two_contracts_of_one_name_get_distinct_rule_ids(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text('{"name": "same", "tools": {"forbidden": ["run_shell"]}}')
    second.write_text('{"name": "same", "tools": {"forbidden": ["run_shell", "Bash"]}}')
    sarif = tmp_path / "out.sarif"
    args = ["check", recorded("forbidden"), "--contract", str(first), "--contract", str(second)]
    assert main([*args, "--sarif", str(sarif), "-q"]) == ExitCode.FAILED
    run = assert_valid(sarif_of(sarif))
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [
        "same/tools.forbidden[run_shell]",
        "same#2/tools.forbidden[run_shell]",
        "same#2/tools.forbidden[Bash]",
    ]
    assert [result["ruleIndex"] for result in run["results"]] == [0, 1]


def test_the_log_is_the_same_on_every_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    outputs = []
    for name in ("one.sarif", "two.sarif"):
        target = tmp_path / name
        args = ["check", recorded("repeated-write"), recorded("forbidden"), "-q"]
        main([*args, "--contract", REFUND_DESK, "--contract", MODEL_BUDGET, "--sarif", str(target)])
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]


TEXT = st.text(
    st.one_of(
        st.characters(),
        st.sampled_from(["\ud800", "\udc80", "\x00", "\x1b", "\n", "é", "😀", "\u202e"]),
    ),
    max_size=12,
)


@st.composite
def rules(draw: st.DrawFn) -> RuleResult:
    status = draw(st.sampled_from(["pass", "fail", "error", "skipped"]))
    violations: tuple[Violation, ...] = ()
    if status == "fail":
        violations = tuple(
            Violation(
                draw(st.none() | st.just("ab" * 8)),
                draw(TEXT),
                draw(st.none() | TEXT),
                draw(st.none() | TEXT),
            )
            for _ in range(draw(st.integers(0, 3)))
        )
    error = draw(TEXT) if status == "error" else None
    kind = draw(st.none() | st.sampled_from(["never", "argument", "run"]))
    return RuleResult(draw(TEXT), draw(st.none() | TEXT), status, violations, error, kind)


@st.composite
def verdicts(draw: st.DrawFn) -> CheckedTrace:
    drawn = tuple(draw(st.lists(rules(), max_size=4)))
    status = draw(st.sampled_from(["pass", "fail", "error"]))
    verdict = Verdict(draw(TEXT), draw(st.none() | TEXT), status, drawn, 0.5, draw(TEXT))
    sources = tuple(draw(st.lists(TEXT, max_size=3)))
    source = draw(st.none() | TEXT | st.just("builtin:no-shell") | st.just(REFUND_DESK))
    return CheckedTrace(draw(TEXT), source, verdict, 0.0, sources)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(verdicts(), max_size=4),
    st.lists(
        st.builds(ReadFailure, TEXT, st.sampled_from(["unreadable", "ambiguous"]), TEXT),
        max_size=2,
    ),
)
def test_any_verdicts_validate(items: list[CheckedTrace], failures: list[ReadFailure]) -> None:
    whole = render_sarif(items, failures, base="/work")
    run = assert_valid(whole)
    data = b"".join(sarif_parts(lambda: iter(items), failures, base="/work"))
    assert json.loads(data.decode("utf-8")) == whole
    expected = sum(
        max(1, len(rule.violations)) if rule.status == "fail" else rule.status == "error"
        for item in items
        for rule in item.verdict.rules
    )
    assert len(run["results"]) == expected


def test_one_trace_given_twice_gives_two_alerts(tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    binary = recorded("forbidden").replace(".otlp.jsonl", ".otlp.pb")
    args = [
        "check",
        recorded("forbidden"),
        binary,
        "--contract",
        REFUND_DESK,
        "--sarif",
        str(sarif),
    ]
    assert main([*args, "-q"]) == ExitCode.FAILED
    results = assert_valid(sarif_of(sarif))["results"]
    assert [result["properties"]["spanId"] for result in results] == ["4b1b907d90c3da97"] * 2
    assert len({result["partialFingerprints"][FINGERPRINT] for result in results}) == 2
