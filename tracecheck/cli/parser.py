"""A command's argument parser that names a misspelt option as such.

argparse reads `--contracts X` as an unknown word and then says only that `--contract` is
required, or, with `--contract` given, that `--jsn x` are "unrecognized arguments". A word
that looks like an option and is none of the command's is named first, with the option meant
when one is close.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from tracecheck.naming import did_you_mean

__all__ = ["CommandParser"]


class CommandParser(argparse.ArgumentParser):
    """`argparse.ArgumentParser` for one command: an unknown `--option` is the error."""

    _words: Sequence[str] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._words = list(sys.argv[1:] if args is None else args)
        parsed, extras = super().parse_known_args(args, namespace)
        unknown = self._unknown_option(extras)
        if unknown is not None:
            self.error(self._unknown_message(unknown))
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        # A required option is said to be missing when it was misspelt: say that instead.
        unknown = self._unknown_option(self._words)
        if unknown is not None and "required" in message:
            message = self._unknown_message(unknown)
        super().error(message)

    def _unknown_option(self, words: Sequence[str]) -> str | None:
        """The first word before `--` that is written as a long option and is none of this
        parser's, nor a prefix argparse would read as one of them."""
        known = self._long_options()
        for word in words:
            if word == "--":
                return None
            if not word.startswith("--"):
                continue
            option = word.split("=", 1)[0]
            if not any(name.startswith(option) for name in known):
                return option
        return None

    def _unknown_message(self, option: str) -> str:
        meant = did_you_mean(option, self._long_options())
        hint = f"; did you mean {meant}?" if meant is not None else ""
        return f"{option} is not an option of {self.prog}{hint}"

    def _long_options(self) -> list[str]:
        return [option for option in self._option_string_actions if option.startswith("--")]
