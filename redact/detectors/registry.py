"""The ordered registry: which detectors exist, in which order they are tried, and the three ways
the redactor asks them about a string (spec §B1 detectCredential / detectPersonalData, §B4 step 5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from redact.detectors.base import Detector
from redact.detectors.personal import OPT_IN_DETECTORS, PERSONAL_DETECTORS
from redact.detectors.reference import REFERENCE_DETECTORS
from redact.detectors.vendors import VENDOR_DETECTORS

__all__ = [
    "CREDENTIAL_DETECTORS",
    "DETECTORS",
    "OPT_IN_DETECTORS",
    "PERSONAL_DETECTORS",
    "detect_credential",
    "detect_personal_data",
    "detector",
    "replace_personal_data",
]

# Order names the detector: the reference shapes first, exactly as the reference tries them, so
# every string the reference flags is flagged under the same id; vendor shapes only add.
CREDENTIAL_DETECTORS: tuple[Detector, ...] = REFERENCE_DETECTORS + VENDOR_DETECTORS


def _by_id(detectors: Sequence[Detector]) -> Mapping[str, Detector]:
    by_id: dict[str, Detector] = {}
    for d in detectors:
        if d.id in by_id:
            raise AssertionError(f"two detectors share the id {d.id}")
        by_id[d.id] = d
    return MappingProxyType(by_id)


# Every detector a profile may name, the opt-in ones (on only where a profile enables them) last.
DETECTORS: Mapping[str, Detector] = _by_id(
    CREDENTIAL_DETECTORS + PERSONAL_DETECTORS + OPT_IN_DETECTORS
)


def detector(id: str) -> Detector:
    """The detector with this id; a KeyError that suggests the closest id otherwise."""
    try:
        return DETECTORS[id]
    except KeyError:
        # Imported here: a live agent's export path never needs it.
        from tracecheck.naming import did_you_mean

        # Not the whole list of ids: there are more than a hundred.
        suggestion = did_you_mean(id, tuple(DETECTORS))
        hint = f' — did you mean "{suggestion}"?' if suggestion else ""
        raise KeyError(f"unknown detector {id!r}{hint}") from None


def detect_credential(
    text: str, detectors: Sequence[Detector] = CREDENTIAL_DETECTORS
) -> str | None:
    """The id of the first detector, in order, with an accepted match anywhere in the text."""
    for d in detectors:
        if d.search(text):
            return d.id
    return None


def detect_personal_data(
    text: str, detectors: Sequence[Detector] = PERSONAL_DETECTORS
) -> list[str]:
    """The ids of the detectors with at least one accepted match, in detector order."""
    return [d.id for d in detectors if d.search(text)]


def replace_personal_data(
    text: str, detectors: Sequence[Detector] = PERSONAL_DETECTORS
) -> tuple[str, list[str]]:
    """Every accepted match replaced by `[REDACTED:<id>]`, each detector working on the output of
    the one before; the ids, one per replacement, in the order they were made."""
    replaced: list[str] = []
    for d in detectors:
        pieces: list[str] = []
        end = 0
        for start, stop in d.find(text):
            pieces += (text[end:start], f"[REDACTED:{d.id}]")
            replaced.append(d.id)
            end = stop
        if pieces:
            pieces.append(text[end:])
            text = "".join(pieces)
    return text, replaced
