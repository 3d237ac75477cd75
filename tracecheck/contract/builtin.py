"""The ready-made contracts installed with tracecheck, addressed as `builtin:NAME`.

`--contract builtin:no-shell` (check, lint, explain), `compile_contract("builtin:no-shell")`,
`assert_contract(trace, "builtin:no-shell")` and `@pytest.mark.trace_contract("builtin:no-shell")`
all read the same file, wherever tracecheck is installed. The source of the contracts and of their
JSON Schema is the repository's `contracts/` folder; the wheel carries it as
`tracecheck/contracts/` (pyproject.toml, force-include). A source tree or an editable install has
no such folder inside the package and reads the checkout's `contracts/` instead.
"""

from __future__ import annotations

from pathlib import Path

from tracecheck.errors import ContractError, ContractProblem

__all__ = [
    "PREFIX",
    "builtin_files",
    "builtin_names",
    "builtin_path",
    "contract_source",
    "contracts_folder",
    "is_builtin",
    "schema_path",
]

PREFIX = "builtin:"
SCHEMA = "contract.schema.json"
_SUFFIXES = (".json", ".yaml", ".yml")
_PACKAGE = Path(__file__).resolve().parent.parent


def contracts_folder() -> Path:
    """The folder of the ready-made contracts: in the package when installed from a wheel,
    else the checkout's `contracts/`."""
    packaged = _PACKAGE / "contracts"
    if (packaged / SCHEMA).is_file():
        return packaged
    return _PACKAGE.parent / "contracts"


def schema_path() -> Path:
    """The contracts' JSON Schema (`contract.schema.json`)."""
    return contracts_folder() / SCHEMA


def is_builtin(source: object) -> bool:
    """Whether `source` names a ready-made contract (`builtin:NAME`)."""
    return isinstance(source, str) and source.startswith(PREFIX)


def builtin_files() -> dict[str, Path]:
    """The file of each ready-made contract by its name, sorted by name."""
    folder = contracts_folder()
    try:
        found = sorted(folder.iterdir())
    except OSError:
        return {}
    return {
        path.name.rsplit(".", 1)[0]: path
        for path in found
        if path.suffix in _SUFFIXES and path.name != SCHEMA and path.is_file()
    }


def builtin_names() -> list[str]:
    """The names of the ready-made contracts, sorted."""
    return list(builtin_files())


def builtin_path(ref: str) -> Path:
    """The file of `builtin:NAME`; ContractError names the ones there are when it is unknown."""
    name = ref.removeprefix(PREFIX)
    files = builtin_files()
    if name in files:
        return files[name]
    from tracecheck.naming import did_you_mean

    suggestion = did_you_mean(name, list(files))
    hint = f' — did you mean "{PREFIX}{suggestion}"?' if suggestion else ""
    message = (
        f"no ready-made contract of that name{hint} "
        f"(there are: {', '.join(files) or 'none'}; `tracecheck contracts` lists them)"
    )
    raise ContractError([ContractProblem("", message)], source=ref)


def contract_source(text: str) -> str | Path:
    """What a command line's contract argument names: a ready-made contract (`builtin:NAME`,
    which the loader resolves) or a file, never inline text."""
    return text if is_builtin(text) else Path(text)
