"""Evidence of a failing trace-contract check: the spans (OTLP JSON) and the verdict (JSON).

CI jobs upload these files as artifacts, so they are safe to share by default: every string
is redacted with the `default` profile (credentials, e-mail, card numbers, SSNs, phone numbers,
and the known secrets named with `--tracecheck-known-secret-env`), and the spans file is
written only if its redacted spans and its bytes pass the share-safety gate that
`tracecheck verify-safe` applies. `--tracecheck-evidence-raw` keeps the spans as recorded, for
local debugging; the failure text then says so.

Imported only when a check fails and evidence was asked for.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tracecheck.spans import Span
from tracecheck.verdict import Verdict
from tracecheck.writers.otlp import to_otlp_json

__all__ = [
    "EvidenceSettings",
    "file_stem",
    "known_secrets",
    "redacted_spans",
    "unset_text",
    "write_evidence",
    "write_gated",
]

PROFILE = "default"
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class EvidenceSettings:
    directory: Path
    raw: bool = False
    known_secret_env: tuple[str, ...] = ()


def file_stem(text: str) -> str:
    """A file name from a node id: unsafe runs become `_`; long names end in a short hash."""
    stem = _UNSAFE_NAME.sub("_", text).strip("._") or "test"
    if len(stem) > 120:
        stem = f"{stem[:100]}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    return stem


def write_evidence(
    settings: EvidenceSettings, node_id: str, spans: Sequence[Span], verdict: Verdict
) -> str:
    """Write the evidence files; the line the failure text gets about them."""
    directory = settings.directory
    directory.mkdir(parents=True, exist_ok=True)
    stem = file_stem(node_id)
    spans_path = directory / f"{stem}.otlp.json"
    verdict_path = directory / f"{stem}.{file_stem(verdict.contract)}.verdict.json"
    document: dict[str, Any] = {"version": 1, "test": node_id, **dataclasses.asdict(verdict)}
    if settings.raw:
        spans_path.write_bytes(to_otlp_json(spans))
        _write_json(verdict_path, document)
        return (
            f"evidence (raw spans, not redacted: keep them local, never upload them): "
            f"{spans_path} and {verdict_path}"
        )
    known, unset = known_secrets(settings.known_secret_env)
    missing = unset_text(unset)
    if isinstance(known, str):  # a secret that cannot be cut: nothing recorded is written
        spans_path.unlink(missing_ok=True)
        _write_json(verdict_path, _redacted(document, ()))
        return f"evidence: {verdict_path}; the spans were not written: {known}"
    _write_json(verdict_path, _redacted(document, known))
    refused = write_gated(spans_path, redacted_spans(spans, known), known)
    if refused is not None:
        spans_path.unlink(missing_ok=True)  # an earlier run's file must not pass for this one's
        return (
            f"evidence: {verdict_path}; the spans were not written: their redacted form is "
            f"still {refused} under profile {PROFILE}{missing}"
        )
    return f"evidence (redacted, profile {PROFILE}): {spans_path} and {verdict_path}{missing}"


def known_secrets(names: Sequence[str]) -> tuple[Any, list[str]]:
    """The compiled known secrets of the environment variables `names` (or why they cannot be
    used, as text) and the names that are unset."""
    from redact import KnownSecretError, KnownSecrets

    values = [os.environ[name] for name in names if os.environ.get(name)]
    unset = [name for name in names if not os.environ.get(name)]
    try:
        return KnownSecrets.build(values), unset
    except KnownSecretError as exc:
        return f"a known secret cannot be cut: {exc}", unset


def unset_text(unset: Sequence[str]) -> str:
    """`; $A, $B not set, so not cut` for the unset variables; "" when none is."""
    return f"; ${', $'.join(unset)} not set, so not cut" if unset else ""


def redacted_spans(spans: Sequence[Span], known: Any) -> list[Span]:
    """The spans redacted with the profile and the known secrets."""
    from redact import redact_spans

    return list(redact_spans(spans, profile=PROFILE, known_secrets=known).spans)


def write_gated(
    path: Path,
    redacted: Sequence[Span],
    known: Any,
    *,
    encode: Callable[[Sequence[Span]], bytes] = to_otlp_json,
) -> str | None:
    """Write spans already redacted (`redacted_spans`) as `encode` makes them bytes (one JSON
    document a line: OTLP/JSON, OTLP JSONL), if the
    spans and those bytes pass the share gate with the known secrets; else the gate's status
    (`UNSAFE`, `UNKNOWN`), and nothing is written (a file already there is left as it is)."""
    from redact import assess, assess_spans, combine_verdicts, share_allowed

    data = encode(redacted)
    # The gate judges the bytes about to be written as well as the spans they came from.
    documents = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    verdict = combine_verdicts(
        PROFILE,
        [
            assess_spans(redacted, profile=PROFILE, known_secrets=known),
            *(assess(document, profile=PROFILE, known_secrets=known) for document in documents),
        ],
    )
    if not share_allowed(verdict):
        return str(verdict.status.value)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return None


def _redacted(document: dict[str, Any], known: Any) -> Any:
    """The verdict document with its strings redacted (details name spans, never values; a
    span's name could still carry a secret)."""
    from redact import redact

    return redact(document, profile=PROFILE, known_secrets=known).value


def _write_json(path: Path, document: Any) -> None:
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
