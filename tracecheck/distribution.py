"""The installed distribution: its name, its version (for `--version` and the reports that name
the tool), and how to install one of its extras.

The distribution is `agent-tracecheck` (PyPI's `tracecheck` is another project); the import
packages, the command and the pytest plugin are all `tracecheck`."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

__all__ = ["DISTRIBUTION", "install_hint", "version"]

DISTRIBUTION = "agent-tracecheck"
# The name as a wheel's `.dist-info` or an `.egg-info` folder spells it.
_FOLDER_NAME = DISTRIBUTION.replace("-", "_")


def install_hint(extra: str) -> str:
    """The command that installs one of the distribution's extras."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


@functools.cache
def version() -> str:
    """The installed distribution's version, as `importlib.metadata.version(DISTRIBUTION)`
    gives it: read from the metadata of the first `sys.path` entry that holds its
    (`agent_tracecheck-<version>.dist-info/METADATA`, `agent_tracecheck.egg-info/PKG-INFO`),
    without importing `importlib.metadata`, which costs more than the rest of `--version`.
    Metadata it cannot read is left to `importlib.metadata`."""
    for entry in sys.path:
        try:
            found = list(Path(entry or ".").iterdir())
        except OSError:  # missing, or not a folder (a zip holds no tracecheck)
            continue
        names = [name for name in found if name.suffix in (".dist-info", ".egg-info")]
        for path in names:
            project = path.name.rsplit(".", 1)[0].partition("-")[0]
            if project.replace("-", "_").replace(".", "_").lower() != _FOLDER_NAME:
                continue
            metadata = path / ("METADATA" if path.suffix == ".dist-info" else "PKG-INFO")
            try:
                with metadata.open(encoding="utf-8") as lines:
                    for line in lines:
                        if line.startswith("Version:"):
                            return line.partition(":")[2].strip()
                        if not line.strip():  # the headers end
                            break
            except OSError:
                pass
            return _metadata_version()
    return _metadata_version()


def _metadata_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"
