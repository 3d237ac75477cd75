"""Where each rule of a contract file is written: the line a report can point an editor at.

Compiling keeps, for every rule, the place in the document it came from (`tools.required[0]`,
`alternatives.anyOf[1].rules[2]`, `tools.maxCallsPerTool["Read"]`; `compile.path_rules`).
`rule_lines` follows that place through the file's node tree, which PyYAML composes with the
marks of every node (JSON is YAML 1.2, read with the same YAML 1.2 loader the contract was),
and gives the line of the key that names the rule, or of the list item that is the rule. A
place that cannot be followed (a file that no longer reads, JSON PyYAML cannot compose) has no
line rather than a guessed one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tracecheck.contract.builtin import builtin_path, is_builtin
from tracecheck.contract.compile import compile_spec, path_rules
from tracecheck.contract.load import load_document
from tracecheck.errors import ContractError, ContractProblem

if TYPE_CHECKING:
    import yaml

__all__ = ["located", "place_steps", "refusal", "rule_lines", "rule_places"]

# One step of a place: `.key` (or a leading `key`), `[index]`, or `["quoted key"]`.
_STEP = re.compile(r'\.?([^.\[\]"]+)|\[([0-9]+)\]|\[("(?:[^"\\]|\\.)*")\]')
_MERGE = "tag:yaml.org,2002:merge"


def rule_places(doc: object) -> dict[str, str]:
    """Each rule of a parsed contract document by the label a verdict reports it under
    (`<alternative id>/<label>` inside an alternative) -> its place in the document."""
    spec, _ = compile_spec(doc)
    if spec is None:
        return {}
    places: dict[str, str] = {}
    for path in [spec.base, *(spec.alternatives or ())]:
        for compiled in path_rules(path):
            label = compiled.rule.label
            places.setdefault(f"{path.id}/{label}" if path.id else label, compiled.where)
    return places


def rule_lines(source: str | os.PathLike[str]) -> dict[str, int]:
    """Each rule of the contract file `source` (or `builtin:NAME`) by its reported label ->
    the line (1-based) it is written on. Labels whose line cannot be found are left out; a
    file that cannot be read or composed gives no lines."""
    try:
        path = builtin_path(str(source)) if is_builtin(source) else Path(source)
        doc, _ = load_document(path)
        text = path.read_bytes().decode("utf-8-sig")
    except (ContractError, OSError, UnicodeDecodeError, ValueError):  # ValueError: a NUL
        return {}
    root = _compose(text)
    if root is None:
        return {}
    lines: dict[str, int] = {}
    for label, where in rule_places(doc).items():
        line = _line(root, where)
        if line is not None:
            lines[label] = line
    return lines


def place_steps(where: str) -> list[str | int] | None:
    """`alternatives.anyOf[0].tools.maxCallsPerTool["a.b"]` as keys and indexes; None when
    it is not a place compiling writes."""
    steps: list[str | int] = []
    at = 0
    while at < len(where):
        match = _STEP.match(where, at)
        if match is None or match.end() == at:
            return None
        key, index, quoted = match.groups()
        if index is not None:
            steps.append(int(index))
        elif quoted is not None:
            steps.append(str(json.loads(quoted)))
        else:
            steps.append(key)
        at = match.end()
    return steps


def _compose(text: str) -> yaml.Node | None:
    import yaml

    from tracecheck.yaml12 import Yaml12Loader

    if text.lstrip().startswith(("{", "[")):
        # JSON may indent with tabs, which YAML refuses; outside strings (the only place
        # JSON allows a raw tab) a space keeps every line and column where it was.
        text = text.replace("\t", " ")
    try:
        return yaml.compose(text, Loader=Yaml12Loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def refusal(problems: Sequence[ContractProblem], source: str | None) -> ContractError:
    """The error that refuses a contract: its problems, each at its line and column in the
    file `source` (`located`)."""
    return located(ContractError(list(problems), source=source))


def located(error: ContractError) -> ContractError:
    """`error` with each problem's line and column in its file, where its place can be
    followed there; as it is for a contract that is not a file, or a file that no longer
    reads or composes."""
    if error.source is None:
        return error
    try:
        path = builtin_path(error.source) if is_builtin(error.source) else Path(error.source)
        text = path.read_bytes().decode("utf-8-sig")
    except (ContractError, OSError, UnicodeDecodeError, ValueError):
        return error
    root = _compose(text)
    if root is None:
        return error
    problems = []
    for problem in error.problems:
        mark = _mark(root, problem.path) if problem.path else None
        if mark is not None:
            problem = replace(problem, line=int(mark.line) + 1, column=int(mark.column) + 1)
        problems.append(problem)
    return ContractError(problems, source=error.source)


def _line(root: yaml.Node, where: str) -> int | None:
    mark = _mark(root, where)
    return None if mark is None else int(mark.line) + 1


def _mark(root: yaml.Node, where: str) -> yaml.Mark | None:
    """Where the key or list item `where` ends at is written, following it from `root`."""
    steps = place_steps(where)
    if not steps:
        return None
    node = root
    mark_node = root
    for step in steps:
        found = _child(node, step)
        if found is None:
            return None
        mark_node, node = found
    return mark_node.start_mark


def _child(node: yaml.Node, step: str | int) -> tuple[yaml.Node, yaml.Node] | None:
    """The node that names `step` in `node` (a key, or the item itself) and its value."""
    import yaml

    if isinstance(step, int):
        if isinstance(node, yaml.SequenceNode) and step < len(node.value):
            item = node.value[step]
            return item, item
        return None
    if isinstance(node, yaml.MappingNode):
        for key, value in _members(node, set()):
            if isinstance(key, yaml.ScalarNode) and key.value == step:
                return key, value
    return None


def _members(node: yaml.MappingNode, seen: set[int]) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    """A mapping's own members, then those a `<<` merge brings in (as the loader reads them:
    an own key wins). A mapping reached twice through aliases is read once."""
    import yaml

    if id(node) in seen:
        return
    seen.add(id(node))
    merged: list[yaml.Node] = []
    for key, value in node.value:
        if key.tag == _MERGE:
            merged += value.value if isinstance(value, yaml.SequenceNode) else [value]
        else:
            yield key, value
    for source in merged:
        if isinstance(source, yaml.MappingNode):
            yield from _members(source, seen)
