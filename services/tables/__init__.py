"""Table extraction for the table stage (``services.tables``; this package's pure logic, no I/O).

Born-digital PDF tables are read with pdfplumber (:mod:`.plumber`), rendered as
GitHub-flavoured markdown (:mod:`.markdown`) and located in pypdfium2 page text
(:mod:`.locate`) so a later step can swap the flattened table text for markdown.
"""
from services.tables.locate import locate_table_span
from services.tables.markdown import parse_markdown_tables, render_markdown
from services.tables.models import ExtractedTable, MarkdownTable, TableFragment
from services.tables.plumber import extract_tables

__all__ = [
    "ExtractedTable",
    "MarkdownTable",
    "TableFragment",
    "extract_tables",
    "locate_table_span",
    "parse_markdown_tables",
    "render_markdown",
]
