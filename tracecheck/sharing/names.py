"""File names judged as the strings they are: an archive member's name and a link's target, a
directory entry's name.

A name is judged like any other string, and then each of its parts (what stands between `/`
or `\\`) once more as a name: detectors let a token-shaped run pass when a file extension
follows it (`video_box.ico-7a38….png`, `2018-xoxo-indieweb-1.jpg` are names whose hashes and
words look like keys), but a part that *is* a token, its extension aside (`cache/ghp_….json`,
`dl/sk-proj-….zip`), names a file by a secret. Such a part is a credential finding of the
detector whose match covers it whole.

A name that holds a finding is never printed as it is: each part that holds one is replaced by
its marker (`cache/[REDACTED:github-token].json`), and when that does not make the name clean
(a known secret written across two parts), the caller names the file by its number instead.
"""

from __future__ import annotations

import re
from typing import Final

from redact import KnownSecrets, ShareVerdict, redact_text
from redact.detectors import DetectorTimeout
from redact.inspector import Inspector
from redact.known import EMPTY_KNOWN_SECRETS
from redact.profiles import Profile
from redact.scan import prefilter_for
from redact.walk import Assessor

__all__ = ["name_verdict", "shown_name"]

_SEPARATORS = re.compile(r"([/\\])")
# A file extension: a dot and a few letters or digits, at the end (`.json`, `.tar.gz` twice).
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}\Z")
_MAX_EXTENSIONS: Final = 2


def name_verdict(name: str, link: str, profile: Profile, known: KnownSecrets) -> ShareVerdict:
    """The verdict of a name and a link's target (paths `/0` and `/1`): each judged as a
    string, and each part of it that is a token whole (its extension aside) as a credential."""
    inspector = Inspector(profile, known)
    assessor = Assessor(inspector)
    for index, text in enumerate((name, link)):
        path = f"/{index}"
        assessor.value(text, path, 1)
        if not text or _holds(inspector, text):
            continue  # the string's own finding stands for its parts too
        for part in _SEPARATORS.split(text)[::2]:
            token = _token_part(part, profile)
            if token is not None:
                assessor.record(path, "credential", token[0], part)
    return assessor.verdict()


def shown_name(name: str, profile: Profile, known: KnownSecrets) -> str | None:
    """The name as it may be printed: itself when it holds nothing, else with a marker in
    place of each part that holds something (`cache/[REDACTED:github-token].json`), or None
    when what remains would still hold something; what cannot be printed escaped (`\\xff`)."""
    inspector = Inspector(profile, known)
    shown = name if _clean(inspector, name) else _shown(name, inspector)
    return None if shown is None else _printable(shown)


def _printable(name: str) -> str:
    """The name with each character that cannot be printed as it is escaped: a byte that is not
    UTF-8 (which Python holds as a lone surrogate) as `\\xff`, a control character as `\\n`
    or `\\x1b`; so that a line shows one name and an output stream in UTF-8 can write it."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else _escaped(c) for c in name)


def _escaped(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's escape of one byte
        return f"\\x{code - 0xDC00:02x}"
    return repr(char)[1:-1]


def _holds(inspector: Inspector, text: str) -> bool:
    """Whether a string holds a credential or personal data (a name no detector could finish
    on holds one)."""
    try:
        return inspector.credential_in(text) is not None or bool(inspector.personal_in(text))
    except DetectorTimeout:
        return True


def _clean(inspector: Inspector, name: str) -> bool:
    return not _holds(inspector, name) and all(
        _token_part(part, inspector.profile) is None for part in _SEPARATORS.split(name)[::2]
    )


def _token_part(part: str, profile: Profile) -> tuple[str, int] | None:
    """(detector id, length of the stem) when a name's part, one or two extensions aside, is a
    credential from its first character to its last."""
    stem = part
    for _ in range(_MAX_EXTENSIONS):
        extension = _EXTENSION.search(stem)
        if extension is None:
            return None
        stem = stem[: extension.start()]
        found = _whole_credential(stem, profile)
        if found is not None:
            return found, len(stem)
    return None


def _whole_credential(stem: str, profile: Profile) -> str | None:
    if len(stem) < 8:
        return None
    detectors = profile.credential_detectors
    candidates, _ = prefilter_for(detectors, EMPTY_KNOWN_SECRETS).look(stem)
    for detector in candidates:
        if detector.category != "credential":
            continue
        try:
            if any(start == 0 and end == len(stem) for start, end in detector.find(stem)):
                return detector.id
        except DetectorTimeout:
            return detector.id
    return None


def _shown(name: str, inspector: Inspector) -> str | None:
    """The name with each part that holds something replaced by its marker (the extension of
    a part that is a token kept), or None when what remains still holds something."""
    profile = inspector.profile
    pieces = _SEPARATORS.split(name)
    for index in range(0, len(pieces), 2):
        part = pieces[index]
        token = _token_part(part, profile)
        if token is not None:  # the token's marker, the extension kept
            detector, stem = token
            pieces[index] = f"[REDACTED:{detector}]{part[stem:]}"
        elif _holds(inspector, part):
            pieces[index] = redact_text(part, profile=profile, known_secrets=inspector.known)
    shown = "".join(pieces)
    return shown if shown != name and not _holds(inspector, shown) else None
