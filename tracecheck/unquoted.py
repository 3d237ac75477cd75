"""Messages that quote what a trace recorded (a span's name, a tool's name) without the credential
someone pasted into it: a verdict, a note or a report never prints a secret.

Names are not secret, so the redactor is not loaded for ordinary ones: only a stretch that
could be a credential (a long run of token characters with letters and digits that is not a
hex id, a URL with a password, a private key's header) is shown to it, and replaced by its
marker when it is one.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["without_credentials"]

# Hex ids (span, trace, call ids, UUIDs) are left alone: they are what messages name spans by.
# A dash belongs to the stretch: keys carry one (`sk-proj-…`, `xoxb-…`), and cut at it, the
# redactor sees only the random part, which it does not know for a key.
_SUSPECT = (
    r"(?=[A-Za-z0-9_+/=-]*[G-Zg-z_+/=])(?=[A-Za-z0-9_+/=-]*[0-9])[A-Za-z0-9_+/=-]{20,}"
    r"|[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:\"']*:[^\s/@\"']+@\S*"
    r"|-----BEGIN[A-Z ]*PRIVATE KEY-----[^\"]*"
)


@cache
def _suspect() -> re.Pattern[str]:
    return re.compile(_SUSPECT)


def without_credentials(text: str) -> str:
    """The text with every stretch the redactor's `default` profile calls a credential replaced
    by its marker (`[REDACTED:github-token]`); the text itself when it holds none."""
    if _suspect().search(text) is None:
        return text
    from redact import redact_text  # only for a message that may quote a credential

    return _suspect().sub(lambda found: redact_text(found.group(0), profile="default"), text)
