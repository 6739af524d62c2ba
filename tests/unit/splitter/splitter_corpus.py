"""Shared helpers for splitter tests: corpus paths and document loading.

Documents are loaded through the parser's API (``services.parser.parse.parse_document``)
when it exists, otherwise with a minimal local reader (pypdfium2 per-page text, python-docx
paragraphs + tables in body order, UTF-8 text).
"""
from __future__ import annotations

import json
from pathlib import Path

from shared.models import PageText, ParsedDocument

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
FIXTURES = CORPUS / "fixtures"
REAL = CORPUS / "real"
BAD = CORPUS / "bad"


def _parser_api():
    try:
        from services.parser.parse import parse_document  # type: ignore[attr-defined]
    except Exception:  # parser not written yet
        return None
    return parse_document


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


def _docx_doc(path: Path) -> ParsedDocument:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    d = docx.Document(str(path))
    lines: list[str] = []
    for block in d.element.body.iterchildren():
        tag = block.tag.rsplit("}", 1)[-1]
        if tag == "p":
            lines.append(Paragraph(block, d).text)
        elif tag == "tbl":
            table = Table(block, d)
            rows = []
            for r in table.rows:
                cells = [c.text.replace("\n", " ").strip() for c in r.cells]
                rows.append("| " + " | ".join(cells) + " |")
            if rows:
                ncols = rows[0].count("|") - 1
                rows.insert(1, "|" + "---|" * ncols)
            lines.extend(rows)
    text = "\n".join(lines)
    return ParsedDocument(
        document_id=path.stem, filename=path.name, file_type="docx", page_count=1,
        pages=[PageText(page_number=None, text=text, char_count=len(text))], extractor="python-docx",
    )


def _txt_doc(path: Path) -> ParsedDocument:
    text = path.read_bytes().decode("utf-8-sig")
    return ParsedDocument(
        document_id=path.stem, filename=path.name, file_type="txt", page_count=1,
        pages=[PageText(page_number=None, text=text, char_count=len(text))], extractor="utf-8",
    )


_CACHE: dict[Path, ParsedDocument] = {}


def load_doc(path: Path) -> ParsedDocument:
    """Parse a corpus file into a ``ParsedDocument`` (cached per path)."""
    if path in _CACHE:
        return _CACHE[path]
    api = _parser_api()
    doc = None
    if api is not None:
        from shared.settings import Settings

        try:
            doc = api(path.read_bytes(), path.name, path.stem, Settings(_env_file=None)).parsed
        except Exception:  # parser still in progress: use the local reader
            doc = None
    if doc is None:
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            doc = pdfium_doc(path)
        elif suffix == ".docx":
            doc = _docx_doc(path)
        else:
            doc = _txt_doc(path)
    _CACHE[path] = doc
    return doc


def load_truth(stem: str) -> dict:
    """The ground-truth JSON of a fixture (``fixtures/<stem>.truth.json``)."""
    return json.loads((FIXTURES / f"{stem}.truth.json").read_text(encoding="utf-8"))
