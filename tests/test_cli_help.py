"""Every command's `--help` says what it does and lists its exit codes one per line."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from tracecheck.cli.app import build_parser


def _commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield sub
                yield from _commands(sub)


COMMANDS = {parser.prog: parser for parser in _commands(build_parser())}


def test_the_fleet_commands_are_among_those_read() -> None:
    assert {"tracecheck fleet check", "tracecheck fleet summarize", "tracecheck fleet compare"} <= (
        COMMANDS.keys()
    )


@pytest.mark.parametrize("prog", sorted(COMMANDS))
def test_a_command_says_what_it_does(prog: str) -> None:
    description = COMMANDS[prog].description
    assert description and len(description.split()) >= 5


@pytest.mark.parametrize("prog", sorted(COMMANDS))
def test_the_exit_codes_are_listed_one_per_line(prog: str) -> None:
    parser = COMMANDS[prog]
    if parser._subparsers is not None and prog != "tracecheck fleet":
        return  # a group of commands: each of its commands lists its own
    text = parser.format_help()
    assert "\nexit codes:\n  0  " in text
    table = text.split("\nexit codes:\n", 1)[1]
    codes = [line[2] for line in table.splitlines() if re.match(r"  [0-9]  ", line)]
    assert codes[0] == "0" and codes == sorted(codes)
