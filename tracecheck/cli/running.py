"""`tracecheck.run` called with a command's options (`check`, `report`, `fleet check`): the
inputs as given (`-` is standard input), where the work runs, a progress line while an input
is read, and what stops the command (a scheduler that cannot be reached, a missing extra)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tracecheck.cli.codes import ExitCode, Stop
from tracecheck.cli.environment import Environment

if TYPE_CHECKING:
    from tracecheck.contract import Contract
    from tracecheck.run import InputOutcome, TaskKey, TraceResult

__all__ = ["FLEET", "WORTH_BYTES", "outcomes", "require_fleet", "storage_options"]

FLEET = ("dask", "distributed", "pyarrow", "fsspec")
# `check --jobs` reads inputs smaller than this (in bytes, together) in this process: starting
# the workers (about 0.2 s on the two-core machine of bench/README.md) costs more than half of
# reading and checking them (about 55 MB/s).
WORTH_BYTES = 16 << 20


def outcomes(
    env: Environment,
    args: argparse.Namespace,
    contracts: Sequence[Contract],
    *,
    jobs: int,
    timelines: str | None,
    failing_only: bool = False,
    rows: Callable[[Sequence[TraceResult]], Any] | None = None,
    task_key: TaskKey | None = None,
    part_bytes: int | None = None,
    each_input: bool = True,
) -> Iterator[InputOutcome]:
    """The outcome of each of `args.traces` in order, checked on the scheduler `args` names,
    on `jobs` local worker processes, or here; a scheduler that cannot be reached stops the
    command (exit 2). A local file of records larger than `part_bytes` is checked in parts
    (by default, those of `check_many`). With `each_input`, an input that takes long to read
    says so (`check`'s progress line)."""
    from tracecheck.report.safe import printable
    from tracecheck.run import ClusterLost, NamedStream, SchedulerAddressError, check_many
    from tracecheck.run.storage import is_remote

    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None or any(map(is_remote, args.traces)):
        require_fleet(env, _subject(args))
    inputs = [NamedStream(env.stdin.buffer) if source == "-" else source for source in args.traces]
    try:
        yield from check_many(
            inputs,
            contracts,
            scheduler=scheduler,
            jobs=jobs,
            format=args.format,
            capture=args.capture,
            trace_id=args.trace_id,
            storage_options=storage_options(env, args.storage_option),
            timelines=timelines,
            failing_only=failing_only,
            rows=rows,
            task_key=task_key,
            progress=(lambda name, size: _progress(env, name, size)) if each_input else None,
            read=env.read,
            check=env.check,
            **({} if part_bytes is None else {"part_bytes": part_bytes}),
        )
    except SchedulerAddressError as exc:
        env.error(
            f"--scheduler {printable(scheduler or '')}: not an address Dask connects to "
            f"({printable(str(exc))})"
        )
        raise Stop(ExitCode.USAGE) from None
    except ClusterLost as exc:
        env.error(f"the Dask cluster at {printable(scheduler or '')} is lost: {exc}")
        raise Stop(ExitCode.UNREADABLE) from None
    except (OSError, TimeoutError) as exc:
        if scheduler is None:
            raise
        env.error(
            f"the Dask scheduler at {printable(scheduler)} cannot be reached "
            f"({exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__})"
        )
        raise Stop(ExitCode.USAGE) from None


def _subject(args: argparse.Namespace) -> str:
    if getattr(args, "fleet", None):
        return f"tracecheck fleet {args.fleet}"
    return "check --scheduler" if getattr(args, "scheduler", None) else "check of an fsspec URL"


def _progress(env: Environment, name: str, size: int) -> Any:
    from tracecheck.cli.inputs import Progress

    return Progress(name, size, env.stderr, env.progress_bytes, env.progress_seconds)


def require_fleet(env: Environment, subject: str) -> None:
    """Stop with exit 2, naming the `fleet` extra, when Dask, pyarrow or fsspec is missing."""
    from tracecheck.cli.extras import require_extra

    require_extra(env, subject, "fleet", FLEET)


def storage_options(env: Environment, pairs: Iterable[str]) -> dict[str, Any]:
    """`--storage-option KEY=VALUE` as fsspec takes them (values as JSON when they parse:
    `anon=true`, `client_kwargs={"region_name": "eu-west-1"}`)."""
    import json

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            env.error(f"--storage-option needs KEY=VALUE, not {pair.partition('=')[0]!r}…")
            raise Stop(ExitCode.USAGE)
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options
