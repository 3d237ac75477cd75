"""`tracecheck lint`: contradictions (errors) and likely mistakes (warnings) in contracts."""

from __future__ import annotations

import argparse

from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment

__all__ = ["add_parser", "run"]

SUMMARY = "report contradictions and likely mistakes"
DESCRIPTION = (
    "Report what in each contract (a JSON or YAML file, or builtin:NAME) contradicts itself "
    "(errors: no run could pass) or is likely a mistake (warnings), one finding per line with "
    "its place and code. A contract that does not compile is reported as check reports it."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("contracts", nargs="+", metavar="CONTRACT")


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    from tracecheck.contract.builtin import contract_source
    from tracecheck.contract.lint import is_json_schema, lint_contract
    from tracecheck.errors import ContractError

    code = ExitCode.OK
    for path in args.contracts:
        if is_json_schema(path):  # `lint contracts/*.json` meets contract.schema.json
            print(f"{path}: skipped: a JSON Schema, not a contract", file=env.stdout)
            continue
        try:
            findings = lint_contract(contract_source(path))
        except ContractError as exc:
            env.error(str(exc))
            code = ExitCode.USAGE
            continue
        for finding in findings:
            where = f"{path}: {finding.path}" if finding.path else path
            print(f"{where}: {finding.level} [{finding.code}] {finding.message}", file=env.stdout)
            if finding.level == "error":
                code = ExitCode.USAGE
        if not findings:
            print(f"{path}: no findings", file=env.stdout)
    return code
