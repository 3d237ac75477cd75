"""`tracecheck contracts`: the ready-made contracts installed with tracecheck (`builtin:NAME`)."""

from __future__ import annotations

import argparse

from tracecheck.cli.codes import ExitCode
from tracecheck.cli.environment import Environment

__all__ = ["add_parser", "run"]

SUMMARY = "list the ready-made contracts (--contract builtin:NAME)"
DESCRIPTION = (
    "List the ready-made contracts installed with tracecheck, one per line: the name to pass\n"
    "as --contract builtin:NAME (to check, lint and explain; also to compile_contract,\n"
    "assert_contract and the trace_contract marker), then what it asks of a run."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json",
        action="store_true",
        help="print JSON (version 1) on stdout: each contract's name, reference, description "
        "and file, and the file of their JSON Schema",
    )
    output.add_argument(
        "--schema",
        action="store_true",
        help="print the contracts' JSON Schema (contract.schema.json) on stdout",
    )


def run(args: argparse.Namespace, env: Environment) -> ExitCode:
    import json

    from tracecheck.cli.output import print_parts
    from tracecheck.contract.builtin import schema_path
    from tracecheck.contract.catalogue import builtin_contracts

    if args.schema:
        print_parts(
            [schema_path().read_text(encoding="utf-8").rstrip("\n")], env.stdout, env.stdout
        )
        return ExitCode.OK
    contracts = builtin_contracts()
    if args.json:
        document = {
            "version": 1,
            "contracts": [
                {
                    "name": contract.name,
                    "ref": contract.ref,
                    "description": contract.description,
                    "path": str(contract.path),
                }
                for contract in contracts
            ],
            "schema": str(schema_path()),
        }
        print_parts([json.dumps(document, indent=2, ensure_ascii=False)], env.stdout, env.stdout)
        return ExitCode.OK
    width = max((len(contract.name) for contract in contracts), default=0)
    lines = [f"{contract.name:<{width}}  {contract.description}".rstrip() for contract in contracts]
    if lines:
        print_parts(["\n".join(lines)], env.stdout, env.stdout)
    return ExitCode.OK
