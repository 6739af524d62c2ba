"""Shared helpers for splitter tests: corpus paths and document loading.

Documents are loaded through the parser's API (``services.parser.parse.parse_document``);
``pdfium_doc`` and ``pypdf_doc`` read a PDF with one library only, for robustness tests.
"""
from __future__ import annotations

import json
from pathlib import Path

from services.parser.parse import parse_document
from shared.models import Chunk, PageText, ParsedDocument
from shared.settings import Settings

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
FIXTURES = CORPUS / "fixtures"
REAL = CORPUS / "real"
BAD = CORPUS / "bad"


def pdfium_doc(path: Path) -> ParsedDocument:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    pages = []
    for i in range(len(pdf)):
        page = pdf[i]
        text = page.get_textpage().get_text_range().replace("\r\n", "\n").replace("\r", "\n")
        pages.append(PageText(page_number=i + 1, text=text, char_count=len(text)))
    return ParsedDocument(
        document_id=path.stem, filename=path.name, file_type="pdf", page_count=len(pages), pages=pages,
        extractor="pypdfium2",
    )


def pypdf_doc(path: Path) -> ParsedDocument:
    """pypdf per-page text (``\\n`` line ends, trailing spaces) for robustness tests."""
    import pypdf

    reader = pypdf.PdfReader(str(path))
    pages = [PageText(page_number=i + 1, text=p.extract_text() or "") for i, p in enumerate(reader.pages)]
    return ParsedDocument(
        document_id=path.stem, filename=path.name, file_type="pdf", page_count=len(pages), pages=pages,
        extractor="pypdf",
    )


_CACHE: dict[Path, ParsedDocument] = {}


def load_doc(path: Path) -> ParsedDocument:
    """Parse a corpus file into a ``ParsedDocument`` (cached per path)."""
    if path in _CACHE:
        return _CACHE[path]
    doc = parse_document(path.read_bytes(), path.name, path.stem, Settings(_env_file=None)).parsed
    _CACHE[path] = doc
    return doc


def load_truth(stem: str) -> dict:
    """The ground-truth JSON of a fixture (``fixtures/<stem>.truth.json``)."""
    return json.loads((FIXTURES / f"{stem}.truth.json").read_text(encoding="utf-8"))


def uncovered(body_text: str, chunks: list[Chunk]) -> list[int]:
    """Offsets of the non-space characters of ``body_text`` (the cleaned body,
    ``preprocess.build_body``) that lie in no chunk's ``[char_start, char_end)`` span: ``[]``
    when every character of the body is in some chunk (the coverage invariant)."""
    covered = [False] * len(body_text)
    for c in chunks:
        for i in range(c.metadata["char_start"], c.metadata["char_end"]):
            covered[i] = True
    return [i for i, ch in enumerate(body_text) if not ch.isspace() and not covered[i]]
