"""`tracecheck explain`: what a contract checks, one line per compiled rule."""

from __future__ import annotations

import argparse

from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment

__all__ = ["add_parser", "run"]

SUMMARY = "say in words what a contract checks"
DESCRIPTION = (
    "Say in words what a contract (a JSON or YAML file, or builtin:NAME) checks: one line per "
    "compiled rule, under the label a failure reports it by."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("contract", metavar="CONTRACT")


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    from tracecheck.contract.builtin import contract_source
    from tracecheck.contract.explain import explain_contract
    from tracecheck.errors import ContractError

    try:
        print(explain_contract(env.compiler()(contract_source(args.contract))), file=env.stdout)
    except ContractError as exc:
        env.error(str(exc))
        return ExitCode.USAGE
    return ExitCode.OK
