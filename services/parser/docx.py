"""DOCX body text in document order, tables as GitHub-flavoured markdown.

python-docx opens the package and gives the part XML; the walk over the body is our own
because python-docx's ``paragraph.text``/``cell.text`` miss text boxes, content controls
(w:sdt), tracked insertions and nested tables, and ``row.cells`` repeats merged cells.
Rules (ECMA-376 Part 1, 17.3-17.4):

* ``w:t`` text, ``w:tab`` -> TAB, ``w:br``/``w:cr`` -> newline, ``w:noBreakHyphen`` -> "-";
* deleted (``w:del``/``w:delText``, ``w:moveFrom``) and field-code (``w:instrText``) text is
  left out; inserted text (``w:ins``) and field results are kept;
* ``mc:AlternateContent``: only the first ``mc:Choice`` is read, so a text box stored as
  DrawingML plus a VML fallback is read once;
* text-box content follows the paragraph that anchors it;
* table cells: ``w:gridSpan`` cells fill the spanned columns with empty cells, ``w:vMerge``
  continuation cells are empty, so each logical cell's text appears once; a nested table is
  flattened into its cell (cells joined by `` \\| ``, rows by ``<br>``);
* headers (not footers, which hold page numbers) are put once before the body; footnotes
  and endnotes are referenced as ``[^n]`` and listed after the body (GFM footnote syntax).

Before python-docx parses anything, the ZIP directory is checked against the size limits,
so a decompression bomb is rejected in milliseconds with bounded memory.
"""
from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field

import docx
from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.part import Part
from docx.oxml import parse_xml
from lxml import etree

from shared.errors import DocumentError
from shared.models import PageText
from shared.settings import Settings

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def _w(tag: str) -> str:
    return f"{{{W_NS}}}{tag}"


T, TAB, PTAB, BR, CR = _w("t"), _w("tab"), _w("ptab"), _w("br"), _w("cr")
NO_BREAK_HYPHEN, P, TBL, TR, TC, SDT, SDT_CONTENT = (
    _w("noBreakHyphen"), _w("p"), _w("tbl"), _w("tr"), _w("tc"), _w("sdt"), _w("sdtContent")
)
CUSTOM_XML, TXBX_CONTENT, FOOTNOTE_REF, ENDNOTE_REF = (
    _w("customXml"), _w("txbxContent"), _w("footnoteReference"), _w("endnoteReference")
)
TC_PR, GRID_SPAN, V_MERGE, TR_PR, GRID_BEFORE, TBL_GRID, GRID_COL = (
    _w("tcPr"), _w("gridSpan"), _w("vMerge"), _w("trPr"), _w("gridBefore"), _w("tblGrid"), _w("gridCol")
)
W_VAL, W_ID, W_TYPE = _w("val"), _w("id"), _w("type")
ALTERNATE_CONTENT, MC_CHOICE, MC_FALLBACK = (
    f"{{{MC_NS}}}AlternateContent", f"{{{MC_NS}}}Choice", f"{{{MC_NS}}}Fallback"
)
# Subtrees whose text is not visible content.
_SKIP = {
    _w("del"), _w("moveFrom"), _w("delText"), _w("instrText"), _w("rPr"), _w("pPr"),
    _w("sdtPr"), _w("fldData"), MC_FALLBACK, _w("tblPr"), _w("tcPr"), _w("trPr"),
}

#: A ZIP member that inflates more than this many times its stored size, and is larger than
#: RATIO_CHECK_MIN_BYTES, is treated as a decompression bomb (real DOCX XML is ~5-20x).
MAX_COMPRESSION_RATIO = 100
RATIO_CHECK_MIN_BYTES = 10 * 1024 * 1024
MAX_ZIP_ENTRIES = 10_000

TOO_LARGE_REASON = (
    "The Word file is too large when decompressed ({size_mb:.0f} MB, limit {limit_mb:.0f} MB); "
    "it may be a corrupt or malicious file. Save it again in Word, or upload it as PDF."
)
BOMB_REASON = (
    "The Word file is too large when decompressed (one part expands {ratio:.0f} times its stored "
    "size); it may be a corrupt or malicious file. Save it again in Word, or upload it as PDF."
)
CORRUPT_REASON = "The Word file is damaged and cannot be read; save it again in Word and upload it."


def check_zip_limits(data: bytes, max_uncompressed_bytes: int) -> None:
    """Reject a ZIP whose declared expansion is too large, before anything is inflated.

    Args:
        data: the DOCX (ZIP) bytes.
        max_uncompressed_bytes: limit on the sum of all members' uncompressed sizes, bytes.

    Raises:
        DocumentError: code ``too_large`` (total size, per-member compression ratio above
            ``MAX_COMPRESSION_RATIO`` for members above ``RATIO_CHECK_MIN_BYTES``, or more
            than ``MAX_ZIP_ENTRIES`` members); ``corrupt`` if the ZIP directory is unreadable.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise DocumentError(CORRUPT_REASON, code="corrupt") from exc
    if len(infos) > MAX_ZIP_ENTRIES:
        raise DocumentError(
            f"The Word file has too many parts ({len(infos)}); it may be corrupt or malicious.",
            code="too_large",
        )
    total = sum(i.file_size for i in infos)
    if total > max_uncompressed_bytes:
        raise DocumentError(
            TOO_LARGE_REASON.format(size_mb=total / 2**20, limit_mb=max_uncompressed_bytes / 2**20),
            code="too_large",
        )
    for info in infos:
        if info.file_size > RATIO_CHECK_MIN_BYTES:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > MAX_COMPRESSION_RATIO:
                raise DocumentError(BOMB_REASON.format(ratio=ratio), code="too_large")


# ----------------------------------------------------------------------------- walking


@dataclass
class _Notes:
    """Footnote/endnote texts by (kind, id) and the order in which they are referenced."""

    texts: dict[tuple[str, str], str] = field(default_factory=dict)
    order: list[tuple[str, str]] = field(default_factory=list)

    def marker(self, kind: str, note_id: str) -> str:
        key = (kind, note_id)
        if key not in self.order:
            self.order.append(key)
        return f"[^{self.order.index(key) + 1}]"


class _Walker:
    def __init__(self, notes: _Notes) -> None:
        self.notes = notes

    # -- inline content ------------------------------------------------------------------
    def _inline(self, el: etree._Element, out: list[str], boxes: list[etree._Element]) -> None:
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _SKIP:
                continue
            if tag == T:
                out.append(child.text or "")
            elif tag in (TAB, PTAB):
                out.append("\t")
            elif tag in (BR, CR):
                out.append("\n")
            elif tag == NO_BREAK_HYPHEN:
                out.append("-")
            elif tag == FOOTNOTE_REF:
                out.append(self.notes.marker("footnote", child.get(W_ID, "")))
            elif tag == ENDNOTE_REF:
                out.append(self.notes.marker("endnote", child.get(W_ID, "")))
            elif tag == TXBX_CONTENT:
                boxes.append(child)
            elif tag == ALTERNATE_CONTENT:
                choice = child.find(MC_CHOICE)
                self._inline(choice if choice is not None else child, out, boxes)
            else:
                self._inline(child, out, boxes)

    def paragraph(self, p: etree._Element) -> tuple[str, list[etree._Element]]:
        """Visible text of a ``w:p`` and the text boxes anchored in it."""
        out: list[str] = []
        boxes: list[etree._Element] = []
        self._inline(p, out, boxes)
        return "".join(out).strip(), boxes

    # -- block content -------------------------------------------------------------------
    def blocks(self, container: etree._Element, flatten_tables: bool = False) -> Iterator[tuple[str, str]]:
        """Yield ``("p", text)`` and ``("table", markdown)`` blocks of a body/cell/text box
        (``flatten_tables``: tables as one-line text, for tables nested in a cell)."""
        for child in container:
            tag = child.tag
            if tag == P:
                text, boxes = self.paragraph(child)
                if text:
                    yield "p", text
                for box in boxes:
                    yield from self.blocks(box, flatten_tables)
            elif tag == TBL:
                yield "table", self.nested_table_text(child) if flatten_tables else self.table_markdown(child)
            elif tag in (SDT, CUSTOM_XML):
                content = child.find(SDT_CONTENT) if tag == SDT else child
                if content is not None:
                    yield from self.blocks(content, flatten_tables)
            elif tag == ALTERNATE_CONTENT:
                choice = child.find(MC_CHOICE)
                if choice is not None:
                    yield from self.blocks(choice, flatten_tables)

    def nested_table_text(self, tbl: etree._Element) -> str:
        rows = self.table_grid(tbl)
        return "<br>".join(" \\| ".join(c for c in row if c) for row in rows if any(row))

    # -- tables --------------------------------------------------------------------------
    @staticmethod
    def _children(el: etree._Element, tag: str) -> Iterator[etree._Element]:
        """Direct ``tag`` children of ``el``, looking through w:sdt/w:customXml wrappers."""
        for child in el:
            if child.tag == tag:
                yield child
            elif child.tag in (SDT, CUSTOM_XML):
                content = child.find(SDT_CONTENT) if child.tag == SDT else child
                if content is not None:
                    yield from _Walker._children(content, tag)

    def table_grid(self, tbl: etree._Element) -> list[list[str]]:
        """Logical grid of cell texts: merged-away positions are empty strings."""
        grid: list[list[str]] = []
        for tr in self._children(tbl, TR):
            row: list[str] = []
            tr_pr = tr.find(TR_PR)
            grid_before = tr_pr.find(GRID_BEFORE) if tr_pr is not None else None
            if grid_before is not None:
                row.extend([""] * _bounded_int(grid_before.get(W_VAL), 0))
            for tc in self._children(tr, TC):
                tc_pr = tc.find(TC_PR)
                span, continued = 1, False
                if tc_pr is not None:
                    gs = tc_pr.find(GRID_SPAN)
                    if gs is not None:
                        span = max(1, _bounded_int(gs.get(W_VAL), 1))
                    vm = tc_pr.find(V_MERGE)
                    continued = vm is not None and vm.get(W_VAL, "continue") == "continue"
                text = "" if continued else self._cell_flat(tc)
                row.append(text)
                row.extend([""] * (span - 1))
            grid.append(row)
        width = max((len(r) for r in grid), default=0)
        grid_cols = tbl.find(TBL_GRID)
        if grid_cols is not None:
            width = max(width, len(grid_cols.findall(GRID_COL)))
        return [r + [""] * (width - len(r)) for r in grid]

    def _cell_flat(self, tc: etree._Element) -> str:
        parts = [text.replace("\n", "<br>") for _, text in self.blocks(tc, flatten_tables=True)]
        return "<br>".join(p for p in parts if p)

    def table_markdown(self, tbl: etree._Element) -> str:
        """GitHub-flavoured markdown of a table; the first row is the header row."""
        grid = self.table_grid(tbl)
        if not grid or not any(any(c for c in row) for row in grid):
            return ""
        width = len(grid[0])

        def line(cells: list[str]) -> str:
            return "| " + " | ".join(_md_cell(c) for c in cells) + " |"

        lines = [line(grid[0]), "|" + "---|" * width]
        lines.extend(line(r) for r in grid[1:])
        return "\n".join(lines)


#: Word allows at most 63 columns; larger spans in the XML are corrupt or hostile.
MAX_TABLE_COLUMNS = 64


def _bounded_int(value: str | None, default: int) -> int:
    """``w:val`` as an int in 0..MAX_TABLE_COLUMNS (``default`` if missing/invalid)."""
    try:
        return min(max(int(value), 0), MAX_TABLE_COLUMNS) if value is not None else default
    except ValueError:
        return default


def _md_cell(text: str) -> str:
    text = text.replace("\t", " ").replace("\n", "<br>")
    # Escape pipes that are not already escaped (nested-table separators are).
    out = []
    for i, ch in enumerate(text):
        if ch == "|" and (i == 0 or text[i - 1] != "\\"):
            out.append("\\|")
        else:
            out.append(ch)
    return "".join(out).strip()


def _part_element(part: Part) -> etree._Element:
    element: etree._Element | None = getattr(part, "element", None)  # XmlPart has one, a plain Part only a blob
    if element is not None:
        return element
    return parse_xml(part.blob)


def _note_texts(document: DocxDocument, walker: _Walker) -> dict[tuple[str, str], str]:
    texts: dict[tuple[str, str], str] = {}
    for rel in document.part.rels.values():
        if rel.is_external or rel.reltype not in (RT.FOOTNOTES, RT.ENDNOTES):
            continue
        kind = "footnote" if rel.reltype == RT.FOOTNOTES else "endnote"
        root = _part_element(rel.target_part)
        for note in root:
            if note.get(W_TYPE) in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            body = "\n".join(text for _, text in walker.blocks(note))
            texts[(kind, note.get(W_ID, ""))] = body.strip()
    return texts


def _header_texts(document: DocxDocument, walker: _Walker) -> list[str]:
    seen: list[str] = []
    for rel in document.part.rels.values():
        if rel.is_external or rel.reltype != RT.HEADER:
            continue
        text = "\n".join(t for _, t in walker.blocks(_part_element(rel.target_part))).strip()
        if text and text not in seen:
            seen.append(text)
    return seen


def docx_to_text(document: DocxDocument) -> str:
    """Render an opened python-docx ``Document`` as text (see module docstring for rules)."""
    notes = _Notes()
    walker = _Walker(notes)
    out: list[str] = []
    for header in _header_texts(document, walker):
        out.append(header)
    for kind, text in walker.blocks(document.element.body):
        if kind == "table":
            if text:
                # GFM needs a blank line before and after a table.
                out.append(("\n" if out else "") + text + "\n")
        else:
            out.append(text)
    notes.texts = _note_texts(document, walker)
    if notes.order:
        out.append("")
        for i, key in enumerate(notes.order, start=1):
            out.append(f"[^{i}]: {notes.texts.get(key, '')}")
    text = "\n".join(out)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip()


def parse_docx(data: bytes, settings: Settings) -> PageText:
    """Body text of a DOCX as one ``PageText`` (``page_number=None``).

    Args:
        data: the DOCX bytes (already sniffed as a DOCX package).
        settings: uses ``max_docx_uncompressed_bytes`` (bytes).

    Raises:
        DocumentError: ``too_large`` (decompression limits, checked before parsing),
            ``corrupt`` (python-docx or the XML parser cannot read it).
    """
    check_zip_limits(data, settings.max_docx_uncompressed_bytes)
    try:
        document = docx.Document(io.BytesIO(data))
        text = docx_to_text(document)
    except (DocumentError, MemoryError, RecursionError):
        raise
    except Exception as exc:  # python-docx/lxml errors on a malformed package
        raise DocumentError(CORRUPT_REASON, code="corrupt") from exc
    return PageText(page_number=None, text=text, char_count=len(text))
