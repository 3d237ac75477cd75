"""Every documented name imports: the `from … import …` and `import …` lines of the code blocks in
README.md and docs/, every name in the `__all__` of the public packages (and of every module the
documentation imports from), the `tracecheck` console script and the pytest plugin's entry point.
A module moved without its documentation fails here, naming the page and line."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "agent-tracecheck"
# The project's import packages: imports of anything else in the documentation are not ours.
PACKAGES = ("tracecheck", "redact")
# Public whatever the documentation shows (DESIGN.md, "Public API"; the pages of docs/).
PUBLIC = (
    "tracecheck",
    "redact",
    "tracecheck.cli",
    "tracecheck.contract",
    "tracecheck.diff",
    "tracecheck.fleet",
    "tracecheck.init",
    "tracecheck.report",
    "tracecheck.testing",
    "redact.otel",
    "redact.shipping",
)

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")
_IMPORT = re.compile(r"^(?:from|import)\s+(?:" + "|".join(PACKAGES) + r")\b")


@dataclass(frozen=True, slots=True)
class Documented:
    """One imported name as a page shows it: `from module import name`, or `import module`
    (`name` None), at `line` of `page`."""

    page: str
    line: int
    module: str
    name: str | None

    def __str__(self) -> str:
        shown = self.module if self.name is None else f"{self.module}.{self.name}"
        return f"{self.page}:{self.line} {shown}"


def code_blocks(markdown: str) -> Iterator[tuple[int, list[str]]]:
    """Each fenced code block (``` or ~~~, indented in a list or an admonition too) as the
    number of its first line and its lines, dedented. An unclosed block runs to the end."""
    lines = markdown.splitlines()
    start, fence, block = 0, "", None
    for number, line in enumerate(lines, 1):
        found = _FENCE.match(line)
        if block is None:
            if found:
                start, fence, block = number + 1, found["fence"], []
        elif (
            found
            and found["fence"][0] == fence[0]
            and len(found["fence"]) >= len(fence)
            and (line.strip() == found["fence"])
        ):
            yield start, textwrap.dedent("\n".join(block)).splitlines()
            block = None
        else:
            block.append(line)
    if block is not None:
        yield start, textwrap.dedent("\n".join(block)).splitlines()


def import_statements(lines: list[str]) -> Iterator[tuple[int, str]]:
    """The imports of the project in a block's lines (a doctest's `>>> ` too), with their index:
    one line, or the lines up to the closing parenthesis or past the backslashes that continue
    it, joined without their comments."""
    index = 0
    while index < len(lines):
        first = index
        statement = _code(lines[index])
        index += 1
        if not _IMPORT.match(statement):
            continue
        while index < len(lines) and (
            statement.count("(") > statement.count(")") or statement.endswith("\\")
        ):
            statement = statement.removesuffix("\\").rstrip() + " " + _code(lines[index])
            index += 1
        yield first, statement


def _code(line: str) -> str:
    """A line without its doctest prompt and its comment (an import holds no `#` of its own)."""
    line = line.strip()
    for prompt in (">>> ", "... "):
        line = line.removeprefix(prompt)
    return line.split("#", 1)[0].strip()


def documented_names(markdown: str, page: str) -> list[Documented]:
    """What the code blocks of a page import from tracecheck and redact. Raises SyntaxError,
    naming the page and line, for an import of theirs that is not Python."""
    found: list[Documented] = []
    for start, lines in code_blocks(markdown):
        for index, statement in import_statements(lines):
            line = start + index
            try:
                (node,) = ast.parse(statement).body
            except SyntaxError as exc:
                raise SyntaxError(f"{page}:{line}: {statement!r} is not an import") from exc
            if isinstance(node, ast.ImportFrom) and node.module:
                found += [Documented(page, line, node.module, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                found += [Documented(page, line, a.name, None) for a in node.names]
    return found


def documentation() -> list[Documented]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [
        name
        for page in pages
        for name in documented_names(
            page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix()
        )
    ]


DOCUMENTED = documentation()


def resolve(module: str, name: str) -> object:
    """`from module import name` as Python does it: an attribute (lazy ones included), else a
    submodule. Raises ImportError when it is neither."""
    imported = importlib.import_module(module)
    try:
        return getattr(imported, name)
    except AttributeError:
        try:
            return importlib.import_module(f"{module}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{module}.{name}":
                raise  # the submodule is there; something it imports is not
            raise ImportError(f"cannot import name {name!r} from {module!r}") from None


# The collector, on a made-up page.

PAGE = """\
Prose is no code: from tracecheck import not_in_a_block

```python
import json
from tracecheck import read_traces, check as run_check  # aliases keep the imported name
from redact.otel import (
    RedactingSpanExporter,  # a comment
)
import tracecheck.diff, redact
```

1. In a list:

    ~~~py
    def test_it():
        from tracecheck.testing import assert_contract
    ~~~

````markdown
```python
from tracecheck.fleet import \\
    check_many
```
````

```sh
pip install agent-tracecheck
```

```pycon
>>> from redact import (
...     assess,
... )
```
"""


def test_the_collector_reads_imports_in_code_blocks_only() -> None:
    assert [(d.line, d.module, d.name) for d in documented_names(PAGE, "made-up.md")] == [
        (5, "tracecheck", "read_traces"),
        (5, "tracecheck", "check"),
        (6, "redact.otel", "RedactingSpanExporter"),
        (9, "tracecheck.diff", None),
        (9, "redact", None),
        (16, "tracecheck.testing", "assert_contract"),
        (21, "tracecheck.fleet", "check_many"),
        (31, "redact", "assess"),
    ]
    assert str(documented_names(PAGE, "made-up.md")[0]) == "made-up.md:5 tracecheck.read_traces"


def test_the_collector_refuses_an_import_that_is_not_python() -> None:
    with pytest.raises(SyntaxError, match=r"^made-up\.md:2: 'from tracecheck import' is not"):
        documented_names("```\nfrom tracecheck import\n```\n", "made-up.md")


def test_the_collector_reads_an_unclosed_block_to_the_end() -> None:
    assert documented_names("text\n```\nimport redact\n", "made-up.md") == [
        Documented("made-up.md", 3, "redact", None)
    ]


def test_the_documentation_shows_the_main_imports() -> None:
    """The collector finds the pages' imports (an empty list would pass every test below)."""
    modules = {documented.module for documented in DOCUMENTED}
    assert {"tracecheck", "redact", "tracecheck.testing"} <= modules
    assert "README.md" in {documented.page for documented in DOCUMENTED}


# The documentation's imports.


@pytest.mark.parametrize("documented", DOCUMENTED, ids=str)
def test_a_documented_import_resolves(documented: Documented) -> None:
    if documented.name is None:
        importlib.import_module(documented.module)
    elif documented.name == "*":
        module = importlib.import_module(documented.module)
        assert hasattr(module, "__all__"), (
            f"{documented}: a star import of a module without __all__"
        )
    else:
        resolve(documented.module, documented.name)


@pytest.mark.parametrize(
    "documented", [d for d in DOCUMENTED if d.name not in (None, "*")], ids=str
)
def test_a_documented_name_is_advertised(documented: Documented) -> None:
    """A name the documentation imports is in its module's `__all__` (or is a submodule)."""
    assert documented.name is not None
    module = importlib.import_module(documented.module)
    if isinstance(resolve(documented.module, documented.name), ModuleType):
        return
    assert documented.name in getattr(module, "__all__", ()), (
        f"{documented}: documented, but not in {documented.module}.__all__"
    )


# The public packages' names.

MODULES = sorted({*PUBLIC, *(documented.module for documented in DOCUMENTED)})


@pytest.mark.parametrize("module", MODULES)
def test_every_advertised_name_resolves(module: str) -> None:
    imported = importlib.import_module(module)
    advertised = getattr(imported, "__all__", None)
    assert advertised is not None, f"{module} is public and has no __all__"
    assert len(set(advertised)) == len(advertised), f"{module}.__all__ repeats a name"
    missing = []
    for name in advertised:
        try:
            resolve(module, name)
        except ImportError:
            missing.append(name)
    assert not missing, f"{module}.__all__ names what it does not hold: {missing}"


# The entry points: installed, and as pyproject.toml declares them.


def ours(group: str) -> dict[str, EntryPoint]:
    return {
        point.name: point
        for point in entry_points(group=group)
        if point.dist is not None and point.dist.name == DISTRIBUTION
    }


def declared(group: str) -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    table = project["scripts"] if group == "console_scripts" else project["entry-points"][group]
    return dict(table)


@pytest.mark.parametrize("group", ["console_scripts", "pytest11"])
def test_the_installed_entry_points_are_the_declared_ones(group: str) -> None:
    installed = {name: point.value for name, point in ours(group).items()}
    assert installed == declared(group), (
        "the installed metadata is stale: pip install -e . (pyproject.toml declares "
        f"{declared(group)})"
    )


@pytest.mark.parametrize("group", ["console_scripts", "pytest11"])
def test_every_declared_entry_point_loads(group: str) -> None:
    for name, value in declared(group).items():
        assert EntryPoint(name, value, group).load() is not None, (group, name, value)


def test_the_console_script_runs() -> None:
    main = ours("console_scripts")["tracecheck"].load()
    assert callable(main)
    script = Path(sysconfig.get_path("scripts")) / "tracecheck"
    if sys.platform == "win32":
        script = script.with_suffix(".exe")
    assert script.is_file(), f"{script} is not installed"
    done = subprocess.run([script, "--version"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout.split()[:1]) == (0, ["tracecheck"]), done.stderr


def test_the_pytest_plugin_loads_by_its_entry_point(pytestconfig: pytest.Config) -> None:
    """Loaded by name, wherever its module lives; the plugin pytest registered in this run (when
    autoloading is on) is that module."""
    plugin = ours("pytest11")["tracecheck"].load()
    assert isinstance(plugin, ModuleType)
    assert any(name.startswith("pytest_") for name in vars(plugin)), plugin.__name__
    registered = pytestconfig.pluginmanager.get_plugin("tracecheck")
    assert registered is None or registered is plugin


def test_a_moved_name_does_not_resolve() -> None:
    """What a page importing a module that has moved (the gate, now in tracecheck.sharing) meets."""
    with pytest.raises(ImportError, match=r"^cannot import name 'verify_safe' from 'tracecheck'$"):
        resolve("tracecheck", "verify_safe")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tracecheck.verify_safe")
