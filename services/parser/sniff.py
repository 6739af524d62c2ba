"""Decide a file's type from its content (magic bytes), not from its name.

Recognised: PDF (``%PDF-`` in the first 1024 bytes, as PDF readers accept; or further in,
up to ``PDF_JUNK_LIMIT_BYTES``, when the file also ends like a PDF — ``startxref`` and ``%%EOF``
in its last ``PDF_TAIL_BYTES`` — as pypdf recovers it: the bytes before the header are skipped,
``Sniffed.pdf_offset``), DOCX (a ZIP
holding ``[Content_Types].xml`` and ``word/document.xml``), text (UTF-8/UTF-16 with BOM or
Big5, see ``txt.try_decode_text``). Everything else is rejected with a reason that says what
the file really is.
"""
from __future__ import annotations

import codecs
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import PurePath

from shared.errors import DocumentError
from shared.models import FileType

from .txt import try_decode_text

PDF_HEADER_WINDOW_BYTES = 1024
PDF_JUNK_LIMIT_BYTES = 1 << 20
PDF_TAIL_BYTES = 4096
DAMAGED_ZIP = "damaged zip"
_HTML_RE = re.compile(rb"^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|script|meta)\b",
                      re.IGNORECASE | re.DOTALL)

_NAMES: dict[str, str] = {"pdf": "PDF", "docx": "Word document", "txt": "text file"}
_EXT_TO_TYPE: dict[str, FileType] = {"pdf": "pdf", "docx": "docx", "txt": "txt"}

# (magic prefix, description) for formats we recognise only to reject them clearly.
_REJECTED_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old-format Office file (.doc/.xls/.ppt)"),
    (b"{\\rtf", "an RTF document"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
)


@dataclass(frozen=True)
class Sniffed:
    """``file_type`` decided from content; ``note`` is a user-facing sentence when the
    file name's extension says something else (benign: the content wins), else None."""

    file_type: FileType
    note: str | None = None
    pdf_offset: int = 0
    """Where the PDF starts (bytes): other data before ``%PDF-`` is skipped by the parser."""


def _extension(filename: str) -> str:
    return PurePath(filename).suffix.lower().lstrip(".")


def _reject(filename: str, what: str, code: str = "unsupported_type") -> DocumentError:
    ext = _extension(filename)
    if ext in _NAMES:
        reason = f"The file named .{ext} is actually {what}; upload the {_NAMES[ext]} itself."
    else:
        reason = f"The file is {what}, which is not supported; upload a PDF, Word (.docx) or text file."
    return DocumentError(reason, code=code)


def _zip_kind(data: bytes) -> str:
    """Return "docx" or a description of what other kind of ZIP ``data`` is."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return DAMAGED_ZIP
    if "[Content_Types].xml" in names and "word/document.xml" in names:
        return "docx"
    if "xl/workbook.xml" in names:
        return "an Excel workbook"
    if "ppt/presentation.xml" in names:
        return "a PowerPoint presentation"
    if "content.xml" in names and "mimetype" in names:
        return "an OpenDocument file"
    return "a ZIP archive, not a Word document"


def _docx_or_reject(data: bytes, filename: str) -> FileType:
    """``"docx"`` for a Word package; raises ``DocumentError`` for any other ZIP (``corrupt``
    when it cannot be opened, else ``unsupported_type`` saying what it is)."""
    kind = _zip_kind(data)
    if kind == DAMAGED_ZIP:
        raise DocumentError(
            "The file is a damaged or incomplete ZIP/Word file; upload the complete document.",
            code="corrupt",
        )
    if kind != "docx":
        raise _reject(filename, kind)
    return "docx"


def _text_or_reject(data: bytes, head: bytes, filename: str) -> FileType | None:
    """``"txt"`` for decodable text, ``None`` for unrecognised data; raises ``DocumentError``
    (``unsupported_type``) for images and HTML, which are recognised to say what they are."""
    for magic, what in _REJECTED_MAGIC:
        if data.startswith(magic):
            raise _reject(filename, what)
    if data.startswith(b"BM") and data[6:10] == b"\x00\x00\x00\x00" and len(data) > 26:
        raise _reject(filename, "a BMP image")
    if _HTML_RE.match(head):
        raise _reject(filename, "a web page (HTML), probably an error page saved instead of the document")
    return "txt" if try_decode_text(data) is not None else None


def pdf_offset(data: bytes) -> int | None:
    """Where ``data``'s PDF header ``%PDF-`` starts (bytes), or ``None`` when it is not a PDF:
    within the first ``PDF_HEADER_WINDOW_BYTES``, or further in (up to ``PDF_JUNK_LIMIT_BYTES``)
    when the file ends like a PDF (``startxref`` and ``%%EOF`` in its last ``PDF_TAIL_BYTES``)."""
    at = data.find(b"%PDF-", 0, PDF_HEADER_WINDOW_BYTES)
    if at >= 0:
        return at
    tail = data[-PDF_TAIL_BYTES:]
    if b"startxref" not in tail or b"%%EOF" not in tail:
        return None
    at = data.find(b"%PDF-", 0, PDF_JUNK_LIMIT_BYTES)
    return at if at >= 0 else None


def _detect(data: bytes, filename: str) -> tuple[FileType, int] | None:
    """The type of non-empty ``data`` from its magic bytes (ZIP, then PDF, then text) with the
    PDF's offset (``pdf_offset``; 0 for the others), or ``None``; raises ``DocumentError`` for
    formats recognised only to be rejected."""
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _docx_or_reject(data, filename), 0
    offset = pdf_offset(data)
    if offset is not None:
        return "pdf", offset
    kind = _text_or_reject(data, data[:PDF_HEADER_WINDOW_BYTES], filename)
    return None if kind is None else (kind, 0)


def _only_symbols(data: bytes) -> bool:
    """Whether the start of ``data`` (4,096 bytes; a character cut at the end is left out) is
    printable UTF-8 without a letter or digit (quotation marks, punctuation): text, but no words."""
    try:
        head = codecs.getincrementaldecoder("utf-8")().decode(data[:4096], final=False)
    except UnicodeDecodeError:
        return False
    return bool(head.strip()) and all(ch.isprintable() or ch.isspace() for ch in head) \
        and not any(ch.isalnum() for ch in head)


def _unrecognised(filename: str, data: bytes) -> DocumentError:
    """The error for data of no accepted type (a ``.txt`` name: a text in another encoding)."""
    symbols = _only_symbols(data)
    if _extension(filename) == "txt":
        if symbols:
            return DocumentError("The text file holds only symbols and punctuation, no words; "
                                 "upload the document's text itself.", code="unsupported_encoding")
        return DocumentError(
            "The text file is not in a supported encoding (UTF-8 or Big5), or is not text; "
            "save it as UTF-8 and upload it again.",
            code="unsupported_encoding",
        )
    if symbols:
        return _reject(filename, "text of symbols and punctuation only, with no words "
                                 "(not a PDF, Word or text document)")
    return _reject(filename, "unrecognised binary data (not a PDF, Word or text file)")


def _extension_note(filename: str, detected: FileType) -> str | None:
    """A sentence for the user when the name's extension claims another accepted type, else None."""
    claimed = _EXT_TO_TYPE.get(_extension(filename))
    if claimed is not None and claimed != detected:
        return (
            f"The file is named .{_extension(filename)} but contains a {_NAMES[detected]}; "
            f"it was read as a {_NAMES[detected]}."
        )
    return None


def sniff(data: bytes, filename: str) -> Sniffed:
    """Decide the type of the uploaded file ``data`` named ``filename``.

    Returns:
        ``Sniffed(file_type, note, pdf_offset)``.

    Raises:
        DocumentError: code ``empty`` for a 0-byte file; ``unsupported_type`` for images,
            HTML, other archives/Office formats and unrecognised binary data;
            ``unsupported_encoding`` for a ``.txt`` file that is not UTF-8/UTF-16/Big5 text;
            ``corrupt`` for a damaged ZIP.
    """
    if not data:
        raise DocumentError("The file is empty (0 bytes); upload the document again.", code="empty")
    detected = _detect(data, filename)
    if detected is None:
        raise _unrecognised(filename, data)
    file_type, offset = detected
    return Sniffed(file_type, _extension_note(filename, file_type), offset)
