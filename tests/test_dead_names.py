"""No module-level name that nothing uses (issue 34: `writers/jaeger.py` kept two layout tuples
that no code, test or page read, and `redact/scan.py` a function nobody called).

A name defined at the top of a module in `tracecheck/` or `redact/` must be named once more
somewhere: in its own module, another module, a test, a benchmark, an example, a fixture's script or
the documentation. Counting words is coarse (a name in a comment counts), but it finds the plain
case, a constant or function left behind when its last user went, at no cost.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tracecheck", "redact")
# Where a name may be used: code, tests, benchmarks, examples, fixture scripts, documentation.
READERS = (*PACKAGES, "tests", "bench", "examples", "fixtures", "docs", "contracts", ".ci")
TEXT = frozenset({".py", ".md", ".toml", ".yaml", ".yml", ".txt", ".json", ""})
LARGEST = 2_000_000  # recorded traces and benchmark workloads name no function
# pytest calls the plugin's hooks by their names: nothing else needs to.
CALLED_BY_NAME = re.compile(r"pytest_[a-z_]+")

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _texts() -> dict[Path, str]:
    paths = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in READERS:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in TEXT and path.is_file() and path.stat().st_size < LARGEST:
                paths.append(path)
    return {path: path.read_text(encoding="utf-8", errors="replace") for path in paths}


def _defined(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return [name for name in names if not name.startswith("__")]


def _unused(texts: dict[Path, str]) -> list[str]:
    """`path: name` for each module-level name of the packages' modules that no text but its
    definition names."""
    words: Counter[str] = Counter()
    for text in texts.values():
        words.update(_WORD.findall(text))
    return [
        f"{path.relative_to(ROOT)}: {name}"
        for path, text in sorted(texts.items())
        if path.suffix == ".py" and path.relative_to(ROOT).parts[0] in PACKAGES
        for name in _defined(ast.parse(text))
        if words[name] == 1 and not CALLED_BY_NAME.fullmatch(name)
    ]


def test_every_module_level_name_is_used_somewhere() -> None:
    texts = _texts()
    assert len(texts) > 500  # the repository was read, not an empty folder
    assert _unused(texts) == []


def test_a_name_defined_and_never_used_is_found() -> None:
    module = ROOT / "tracecheck" / "writers" / "made_up.py"
    texts = {
        module: (
            "LAYOUTS = ('list', 'chunk')\n"
            "SHOWN: int = 2\n"
            "def used(): return SHOWN\n"
            "def pytest_addoption(parser): ...\n"
            "class Kept: ...\n"
            "__all__ = ['used']\n"
        ),
        ROOT / "docs" / "page.md": "`Kept` is documented here.",
        ROOT / "tests" / "test_made_up.py": "from tracecheck.writers.made_up import used\n",
    }
    assert _unused(texts) == ["tracecheck/writers/made_up.py: LAYOUTS"]
