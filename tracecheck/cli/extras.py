"""What a command needs beyond the base install: the serving commands (`proxy`,
`ingest-server`, `ship`) run on the `serve` extra's uvicorn and httpx. A command whose extra is
missing says which to install and exits 2, before it reads an option or a file."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment
from tracecheck.distribution import install_hint

__all__ = ["SERVE", "missing", "require_extra"]

# The modules of the `serve` extra.
SERVE = ("uvicorn", "httpx")


def missing(modules: Sequence[str]) -> list[str]:
    """The modules, among these, that cannot be imported (found without importing them)."""
    return [name for name in modules if find_spec(name) is None]


def require_extra(env: Environment, subject: str, extra: str, modules: Sequence[str]) -> None:
    """Stop with exit 2 and `<subject> needs the <extra> extra: pip install '…[<extra>]'` on
    stderr when one of `modules` is not installed."""
    if missing(modules):
        env.error(f"{subject} needs the {extra} extra: {install_hint(extra)}")
        raise Stop(ExitCode.USAGE)
