"""No module imports in a circle (issue 29): the import graph of `tracecheck` and `redact` has no
strongly connected component of more than one module.

A circle makes the order modules load in matter, and makes every module on it depend on every
other. Imports inside functions and under `TYPE_CHECKING` count (grimp counts them): the circle
is still there, only hidden until the import runs. A failure names each circle with a shortest
chain of imports that makes it, `module:line`, so that the reader sees which import to cut.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from itertools import pairwise

import grimp


def circles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """Every strongly connected component of `graph` of more than one module, in a stable order.

    Tarjan's algorithm, kept iterative: a chain of imports can be longer than Python's
    recursion limit is deep."""
    order: dict[str, int] = {}  # when each module was first reached
    low: dict[str, int] = {}  # the earliest module still on the stack it reaches
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def reach(module: str) -> tuple[str, Iterator[str]]:
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        return module, iter(sorted(graph.find_modules_directly_imported_by(module)))

    for root in sorted(graph.modules):
        if root in order:
            continue
        path = [reach(root)]
        while path:
            module, imported = path[-1]
            for other in imported:
                if other not in order:
                    path.append(reach(other))
                    break
                if other in on_stack:
                    low[module] = min(low[module], order[other])
            else:  # every module it imports is done
                path.pop()
                if path:
                    parent = path[-1][0]
                    low[parent] = min(low[parent], low[module])
                if low[module] == order[module]:
                    component = _pop_to(stack, on_stack, module)
                    if len(component) > 1:
                        found.append(component)
    return sorted(found, key=sorted)


def _pop_to(stack: list[str], on_stack: set[str], module: str) -> frozenset[str]:
    """The modules on `stack` down to `module`, taken off it: one component."""
    taken: set[str] = set()
    while module not in taken:
        top = stack.pop()
        on_stack.discard(top)
        taken.add(top)
    return frozenset(taken)


def shortest_circle(graph: grimp.ImportGraph, component: frozenset[str]) -> list[str]:
    """A shortest chain of imports around `component`, one `importer:line imports imported` per
    import (the first of equally short ones in module order).

    The way back from the module an import reaches to the module importing it stays within the
    component (every module on it reaches and is reached from both), so it is searched there."""
    best: list[str] | None = None
    for importer in sorted(component):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & component):
            back = _shortest_path(graph, imported, importer, component)
            if back is not None and (best is None or len(back) + 1 < len(best)):
                best = [importer, *back]
    assert best is not None, f"{sorted(component)} is not a circle"
    return [_step(graph, a, b) for a, b in pairwise(best)]


def _shortest_path(
    graph: grimp.ImportGraph, start: str, end: str, within: frozenset[str]
) -> list[str] | None:
    """The modules of a shortest chain of imports from `start` to `end` inside `within`
    (breadth first)."""
    came_from: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        if module == end:
            chain = [module]
            while (previous := came_from[chain[-1]]) is not None:
                chain.append(previous)
            return chain[::-1]
        for other in sorted(graph.find_modules_directly_imported_by(module) & within):
            if other not in came_from:
                came_from[other] = module
                queue.append(other)
    return None


def _step(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    """One import of a chain, where it is written (its first line, of several; a graph made up
    in a test may not say)."""
    details = graph.get_import_details(importer=importer, imported=imported)
    lines = sorted(d["line_number"] for d in details if d["line_number"] is not None)
    where = f"{importer}:{lines[0]}" if lines else importer
    return f"{where} imports {imported}"


def problems(graph: grimp.ImportGraph, found: Iterable[frozenset[str]]) -> list[str]:
    """What the test reports: each circle with its shortest chain."""
    reported = []
    for component in found:
        chain = "\n".join(f"  {step}" for step in shortest_circle(graph, component))
        reported.append(
            f"{len(component)} modules import one another in a circle: "
            f"{', '.join(sorted(component))}\na shortest circle among them:\n{chain}\n"
            "cut one of these imports"
        )
    return reported


def made_up(*imports: tuple[str, str, int | None]) -> grimp.ImportGraph:
    """A graph of the imports given as (importer, imported, line)."""
    graph = grimp.ImportGraph()
    for importer, imported, line in imports:
        graph.add_import(
            importer=importer,
            imported=imported,
            line_number=line,
            line_contents=None if line is None else f"import {imported}",
        )
    return graph


def test_no_module_imports_in_a_circle() -> None:
    graph = grimp.build_graph("tracecheck", "redact", cache_dir=None)
    reported = problems(graph, circles(graph))
    assert not reported, "\n\n".join(reported)


def test_circles_are_found_with_a_shortest_chain() -> None:
    graph = made_up(
        ("pkg.a", "pkg.b", 3),
        ("pkg.b", "pkg.c", 4),
        ("pkg.c", "pkg.a", 5),
        ("pkg.b", "pkg.a", 9),  # the shorter way round
        ("pkg.b", "pkg.a", 7),  # the same import again, on an earlier line
        ("pkg.c", "pkg.d", 6),
        ("pkg.d", "pkg.e", 1),
        ("pkg.e", "pkg.d", None),
    )
    found = circles(graph)
    assert found == [frozenset({"pkg.a", "pkg.b", "pkg.c"}), frozenset({"pkg.d", "pkg.e"})]
    assert shortest_circle(graph, found[0]) == ["pkg.a:3 imports pkg.b", "pkg.b:7 imports pkg.a"]
    assert problems(graph, found) == [
        "3 modules import one another in a circle: pkg.a, pkg.b, pkg.c\n"
        "a shortest circle among them:\n"
        "  pkg.a:3 imports pkg.b\n"
        "  pkg.b:7 imports pkg.a\n"
        "cut one of these imports",
        "2 modules import one another in a circle: pkg.d, pkg.e\n"
        "a shortest circle among them:\n"
        "  pkg.d:1 imports pkg.e\n"
        "  pkg.e imports pkg.d\n"
        "cut one of these imports",
    ]


def test_an_acyclic_graph_has_no_circle() -> None:
    # A diamond: two ways to one module is not a circle.
    graph = made_up(
        ("pkg", "pkg.a", 1), ("pkg", "pkg.b", 2), ("pkg.a", "pkg.c", 3), ("pkg.b", "pkg.c", 4)
    )
    assert circles(graph) == []
    assert problems(graph, []) == []


def test_a_circle_longer_than_the_recursion_limit_is_found() -> None:
    names = [f"pkg.m{n}" for n in range(5000)]
    graph = made_up(*((a, b, 1) for a, b in zip(names, [*names[1:], names[0]], strict=True)))
    assert circles(graph) == [frozenset(names)]
