"""Readers bound what decoding may give (readers/layers.py): a small file that inflates to
gigabytes is refused once it passes the limit, naming the file and the limit (exit 3), instead
of being read until memory runs out. The limit is 100 times the stored size, at least 256 MiB;
`TRACECHECK_MAX_INFLATED_BYTES` sets another. `verify-safe` calls such a file UNKNOWN."""

from __future__ import annotations

import bz2
import gzip
import lzma
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tracecheck import read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.errors import TraceReadError
from tracecheck.readers.layers import INFLATE_FLOOR, INFLATE_RATIO, LIMIT_ENV, inflate_limit

HEAD = b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "'
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "otel-genai" / "clean.otlp.jsonl"


@pytest.fixture(autouse=True)
def no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LIMIT_ENV, raising=False)


def bomb(path: Path, members: int) -> Path:
    """A gzip file of `members` members of 16 MiB each (16 kB compressed) after a JSON head:
    an OTLP/JSON document whose one span name never ends."""
    block = gzip.compress(b"a" * (16 << 20), compresslevel=9)
    with path.open("wb") as out:
        out.write(gzip.compress(HEAD))
        for _ in range(members):
            out.write(block)
    return path


def test_the_limit_is_a_hundred_times_the_stored_size_and_at_least_256_mib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert (INFLATE_RATIO, INFLATE_FLOOR) == (100, 256 << 20)
    assert inflate_limit(1000) == 256 << 20
    assert inflate_limit(10 << 20) == 100 * (10 << 20)
    monkeypatch.setenv(LIMIT_ENV, "5000")
    assert inflate_limit(10 << 20) == 5000
    monkeypatch.setenv(LIMIT_ENV, "lots")
    with pytest.raises(TraceReadError) as info:
        inflate_limit(10)
    assert str(info.value) == f"{LIMIT_ENV}: is not a positive whole number of bytes"


def test_a_10_mb_gzip_holding_10_gb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = bomb(tmp_path / "bomb.otlp.json.gz", 650)  # 10 MB holding 10 GB
    size = path.stat().st_size
    assert 10_000_000 < size < 11_000_000
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(
        [sys.executable, "-m", "tracecheck", "show", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert done.returncode == ExitCode.UNREADABLE
    # A progress line may come first: inflating the gigabyte takes seconds.
    assert done.stderr.splitlines()[-1] == (
        f"tracecheck: error: {path}: inflates past the limit of {100 * size:,} bytes (100 times "
        f"the size of the file as stored, at least 256 MiB); set {LIMIT_ENV} to read further"
    )
    # Stopped at about a gigabyte, never the ten it holds.
    assert max(peak_kib, before) < 3 << 20


@pytest.mark.parametrize(
    "compress",
    [gzip.compress, bz2.compress, lzma.compress, lambda data: gzip.compress(gzip.compress(data))],
    ids=["gzip", "bzip2", "xz", "gzip-in-gzip"],
)
def test_every_layer_is_bounded_and_the_limit_can_be_set(
    compress: object,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert callable(compress)
    path = tmp_path / "run.otlp.jsonl.z"
    path.write_bytes(compress(FIXTURE.read_bytes()))
    assert len(read_traces(path)[0].spans) == 11
    monkeypatch.setenv(LIMIT_ENV, "4096")
    assert main(["show", str(path)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err == (
        f"tracecheck: error: {path}: inflates past the limit of 4,096 bytes that {LIMIT_ENV} sets\n"
    )
    assert main(["verify-safe", str(path)]) == ExitCode.FAILED
    assert capsys.readouterr().out == (
        f"{path}: UNKNOWN\n  unreadable: /: inflates past the limit of 4,096 bytes that "
        f"{LIMIT_ENV} sets\n"
    )
    monkeypatch.setenv(LIMIT_ENV, str(1 << 20))
    assert main(["show", str(path)]) == ExitCode.OK


def test_a_json_lines_bomb_stops_while_the_streaming_reader_copies_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = FIXTURE.read_bytes() * 2000  # 2000 copies of the run: several megabytes
    path = tmp_path / "runs.otlp.jsonl.gz"
    path.write_bytes(gzip.compress(lines))
    monkeypatch.setenv(LIMIT_ENV, str(len(lines) // 2))
    contract = tmp_path / "c.json"
    contract.write_text('{"name": "any", "tools": {"forbidden": ["Bash"]}}')
    assert main(["check", str(path), "--contract", str(contract)]) == ExitCode.UNREADABLE
    assert capsys.readouterr().err.endswith(
        f"{path}: inflates past the limit of {len(lines) // 2:,} bytes that {LIMIT_ENV} sets\n"
    )
