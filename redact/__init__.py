"""redact: remove credentials and personal data from spans before they are shared.

```python
from redact import redact, assess, redact_for_share, share_allowed

out = redact(value, profile="share", known_secrets=[api_key])  # out.value, out.report
verdict = assess(out.value, profile="share", known_secrets=[api_key])
share_allowed(verdict)  # True for SAFE and SAFE_WITH_WARNINGS only
```
"""

from __future__ import annotations

from redact.core import assess, redact, redact_for_share, redact_text
from redact.detectors import (
    CREDENTIAL_DETECTORS,
    DETECTORS,
    PERSONAL_DETECTORS,
    Detector,
    detect_credential,
    detect_personal_data,
)
from redact.keys import classify_key, normalize_key
from redact.known import KnownSecretError, KnownSecrets
from redact.model import (
    REDACTION_VERSION,
    Redaction,
    RedactionFinding,
    RedactionReport,
    ShareFinding,
    ShareRedaction,
    ShareStatus,
    ShareVerdict,
    combine_verdicts,
    share_allowed,
)
from redact.profiles import PROFILES, REDACTION_PROFILES, Profile, ProfileError, load_profile
from redact.spans import (
    DroppedSpan,
    ScrubbedSpans,
    SpanRedaction,
    assess_spans,
    redact_spans,
    scrub_spans,
)

__all__ = [
    "CREDENTIAL_DETECTORS",
    "DETECTORS",
    "PERSONAL_DETECTORS",
    "PROFILES",
    "REDACTION_PROFILES",
    "REDACTION_VERSION",
    "Detector",
    "DroppedSpan",
    "KnownSecretError",
    "KnownSecrets",
    "Profile",
    "ProfileError",
    "Redaction",
    "RedactionFinding",
    "RedactionReport",
    "ScrubbedSpans",
    "ShareFinding",
    "ShareRedaction",
    "ShareStatus",
    "ShareVerdict",
    "SpanRedaction",
    "assess",
    "assess_spans",
    "classify_key",
    "combine_verdicts",
    "detect_credential",
    "detect_personal_data",
    "load_profile",
    "normalize_key",
    "redact",
    "redact_for_share",
    "redact_spans",
    "redact_text",
    "scrub_spans",
    "share_allowed",
]
