"""Checks of request values that the API models do not cover (the multipart upload's filename)."""
from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath

from fastapi import HTTPException

MAX_FILENAME_CHARS = 255
# Bidirectional overrides and isolates: they make "gpj.pdf" display as "fdp.jpg" in lists.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def upload_filename(raw: str | None) -> str:
    """The filename an upload is registered under: the last path segment (``/`` or ``\\``) of
    the multipart ``filename``, stripped.

    Raises:
        HTTPException: 400 when it is empty, longer than 255 characters, or holds control
            characters, bidirectional overrides or text that is not Unicode.
    """
    name = PurePosixPath((raw or "").replace("\\", "/")).name.strip()
    if not name:
        raise HTTPException(400, "The upload has no filename.")
    if len(name) > MAX_FILENAME_CHARS:
        raise HTTPException(400, f"The filename is longer than {MAX_FILENAME_CHARS} characters.")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(400, "The filename is not Unicode text.") from None
    if any(unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS for ch in name):
        raise HTTPException(400, "The filename holds control characters; rename the file and upload it again.")
    return name
