"""What the gate cannot read is never SAFE (README, "Redaction and share safety").

`verify-safe` decodes what can be decoded (BOM-marked UTF-16/32, gzip, bzip2, xz, one inside
another, zip and tar members, each judged and named) and calls everything else UNKNOWN with its
reason: binary that is not a trace, compression it does not decode, more layers than it follows,
an encrypted archive member, JSON nested past its parser's depth. `redact` refuses what it cannot
decode and writes nothing. The secret is a fake, built at run time.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import random
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tracecheck import read_traces
from tracecheck.cli import ExitCode, main
from tracecheck.readers.layers import layer_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SECRET = "zq8 Opaque/" + "Build Token 31"
DOCUMENT = orjson.dumps({"note": "deployed with " + SECRET})

Encode = Callable[[bytes], bytes]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUILD_TOKEN", SECRET)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("TRACECHECK_MAX_INFLATED_BYTES", raising=False)


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["verify-safe", str(path), "--known-secret-env", "BUILD_TOKEN"])
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    return code, captured.out, captured.err


def utf16(data: bytes) -> bytes:
    return data.decode().encode("utf-16")  # with its byte-order mark


def utf16be(data: bytes) -> bytes:
    return b"\xfe\xff" + data.decode().encode("utf-16-be")


def utf32(data: bytes) -> bytes:
    return data.decode().encode("utf-32")


def zipped(name: str, data: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        archive.writestr(name, data)
    return out.getvalue()


def tarred(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


# --- decoded, and the secret found -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "encode", "place"),
    [
        ("utf-16", utf16, "/note"),
        ("utf-16-be", utf16be, "/note"),
        ("utf-32", utf32, "/note"),
        ("gzip", gzip.compress, "/note"),
        ("gzip-in-gzip", lambda data: gzip.compress(gzip.compress(data)), "/note"),
        ("bzip2", bz2.compress, "/note"),
        ("xz", lzma.compress, "/note"),
        ("utf-16-in-gzip", lambda data: gzip.compress(utf16(data)), "/note"),
        ("zip", lambda data: zipped("run.json", data), "/run.json/note"),
        (
            "zip-of-gzip",
            lambda data: zipped("run.json.gz", gzip.compress(data)),
            "/run.json.gz/note",
        ),
        (
            "zip-in-zip",
            lambda data: zipped("inner.zip", zipped("run.json", data)),
            "/inner.zip!run.json/note",
        ),
        (
            "tar.gz",
            lambda data: gzip.compress(tarred("logs/run.json", data)),
            "/logs~1run.json/note",
        ),
        ("tar.xz", lambda data: lzma.compress(tarred("run.json", data)), "/run.json/note"),
    ],
)
def test_a_known_secret_in_any_decodable_encoding_is_found(
    name: str, encode: Encode, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"shared.{name}"
    path.write_bytes(encode(DOCUMENT))
    code, out, err = verify(path, capsys)
    assert (code, err) == (ExitCode.FAILED, "")
    assert out == f"{path}: UNSAFE\n  error: credential (known-secret) ×1 at {place}\n"


def test_the_plain_document_is_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.json"
    path.write_bytes(DOCUMENT)
    assert verify(path, capsys) == (
        ExitCode.FAILED,
        f"{path}: UNSAFE\n  error: credential (known-secret) ×1 at /note\n",
        "",
    )
    path.write_bytes(orjson.dumps({"note": "nothing here"}))
    assert verify(path, capsys) == (ExitCode.OK, f"{path}: SAFE\n", "")


# --- not decoded: UNKNOWN with the reason ---------------------------------------------------------


def scrambled(data: bytes) -> bytes:
    """The bytes XOR-ed with a fixed key: binary that no decoder reads (an encrypted file)."""
    pad = random.Random(7).randbytes(len(data))
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            os.urandom(0) + random.Random(1).randbytes(300) + SECRET.encode() + b"\x00\xff",
            "/: binary data that is not a trace tracecheck reads",
        ),
        (scrambled(DOCUMENT), "/: binary data that is not a trace tracecheck reads"),
        (
            DOCUMENT.decode().encode("utf-16-le"),  # UTF-16 without its mark
            "/: binary data that is not a trace tracecheck reads",
        ),
        (
            b"\x28\xb5\x2f\xfd" + scrambled(DOCUMENT),
            "/: is zstd-compressed, which tracecheck does not decompress",
        ),
        (
            b"7z\xbc\xaf\x27\x1c" + scrambled(DOCUMENT),
            "/: is 7z-compressed, which tracecheck does not decompress",
        ),
        (
            gzip.compress(gzip.compress(bz2.compress(lzma.compress(gzip.compress(DOCUMENT))))),
            "/: is compressed or encoded in more than 4 layers, and tracecheck follows 4",
        ),
    ],
    ids=["random-binary", "encrypted", "utf-16-without-bom", "zstd", "7z", "five-layers"],
)
def test_what_cannot_be_decoded_is_unknown(
    content: bytes, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "shared.bin"
    path.write_bytes(content)
    assert verify(path, capsys) == (
        ExitCode.FAILED,
        f"{path}: UNKNOWN\n  unreadable: {reason}\n",
        "",
    )


def test_json_nested_past_its_parser_is_unknown_never_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 100k levels: the parser stops at 1024; read as text it held nothing a detector knows.
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 100_000 + b'"fine"' + b"]" * 100_000)
    code, out, err = verify(path, capsys)
    assert (code, err) == (ExitCode.FAILED, "")
    assert out == (
        f"{path}: UNKNOWN\n  unreadable: /: JSON nested deeper than its parser's 1024 levels\n"
    )
    lines = tmp_path / "deep.jsonl"
    lines.write_bytes(b'{"a": 1}\n' + b"[" * 2000 + b"1" + b"]" * 2000 + b"\n")
    code, out, _ = verify(lines, capsys)
    assert code == ExitCode.FAILED
    assert out == (
        f"{lines}: UNKNOWN\n"
        "  unreadable: /line 2: JSON nested deeper than its parser's 1024 levels\n"
    )


def test_text_with_binary_lines_is_unknown_line_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Text for the first kilobytes (so the file reads as text), then lines that are not.
    path = tmp_path / "notes.txt"
    head = b"plain words\n" * 400
    path.write_bytes(head + b"second \xff\xfe line\nthird\x00line\nfourth \x1b[1mbold\x1b[0m\n")
    code, out, _ = verify(path, capsys)
    assert code == ExitCode.FAILED
    assert out == (
        f"{path}: UNKNOWN\n"
        "  unreadable: /line 401: not UTF-8 text\n"
        "  unreadable: /line 402: holds control characters (binary data)\n"
    )
    path.write_bytes(b"first \xff line\n" + head)  # binary from its first bytes: not text
    code, out, _ = verify(path, capsys)
    assert out == (
        f"{path}: UNKNOWN\n  unreadable: /: binary data that is not a trace tracecheck reads\n"
    )


def encrypted_zip(name: str, data: bytes) -> bytes:
    """A zip whose member is marked encrypted (general purpose flag bit 0) in both headers."""
    raw = bytearray(zipped(name, data, zipfile.ZIP_STORED))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = raw.find(signature)
        raw[at + offset] |= 0x01
    return bytes(raw)


def unsupported_method_zip(name: str, data: bytes) -> bytes:
    """A zip whose member says it is compressed with method 9 (Deflate64)."""
    raw = bytearray(zipped(name, data, zipfile.ZIP_STORED))
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = raw.find(signature)
        raw[at + offset : at + offset + 2] = (9).to_bytes(2, "little")
    return bytes(raw)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            encrypted_zip("secret.json", DOCUMENT),
            "/secret.json: an archive member that is encrypted",
        ),
        (
            unsupported_method_zip("run.json", DOCUMENT),
            "/run.json: an archive member that is compressed with a method tracecheck does not "
            "decompress (zip method 9)",
        ),
        (
            zipped("notes/run.bin", scrambled(DOCUMENT)),
            "/notes~1run.bin: binary data that is not a trace tracecheck reads",
        ),
        (
            zipped("inner.zst", b"\x28\xb5\x2f\xfd" + scrambled(DOCUMENT)),
            "/inner.zst: is zstd-compressed, which tracecheck does not decompress",
        ),
        (
            zipped(
                "a.zip", zipped("b.zip", zipped("c.zip", zipped("d.zip", zipped("e", DOCUMENT))))
            ),
            "/a.zip!b.zip!c.zip!d.zip: is compressed or encoded in more than 4 layers, "
            "and tracecheck follows 4",
        ),
    ],
    ids=["encrypted", "deflate64", "binary-member", "zstd-member", "archives-too-deep"],
)
def test_an_archive_member_that_cannot_be_read_is_named_and_unknown(
    content: bytes, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bundle.zip"
    path.write_bytes(content)
    assert verify(path, capsys) == (
        ExitCode.FAILED,
        f"{path}: UNKNOWN\n  unreadable: {reason}\n",
        "",
    )


def test_every_member_is_judged_and_a_member_name_is_judged_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("clean.json", orjson.dumps({"a": "nothing"}))
        archive.writestr("leaky.json", DOCUMENT)
        archive.writestr(f"keys/{SECRET}.txt", b"a name that is a secret")
    path = tmp_path / "bundle.zip"
    path.write_bytes(out.getvalue())
    code, text, err = verify(path, capsys)
    assert (code, err) == (ExitCode.FAILED, "")
    # The member whose name holds the secret is named by its number, never by its name.
    assert text == (
        f"{path}: UNSAFE\n  error: credential (known-secret) ×2 at /leaky.json/note, /#3 (name)\n"
    )


def test_a_zip_bomb_stops_at_the_limit_and_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACECHECK_MAX_INFLATED_BYTES", str(1 << 20))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in range(4):  # 4 × 512 KiB of zeros in a few kilobytes
            archive.writestr(f"part{number}.txt", b"0" * (512 << 10))
    path = tmp_path / "bomb.zip"
    path.write_bytes(out.getvalue())
    assert verify(path, capsys) == (
        ExitCode.FAILED,
        f"{path}: UNKNOWN\n  unreadable: /: inflates past the limit of 1,048,576 bytes that "
        "TRACECHECK_MAX_INFLATED_BYTES sets\n",
        "",
    )


def test_a_damaged_archive_is_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.zip"
    path.write_bytes(zipped("run.json", DOCUMENT)[:-30])
    code, out, err = verify(path, capsys)
    assert (code, out) == (ExitCode.UNREADABLE, "")
    assert err == (
        f"tracecheck: error: {path}: could not be read: it is not a readable zip archive\n"
    )


def test_a_directory_judges_every_file_not_only_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "run.otlp.jsonl").write_bytes(
        (FIXTURES / "otel-genai" / "clean.otlp.jsonl").read_bytes()
    )
    (folder / "notes.bin").write_bytes(scrambled(DOCUMENT))
    code, out, _ = verify(folder, capsys)
    assert code == ExitCode.FAILED
    assert out.splitlines()[0] == f"{folder}: UNKNOWN"
    assert "  unreadable: /notes.bin: binary data that is not a trace tracecheck reads" in out


# --- readers decode the same layers -----------------------------------------------------------


@pytest.mark.parametrize(
    "encode",
    [
        utf16,
        utf32,
        gzip.compress,
        bz2.compress,
        lzma.compress,
        lambda d: gzip.compress(bz2.compress(d)),
    ],
    ids=["utf-16", "utf-32", "gzip", "bzip2", "xz", "bzip2-in-gzip"],
)
def test_readers_read_a_decoded_trace_as_the_original(encode: Encode, tmp_path: Path) -> None:
    source = FIXTURES / "otel-genai" / "clean.otlp.jsonl"
    path = tmp_path / "run.bin"
    path.write_bytes(encode(source.read_bytes()))
    expected = [(trace.spans, trace.notes) for trace in read_traces(source)]
    assert [(trace.spans, trace.notes) for trace in read_traces(path)] == expected
    assert [(trace.spans, trace.notes) for trace in read_traces(path.read_bytes())] == expected


def test_redact_writes_utf8_from_utf16_and_refuses_what_it_cannot_decode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FIXTURES / "otel-genai" / "clean.otlp.jsonl"
    wide = tmp_path / "run.otlp.jsonl"
    wide.write_bytes(utf16(source.read_bytes()))
    out = tmp_path / "out.otlp.jsonl"
    assert main(["redact", str(wide), "-o", str(out)]) == ExitCode.OK
    assert layer_of(out.read_bytes()[:512]) is None  # UTF-8, no mark
    assert read_traces(out)[0].trace_id == read_traces(source)[0].trace_id
    capsys.readouterr()
    refused = {
        "bundle.zip": (
            zipped("run.otlp.jsonl", source.read_bytes()),
            "is a zip archive: tracecheck reads one trace file at a time, so extract it first "
            "(verify-safe judges every member)",
        ),
        "run.zst": (
            b"\x28\xb5\x2f\xfd" + scrambled(source.read_bytes()),
            "is zstd-compressed, which tracecheck does not decompress",
        ),
        "run.bin": (scrambled(source.read_bytes()), "is not a trace this command reads"),
        "run.gz": (
            gzip.compress(gzip.compress(gzip.compress(gzip.compress(gzip.compress(b"{}"))))),
            "is compressed or encoded in more than 4 layers, and tracecheck follows 4",
        ),
    }
    for name, (content, reason) in refused.items():
        path = tmp_path / name
        path.write_bytes(content)
        target = tmp_path / f"{name}.out"
        assert main(["redact", str(path), "-o", str(target)]) == ExitCode.UNREADABLE, name
        assert capsys.readouterr().err == f"tracecheck: error: {path}: {reason}\n"
        assert not target.exists()


# --- properties -----------------------------------------------------------------------------------

PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


_MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xef\xbb\xbf", "utf-8"),
)


def _plain_text(data: bytes) -> bool:
    """What verify-safe may call SAFE without a reader: text (UTF-8, or UTF-16/32 marked by
    its byte-order mark) without the control characters of binary data."""
    encoding = "utf-8"
    for mark, name in _MARKS:
        if data.startswith(mark):
            data, encoding = data[len(mark) :], name
            break
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return False
    allowed = "\t\n\r\x0b\x0c\x08\x1b"
    return not any((ord(c) < 32 and c not in allowed) or c == "\x7f" for c in text)


@PROPERTY
@given(data=st.binary(min_size=1, max_size=3000))
def test_random_bytes_are_never_safe_unless_they_are_plain_text(
    data: bytes, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path_factory.mktemp("random") / "input.bin"
    path.write_bytes(data)
    code, _, _ = verify(path, capsys)
    assert code != ExitCode.OK or _plain_text(data) or _otlp_protobuf(data)


def _otlp_protobuf(data: bytes) -> bool:
    """Bytes protobuf reads whole as a trace request (judged field by field): decoded."""
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(data)
    except DecodeError:
        return False
    return True


# Each layer: (name, encode, decodable by verify-safe).
LAYERS: list[tuple[str, Encode, bool]] = [
    ("gzip", gzip.compress, True),
    ("bzip2", bz2.compress, True),
    ("xz", lzma.compress, True),
    ("zip", lambda data: zipped("member.json", data), True),
    ("tar", lambda data: tarred("member.json", data), True),
    (
        "utf-16",
        lambda data: b"\xff\xfe" + data.decode("utf-8", "replace").encode("utf-16-le"),
        True,
    ),
    (
        "utf-32",
        lambda data: b"\x00\x00\xfe\xff" + data.decode("utf-8", "replace").encode("utf-32-be"),
        True,
    ),
    ("utf-16-no-bom", lambda data: data.decode("utf-8", "replace").encode("utf-16-le"), False),
    ("scrambled", scrambled, False),
    ("zstd-magic", lambda data: b"\x28\xb5\x2f\xfd" + scrambled(data), False),
    ("truncated-gzip", lambda data: gzip.compress(data)[:-9], False),
]


@PROPERTY
@given(chain=st.lists(st.sampled_from(LAYERS), min_size=1, max_size=5))
def test_a_planted_secret_in_any_chain_of_encodings_never_passes(
    chain: list[tuple[str, Encode, bool]],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = DOCUMENT
    for _, encode, _ in chain:
        data = encode(data)
    path = tmp_path_factory.mktemp("chain") / "input"
    path.write_bytes(data)
    code, out, _ = verify(path, capsys)
    assert code != ExitCode.OK, [name for name, _, _ in chain]
    # Up to four decodable layers (UTF-16/32 of already binary data aside), the secret itself
    # is found, not only an unknown.
    names = [name for name, _, _ in chain]
    decodable = all(ok for _, _, ok in chain) and len(chain) <= 4
    text_over_binary = any(name.startswith("utf") and index > 0 for index, name in enumerate(names))
    if decodable and not text_over_binary:
        assert code == ExitCode.FAILED
        assert "credential (known-secret)" in out, names
