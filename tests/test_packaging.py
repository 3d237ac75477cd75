"""What the distribution ships, built here by the build backend (hatchling, in the test extra;
a wheel and an sdist take about a second each, no network): the wheel holds both packages with
their typing markers, the ready-made contracts and their schema as package data, the report's
schema and the licence; the sdist holds what its tests read."""

from __future__ import annotations

import email
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CONTRACTS = sorted(
    path.name for path in (ROOT / "contracts").iterdir() if path.suffix in (".json", ".yaml")
)

hatchling_build = pytest.importorskip("hatchling.build", reason="hatchling is in the test extra")


@contextmanager
def in_root() -> Iterator[None]:
    before = Path.cwd()
    os.chdir(ROOT)  # the backend builds the project in the current folder
    try:
        yield
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    out = tmp_path_factory.mktemp("wheel")
    with in_root():
        name = hatchling_build.build_wheel(str(out))
    with zipfile.ZipFile(out / name) as archive:
        yield archive


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("sdist")
    with in_root():
        name = hatchling_build.build_sdist(str(out))
    with tarfile.open(out / name) as archive:
        prefix = f"{name.removesuffix('.tar.gz')}/"
        return [member.name.removeprefix(prefix) for member in archive.getmembers()]


def dist_info(wheel: zipfile.ZipFile) -> str:
    folder = PROJECT["name"].replace("-", "_") + "-" + PROJECT["version"] + ".dist-info"
    assert f"{folder}/METADATA" in wheel.namelist()
    return folder


def test_the_wheel_holds_the_contracts_schemas_typing_markers_and_licence(
    wheel: zipfile.ZipFile,
) -> None:
    names = set(wheel.namelist())
    assert "contract.schema.json" in CONTRACTS and "refund-desk.json" in CONTRACTS
    for name in CONTRACTS:
        assert f"tracecheck/contracts/{name}" in names, name
    for needed in (
        "tracecheck/report/report.schema.json",
        "tracecheck/py.typed",
        "redact/py.typed",
        "tracecheck/__init__.py",
        "redact/__init__.py",
        f"{dist_info(wheel)}/licenses/LICENSE",
    ):
        assert needed in names, needed
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"tracecheck", "redact", dist_info(wheel)}
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def test_the_packaged_contracts_are_the_sources(wheel: zipfile.ZipFile) -> None:
    for name in CONTRACTS:
        assert (
            wheel.read(f"tracecheck/contracts/{name}") == (ROOT / "contracts" / name).read_bytes()
        )


def test_the_wheel_names_the_distribution_its_licence_and_entry_points(
    wheel: zipfile.ZipFile,
) -> None:
    folder = dist_info(wheel)
    metadata = email.message_from_bytes(wheel.read(f"{folder}/METADATA"))
    assert metadata["Name"] == "agent-tracecheck"
    assert metadata["License-Expression"] == "MIT"
    classifiers = metadata.get_all("Classifier")
    for classifier in (
        "Framework :: Pytest",
        "Typing :: Typed",
        "Operating System :: OS Independent",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
    ):
        assert classifier in classifiers
    assert "Copyright (c)" in wheel.read(f"{folder}/licenses/LICENSE").decode()
    entry_points = wheel.read(f"{folder}/entry_points.txt").decode()
    assert "[console_scripts]\ntracecheck = tracecheck.cli:main" in entry_points
    assert "[pytest11]\ntracecheck = tracecheck.testing.plugin" in entry_points


def test_the_sdist_holds_what_its_tests_read(sdist: list[str]) -> None:
    names = set(sdist)
    for needed in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "contracts/refund-desk.json",
        "contracts/contract.schema.json",
        "fixtures/otel-genai/clean.otlp.jsonl",
        "tests/conftest.py",
        "tests/test_packaging.py",
    ):
        assert needed in names, needed
    assert not [name for name in names if "node_modules" in name.split("/")]


def test_the_wheel_checks_with_builtin_contracts_away_from_the_checkout(
    wheel: zipfile.ZipFile, tmp_path: Path
) -> None:
    """The wheel's own files, first on the path, in a folder with two fixtures and nothing else:
    `builtin:` resolves to the contracts inside the package."""
    site = tmp_path / "site"
    wheel.extractall(site)
    work = tmp_path / "work"
    work.mkdir()
    for name in ("clean.otlp.jsonl", "forbidden.otlp.jsonl"):
        shutil.copy(ROOT / "fixtures" / "otel-genai" / name, work / name)
    env = {**os.environ, "PYTHONPATH": str(site)}

    def tracecheck(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tracecheck", *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    listed = tracecheck("contracts", "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert document["schema"] == str(site / "tracecheck" / "contracts" / "contract.schema.json")
    assert {Path(c["path"]).parent for c in document["contracts"]} == {
        site / "tracecheck" / "contracts"
    }
    done = tracecheck(
        "check",
        "clean.otlp.jsonl",
        "forbidden.otlp.jsonl",
        "--contract",
        "builtin:refund-desk",
    )
    assert done.returncode == 1, done.stderr
    assert (
        'clean.otlp.jsonl: trace bdfc178765b50e0a8be66e350728be0e: contract "refund-desk" PASS'
        in (done.stdout)
    )
    assert "tools.forbidden[run_shell]" in done.stdout
