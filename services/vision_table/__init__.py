"""Table extraction for the ``vision-table`` service (pure logic, no I/O).

Born-digital PDF tables are read with pdfplumber (:mod:`.plumber`), rendered as
GitHub-flavoured markdown (:mod:`.markdown`) and located in pypdfium2 page text
(:mod:`.locate`) so a later step can swap the flattened table text for markdown.
"""
from services.vision_table.locate import locate_table_span
from services.vision_table.markdown import parse_markdown_tables, render_markdown
from services.vision_table.models import ExtractedTable, MarkdownTable, TableFragment
from services.vision_table.plumber import extract_tables

__all__ = [
    "ExtractedTable",
    "MarkdownTable",
    "TableFragment",
    "extract_tables",
    "locate_table_span",
    "parse_markdown_tables",
    "render_markdown",
]
