"""docs/architecture.md says what each package may import; the import graph holds to it: no
package imports a part of the product its row does not name, and every package has a row."""

from __future__ import annotations

import re
from pathlib import Path

import grimp

PAGE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
ROW = re.compile(r"^\| (`[^|]+`) \| [^|]+ \| ([^|]+) \|$")


def documented(text: str) -> dict[str, set[str]]:
    """Each package of the page's table and the parts it may import (short names, as the
    table writes them: `readers` for `tracecheck.readers`, `redact` for the core)."""
    allowed: dict[str, set[str]] = {}
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match is None:
            continue
        names = re.findall(r"`([^`]+)`", match.group(1))
        words = match.group(2).strip()
        may = set() if words == "(nothing)" else {w.strip() for w in words.split(",")}
        for name in names:
            allowed[name] = may
    return allowed


def part(module: str) -> str:
    """The part of the product a module belongs to, as the table names it."""
    pieces = module.split(".")
    if pieces[0] == "redact":
        return "redact.shipping" if pieces[1:2] == ["shipping"] else "redact"
    return ".".join(pieces[:2])


def short(name: str) -> str:
    return name.removeprefix("tracecheck.")


def imports_between_parts(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for module in graph.modules:
        if module == "tracecheck" or not module.startswith(("tracecheck.", "redact")):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            if imported == "tracecheck" or not imported.startswith(("tracecheck.", "redact")):
                continue
            if part(imported) != part(module):
                found.setdefault(part(module), set()).add(short(part(imported)))
    return found


def test_every_package_imports_only_what_the_page_allows() -> None:
    allowed = documented(PAGE.read_text(encoding="utf-8"))
    graph = grimp.build_graph("tracecheck", "redact", cache_dir=None)
    parts = {part(m) for m in graph.modules if m != "tracecheck"}
    assert parts - allowed.keys() == set(), "packages docs/architecture.md does not describe"
    wrong = {
        package: sorted(imported - allowed[package])
        for package, imported in imports_between_parts(graph).items()
        if package != "tracecheck.cli" and imported - allowed[package]
    }
    assert wrong == {}, "imports docs/architecture.md does not allow"


def test_the_table_is_read_as_written() -> None:
    table = (
        "| `a.b`, `a.c` | two helpers | (nothing) |\n"
        "| `a.d` | a reader | b, c, errors |\n"
        "not a row | `a.e` | x | y |\n"
    )
    assert documented(table) == {"a.b": set(), "a.c": set(), "a.d": {"b", "c", "errors"}}


def test_a_forbidden_import_is_found() -> None:
    graph = grimp.ImportGraph()
    graph.add_import(
        importer="tracecheck.readers.x",
        imported="tracecheck.check",
        line_number=1,
        line_contents="",
    )
    graph.add_import(
        importer="tracecheck.readers.x",
        imported="tracecheck.readers.y",
        line_number=2,
        line_contents="",
    )
    assert imports_between_parts(graph) == {"tracecheck.readers": {"check"}}


def test_the_redaction_core_contract_names_every_module_of_the_core() -> None:
    """import-linter's redaction-core contract lists its modules by name: a new module of the
    core that is not listed would be free to import the checker or the servers."""
    import configparser

    root = Path(__file__).resolve().parent.parent
    config = configparser.ConfigParser()
    config.read(root / ".importlinter")
    listed = set(config["importlinter:contract:redaction-core"]["source_modules"].split())
    core = {
        f"redact.{path.stem}" for path in (root / "redact").glob("*.py") if path.stem != "__init__"
    } | {"redact.detectors"}
    assert core - listed == set()
