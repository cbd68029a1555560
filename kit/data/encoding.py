"""Bytes to text for the files a user brings (CSV, CoNLL): a BOM's encoding, or UTF-8, or the one given.

Nothing is guessed silently: non-text or invalid bytes stop with the file, the line and the fix.
"""

from __future__ import annotations

import codecs
from pathlib import Path


def decode_text(path: Path, raw: bytes, encoding: str | None = None) -> tuple[str, str]:
    r"""``(text, encoding)`` of the bytes ``raw`` read from ``path``: a BOM's encoding, or UTF-8, or the one given.

    Never a silent fallback: non-text bytes (a workbook, an archive), an unknown encoding or an invalid byte raise
    ValueError with the line and the fix.

    Example:
        >>> decode_text(Path("a.csv"), "héllo".encode("utf-16"))
        ('héllo', 'utf-16')
        >>> decode_text(Path("a.csv"), b"caf\xe9")
        Traceback (most recent call last):
        ...
        ValueError: a.csv, line 1: byte b'\xe9' is not valid utf-8. The file is in another encoding: pass it,
        e.g. encoding='cp1252' (kit run: --encoding cp1252) for Windows/Excel files or 'latin-1', or re-save the
        file as UTF-8.
    """
    if b"\x00" in raw[:4096] and not raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        kind = (
            "an Excel workbook or a zip"
            if raw.startswith(b"PK")
            else "a gzip archive"
            if raw.startswith(b"\x1f\x8b")
            else "a binary file"
        )
        raise ValueError(
            f"{path.name} is not a text file (it looks like {kind}). Save it as CSV "
            "(UTF-8) first, e.g. in a spreadsheet: File > Save as > CSV UTF-8."
        )
    if encoding is None:
        if raw.startswith(codecs.BOM_UTF8):
            encoding = "utf-8-sig"
        elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            encoding = "utf-16"
        else:
            encoding = "utf-8"
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(
            f"Unknown encoding {encoding!r}: use a name Python knows, e.g. 'utf-8', 'cp1252', 'latin-1', 'utf-16'."
        ) from None
    try:
        return raw.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ValueError(
            f"{path.name}, line {line}: byte {raw[exc.start : exc.start + 1]!r} is not valid {encoding}. The file "
            f"is in another encoding: pass it, e.g. encoding='cp1252' (kit run: --encoding cp1252) "
            f"for Windows/Excel files or 'latin-1', or re-save the file as UTF-8."
        ) from None
