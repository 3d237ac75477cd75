"""Where fleet inputs live: local paths, or object storage and web servers through fsspec
(`s3://`, `gs://`, `https://`, ...). A remote file is copied to a local directory before it is
read, so every reader works on it as on a local file, and what the reader says about it is
said again in the remote file's name."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NamedTuple

__all__ = ["Listing", "copied_stream", "glob_matches", "is_remote", "listing", "staged"]

_GLOB = frozenset("*?[")


def is_remote(source: str) -> bool:
    """Whether `source` names something only fsspec can open (a URL other than `file://`)."""
    scheme, sep, _ = source.partition("://")
    return bool(sep) and scheme.isidentifier() and scheme.lower() not in ("file", "local")


class Listing(NamedTuple):
    """What one input names: a single file, or a directory (`root`) and the files below it
    that may hold traces, in sorted order. `sizes` are in bytes, in the order of `files`."""

    source: str
    root: str | None
    files: tuple[str, ...]
    sizes: tuple[int, ...]
    given: tuple[tuple[str, str], ...] = ()  # absolute prefixes and the caller's spelling


def listing(source: str, storage_options: dict[str, Any] | None = None) -> list[Listing]:
    """The inputs `source` names: itself (a file or a directory), or for a glob pattern each
    path it matches, in sorted order. Raises OSError when a remote source cannot be listed."""
    if is_remote(source):
        return _remote_listing(source, storage_options or {})
    local = source.removeprefix("file://")
    if _GLOB & set(local):
        return [item for match in glob_matches(local) for item in listing(match)]
    path = Path(local)
    if not path.is_dir():
        size = path.stat().st_size if path.is_file() else 0
        return [Listing(local, None, (local,), (size,))]
    from tracecheck.readers.inputs import directory_files

    files = directory_files(path)
    return [
        Listing(local, local, tuple(str(f) for f in files), tuple(f.stat().st_size for f in files))
    ]


def glob_matches(pattern: str) -> list[str]:
    """The local paths a glob pattern matches (`**` too), in sorted order."""
    import glob  # here, like shutil and tempfile: `check` asks `is_remote` of every input

    return sorted(glob.glob(pattern, recursive=True))  # noqa: PTH207 (a pattern, not a path)


def copied_stream(stream: IO[bytes]) -> tuple[str, int]:
    """A stream (standard input, a pipe) copied to a temporary file, which the caller removes,
    so that it is read like a file: one trace at a time, not all of it held. Its name and
    size."""
    import shutil
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="tracecheck-stdin-", delete=False) as copy:
        shutil.copyfileobj(stream, copy, 1 << 20)
        return copy.name, copy.tell()


def _remote_listing(source: str, options: dict[str, Any]) -> list[Listing]:
    import fsspec

    fs, _, paths = fsspec.get_fs_token_paths(source, storage_options=options)
    protocol = source.partition("://")[0]
    if _GLOB & set(source.partition("://")[2]):
        return [
            item
            for path in sorted(paths)
            for item in _remote_listing(_url(protocol, fs, path), options)
        ]
    (path,) = paths
    if not fs.isdir(path):
        info = fs.info(path)
        return [Listing(source, None, (source,), (int(info.get("size") or 0),))]
    found = fs.find(path, detail=True)
    root = path.rstrip("/") + "/"
    files = sorted(
        name
        for name, info in found.items()
        if info.get("type") == "file"
        and not any(part.startswith(".") for part in name[len(root) :].split("/"))
    )
    urls = tuple(_url(protocol, fs, name) for name in files)
    sizes = tuple(int(found[name].get("size") or 0) for name in files)
    return [Listing(source.rstrip("/"), source.rstrip("/"), urls, sizes)]


def _basename(url: str) -> str:
    return url.rstrip("/").rpartition("/")[2]


def _url(protocol: str, fs: Any, path: str) -> str:
    """A path fsspec listed, as a URL of the protocol the input was given with."""
    unstripped: str = fs.unstrip_protocol(path)
    if unstripped.startswith(f"{protocol}://"):
        return unstripped
    return f"{protocol}://{path}"


class Staged(NamedTuple):
    """Remote files copied here: the local source to read (a file, or a directory standing
    for the remote one), the local paths of the files, and how to name a local path as the
    remote one."""

    source: str
    files: tuple[str, ...]
    names: dict[str, str]

    def rename(self, text: str) -> str:
        """`text` (a message, a file name) with every staged path named as the remote file."""
        for local, remote in sorted(self.names.items(), key=lambda item: -len(item[0])):
            text = text.replace(local, remote)
        return text


@contextmanager
def staged(
    root: str | None, files: Sequence[str], storage_options: dict[str, Any] | None = None
) -> Iterator[Staged]:
    """Remote `files` (below the remote directory `root`, or one file when `root` is None)
    copied to a temporary directory for as long as they are read; local ones as they are."""
    if not any(is_remote(name) for name in files):
        yield Staged(root if root is not None else files[0], tuple(files), {})
        return
    import shutil
    import tempfile

    import fsspec

    where = tempfile.mkdtemp(prefix="tracecheck-fleet-")
    try:
        names: dict[str, str] = {}
        local_files = []
        for number, remote in enumerate(files):
            relative = remote[len(root) :].lstrip("/") if root is not None else _basename(remote)
            local = Path(where) / (relative or f"input-{number}")
            local.parent.mkdir(parents=True, exist_ok=True)
            with (
                fsspec.open(remote, "rb", **(storage_options or {})) as src,
                local.open("wb") as dst,
            ):
                shutil.copyfileobj(src, dst, 1 << 20)
            names[str(local)] = remote
            local_files.append(str(local))
        if root is not None:
            names[where] = root
        yield Staged(where if root is not None else local_files[0], tuple(local_files), names)
    finally:
        shutil.rmtree(where, ignore_errors=True)
