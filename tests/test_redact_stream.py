"""`redact` and `verify-safe` read a file batch by batch (inputs.md: memory follows the largest
trace, not the file) and give what judging every span at once gives: the same redacted bytes,
the same pseudonyms across the whole file, the same report and the same verdict.

Fake secrets only, glued together from parts at run time.
"""

from __future__ import annotations

import gzip
import random
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redact import assess_spans, redact_spans
from redact.spans import SpanAssessor, SpanRedactor
from tracecheck import iter_spans
from tracecheck.cli import main
from tracecheck.sharing.staged import BATCH, StagedOutput, StreamEncoder, batched
from tracecheck.spans import Span
from tracecheck.writers import to_otlp_jsonl, to_otlp_proto, to_trace_span_events
from tracecheck.writers.layout import Layout, encode

KEY = b"0123456789abcdef0123456789abcdef"
EMAIL = "jane.doe" + "@" + "example.com"
OPENAI_KEY = "sk-" + "proj-" + "FAKEfake0123456789" + "FAKEfake0123"


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACECHECK_PSEUDONYM_KEY", raising=False)


def spans(count: int, seed: int = 1) -> list[Span]:
    """Spans of several traces and two resources, some with an e-mail, a provider key or a
    user id (pseudonymised: the same id in many spans must get the same pseudonym)."""
    rng = random.Random(seed)
    resources = (
        {"service.name": "agent", "host.name": "runner-1"},
        {"service.name": "agent", "deployment.owner": "ops" + "@" + "example.test"},
    )
    out = []
    for n in range(count):
        attributes: dict[str, object] = {"gen_ai.operation.name": "chat", "n": n}
        roll = rng.random()
        if roll < 0.1:
            attributes["gen_ai.tool.call.result"] = f"contact {EMAIL} about order {n}"
        elif roll < 0.15:
            attributes["gen_ai.tool.call.arguments"] = f'{{"token": "{OPENAI_KEY}"}}'
        if rng.random() < 0.3:
            attributes["user.id"] = f"u-{rng.randrange(5)}"
        resource = resources[rng.randrange(2)]
        out.append(
            Span(
                f"{rng.randrange(1, 4):032x}",
                f"{n + 1:016x}",
                name=f"chat {n % 7}",
                start_ns=1_700_000_000_000_000_000 + n,
                end_ns=1_700_000_000_000_000_000 + n + 5,
                attributes={**resource, **attributes},
                resource=resource,
            )
        )
    return out


def test_batches_redact_and_assess_as_one_call() -> None:
    whole_spans = spans(1300)
    whole = redact_spans(whole_spans, profile="share", pseudonym_key=KEY)
    redactor = SpanRedactor(profile="share", pseudonym_key=KEY)
    assessor = SpanAssessor(profile="share")
    streamed: list[Span] = []
    for batch in batched(whole_spans, 97):
        redacted = redactor.redact(batch)
        assessor.assess(redacted)
        streamed.extend(redacted)
    assert streamed == list(whole.spans)
    assert redactor.report() == whole.report
    assert assessor.verdict() == assess_spans(whole.spans, profile="share")
    assert len(whole.report.findings) > 100  # the property is not vacuous


def test_pseudonyms_agree_across_batches_without_a_key() -> None:
    """A random key is drawn once per redactor, not once per batch."""
    redactor = SpanRedactor(profile="share")
    ids = {}
    for batch in batched(spans(800), 50):
        for span in redactor.redact(batch):
            original = span.span_id
            pseudonym = span.attributes.get("user.id")
            if pseudonym is not None:
                ids.setdefault(pseudonym, set()).add(original)
    raw = {s.span_id: s.attributes.get("user.id") for s in spans(800)}
    for pseudonym, span_ids in ids.items():
        assert len({raw[i] for i in span_ids}) == 1, pseudonym  # one pseudonym, one id


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 400), st.integers(1, 300), st.integers(0, 10**6))
def test_any_cut_into_batches_gives_the_same_result(count: int, size: int, seed: int) -> None:
    drawn = spans(count, seed)
    whole = redact_spans(drawn, profile="share", pseudonym_key=KEY)
    redactor = SpanRedactor(profile="share", pseudonym_key=KEY)
    assessor = SpanAssessor(profile="share")
    following = SpanAssessor.following(redactor)
    out: list[Span] = []
    for batch in batched(drawn, size):
        out.extend(redactor.redact(batch))
        assessor.assess(out[-len(batch) :])
        following.assess(out[-len(batch) :])  # with the redaction's prescan, as `redact` does
    assert out == list(whole.spans)
    assert redactor.report() == whole.report
    assert assessor.verdict() == assess_spans(whole.spans, profile="share")
    assert following.verdict() == assessor.verdict()


@pytest.mark.parametrize(
    ("layout", "gzipped"),
    [
        (Layout("otlp-jsonl"), False),
        (Layout("otlp-jsonl"), True),
        (Layout("otlp-proto", "stream"), False),
        (Layout("spans", "lines"), True),
        (Layout("spans"), False),
        (Layout("otlp-json"), False),
        (Layout("otlp-proto"), True),
    ],
)
def test_the_streamed_output_is_the_bytes_of_encoding_everything(
    layout: Layout, gzipped: bool
) -> None:
    drawn = spans(BATCH * 2 + 77)
    expected = encode(drawn, layout)
    if gzipped:
        expected = gzip.compress(expected, mtime=0)
    staged = StagedOutput(gzipped)
    encoder = StreamEncoder(layout)
    for batch in batched(drawn):
        encoder.add(batch, staged)
    encoder.finish(staged, layout)
    out = _delivered(staged)
    assert out == expected
    empty = StagedOutput(gzipped)
    StreamEncoder(layout).finish(empty, layout)
    assert _delivered(empty) == (
        gzip.compress(encode([], layout), mtime=0) if gzipped else encode([], layout)
    )


def _delivered(staged: StagedOutput) -> bytes:
    import io
    import sys

    class Out:
        buffer = io.BytesIO()

        @staticmethod
        def flush() -> None:
            pass

    saved = sys.stdout
    sys.stdout = Out  # type: ignore[assignment]
    try:
        staged.deliver("-")
    finally:
        sys.stdout = saved
        staged.close()
    return Out.buffer.getvalue()


def test_the_batch_is_the_writers_batch() -> None:
    """Lines and records fall where encoding every span at once puts them."""
    drawn = spans(BATCH + 1)
    assert to_otlp_jsonl([drawn[:BATCH], drawn[BATCH:]]) == encode(drawn, Layout("otlp-jsonl"))
    stream = encode(drawn, Layout("otlp-proto", "stream"))
    first = to_otlp_proto(drawn[:BATCH])
    assert stream.startswith(len(first).to_bytes(4, "big") + first)
    assert orjson.dumps(to_trace_span_events(drawn)) == encode(drawn, Layout("spans"))
    assert zlib.decompress(gzip.compress(b"x", mtime=0), 31) == b"x"


def write_jsonl(path: Path, drawn: list[Span], per_line: int = 100) -> Path:
    path.write_bytes(to_otlp_jsonl(batched(drawn, per_line)))
    return path


def test_redact_writes_what_redacting_everything_at_once_writes(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "run.otlp.jsonl", spans(BATCH * 3 + 5))
    key = tmp_path / "key"
    key.write_bytes(KEY)
    out = tmp_path / "out.otlp.jsonl"
    assert main(["redact", str(source), "-o", str(out), "--pseudonym-key-file", str(key)]) == 0
    whole = redact_spans(list(iter_spans(source)), profile="share", pseudonym_key=KEY)
    assert out.read_bytes() == encode(whole.spans, Layout("otlp-jsonl"))
    assert EMAIL not in out.read_text()
    gz = tmp_path / "run.otlp.jsonl.gz"
    gz.write_bytes(gzip.compress(source.read_bytes()))
    out_gz = tmp_path / "out.gz"
    assert main(["redact", str(gz), "-o", str(out_gz), "--pseudonym-key-file", str(key)]) == 0
    assert out_gz.read_bytes() == gzip.compress(out.read_bytes(), mtime=0)


def test_an_unsafe_result_writes_nothing_and_leaves_no_staging_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches already staged are dropped when the whole result fails the gate (here a
    redactor that removes nothing, so the provider keys it leaves make the result UNSAFE)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    source = write_jsonl(tmp_path / "run.otlp.jsonl", spans(BATCH + 3))
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr("redact.spans.SpanRedactor.redact", lambda self, batch: tuple(batch))
    assert main(["redact", str(source), "-o", str(out)]) == 1
    assert not out.exists()
    assert "nothing written" in capsys.readouterr().err
    assert list((tmp_path / "temp").iterdir()) == []


def test_verify_safe_judges_batch_by_batch_as_one_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drawn = spans(BATCH * 2 + 9)
    source = write_jsonl(tmp_path / "run.otlp.jsonl", drawn)
    assert main(["verify-safe", str(source)]) == 1
    out = capsys.readouterr().out
    verdict = assess_spans(list(iter_spans(source)), profile="share")
    assert out.splitlines()[0] == f"{source}: {verdict.status.value}"
    for finding in verdict.findings:
        assert f"{finding.category} ({finding.detector}) ×" in out
