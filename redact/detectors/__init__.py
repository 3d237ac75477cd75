"""Credential and personal-data detectors: the `Detector` value and the ordered registry."""

from __future__ import annotations

from redact.detectors.base import Detector, DetectorTimeout
from redact.detectors.reference import REFERENCE_DETECTORS
from redact.detectors.registry import (
    CREDENTIAL_DETECTORS,
    DETECTORS,
    OPT_IN_DETECTORS,
    PERSONAL_DETECTORS,
    detect_credential,
    detect_personal_data,
    detector,
    replace_personal_data,
)

__all__ = [
    "CREDENTIAL_DETECTORS",
    "DETECTORS",
    "OPT_IN_DETECTORS",
    "PERSONAL_DETECTORS",
    "REFERENCE_DETECTORS",
    "Detector",
    "DetectorTimeout",
    "detect_credential",
    "detect_personal_data",
    "detector",
    "replace_personal_data",
]
