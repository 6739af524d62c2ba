"""Write a :class:`~bench.unseen.model.Paper` as PDF (HTML printed by headless Chromium), DOCX
(python-docx) or TXT (UTF-8, one paragraph a line).

PDF pages carry the furniture of the corpus fixtures: ``(H)`` at the top of page 1, the footer
``H-<n>`` and the date line ``YYYY-MM-DD`` on every page (CSS page-margin boxes). Chromium with
the Noto CJK fonts writes some ideographs as Kangxi radicals in the text layer (``⽔`` U+2F54
for 水): a real quirk of browser-printed papers, undone by NFKC at search time.
"""
from __future__ import annotations

import html
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path

from bench.unseen.model import Paper, paragraphs

CHROMIUM = "/usr/bin/chromium"
FIXED_TIME = datetime(2025, 1, 2, 9, 0, 0)  # DOCX core properties: the same bytes of metadata on every run

_CSS = """
@page {{ size: A4; margin: 24mm 22mm 26mm 22mm;
  @bottom-center {{ content: "{letter}-" counter(page) "\\A {date}"; white-space: pre;
                    font-family: "Noto Sans CJK TC", sans-serif; font-size: 9pt; }} }}
@page :first {{ @top-right {{ content: "({letter})"; font-family: "Noto Sans CJK TC", sans-serif;
                              font-size: 12pt; font-weight: bold; }} }}
body {{ font-family: {font}; font-size: 12pt; line-height: 1.55; }}
p {{ margin: 0 0 7pt 0; text-align: justify; }}
p.stamp {{ text-align: right; font-size: 10pt; }}
p.title {{ text-align: center; font-size: 15pt; font-weight: bold; margin-top: 6pt; }}
p.subtitle {{ text-align: center; font-size: 12pt; margin-bottom: 14pt; }}
p.heading {{ font-weight: bold; text-decoration: underline; margin-top: 12pt; }}
p.topic {{ font-weight: bold; margin-top: 10pt; }}
p.question {{ font-weight: bold; margin-top: 8pt; }}
p.answer {{ text-indent: 0; }}
"""


def to_html(paper: Paper) -> str:
    """The paper as one HTML page (the PDF's source)."""
    font = '"Noto Serif CJK TC", serif'  # Latin glyphs too: English words keep their spaces in pdfium's text
    css = _CSS.format(letter=paper.letter, date=paper.date, font=font)
    body = "\n".join(f'<p class="{kind}">{html.escape(text).replace(chr(9), "&emsp;")}</p>'
                     for kind, text in paragraphs(paper))
    lang = "zh-HK" if paper.lang == "zh" else "en-GB"
    return f'<!doctype html>\n<html lang="{lang}"><head><meta charset="utf-8"><style>{css}</style></head>' \
           f"<body>\n{body}\n</body></html>\n"


def write_pdf(paper: Paper, out: Path, timeout_s: float = 120.0) -> None:
    """Print the paper's HTML to ``out`` with headless Chromium (no browser header/footer).

    Raises:
        subprocess.CalledProcessError / TimeoutExpired: Chromium failed or took over ``timeout_s`` s.
    """
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "paper.html"
        src.write_text(to_html(paper), encoding="utf-8")
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                        f"--user-data-dir={tmp}/profile", f"--print-to-pdf={out}", src.as_uri()],
                       check=True, capture_output=True, timeout=timeout_s)


def write_docx(paper: Paper, out: Path) -> None:
    """The paper as a Word document: one Word paragraph per paragraph, bold headings."""
    import docx
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.oxml.ns import qn
    from docx.shared import Pt

    d = docx.Document()
    normal = d.styles["Normal"]
    normal.font.name = "Times New Roman"
    normal.font.size = Pt(12)
    normal.element.rPr.rFonts.set(qn("w:eastAsia"), "新細明體")
    for kind, text in paragraphs(paper):
        p = d.add_paragraph()
        run = p.add_run(text)
        if kind in ("title", "heading", "topic", "question"):
            run.bold = True
        if kind == "title":
            run.font.size = Pt(15)
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif kind in ("subtitle",):
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif kind == "stamp":
            p.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    d.core_properties.author = "Development Bureau"
    d.core_properties.title = paper.title_en
    d.core_properties.created = FIXED_TIME
    d.core_properties.modified = FIXED_TIME
    d.core_properties.last_modified_by = "Development Bureau"
    d.save(str(out))


def write_txt(paper: Paper, out: Path) -> None:
    """The paper as UTF-8 text, one paragraph a line (a TAB after ``Q1.`` in Q-only styles)."""
    out.write_text("\n".join(text for _, text in paragraphs(paper)) + "\n", encoding="utf-8")


def write(paper: Paper, folder: Path) -> Path:
    """Write the paper into ``folder`` in its own format; returns the file's path."""
    out = folder / paper.filename
    {"pdf": write_pdf, "docx": write_docx, "txt": write_txt}[paper.fmt](paper, out)
    return out
