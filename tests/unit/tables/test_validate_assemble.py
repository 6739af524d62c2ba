"""Vision answer validation, page results and their assembly/injection (pure)."""
from __future__ import annotations

import functools

from services.splitter.inject import inject_page
from services.splitter.split import split_document
from services.tables import parse_markdown_tables
from services.tables.assemble import apply_page_results, scanned_notice
from services.tables.document import page_results
from services.tables.page_result import build_page_result
from services.tables.validate import numbers_in, validate_answer
from shared.models import PageText, ParsedDocument, TableSpan
from shared.settings import Settings
from tests.unit.tables.conftest import fixture_pdf

PAGE = "表一\n項目 古洞北 粉嶺北\n面積 448 167\n單位 11 726 36,000\n"


def test_numbers_normalised():
    [t] = parse_markdown_tables("| a | b |\n|---|---|\n| 11 726 | 36,000 |\n| 2.5000 | x1 |")
    assert numbers_in([t]) == ["11726", "36000", "2.5000", "1"]


def test_validate_accepts_numbers_from_the_text_layer():
    ok = validate_answer("| 項目 | 古洞北 |\n| --- | --- |\n| 面積 | 448 |\n| 單位 | 11,726 |", PAGE, False)
    assert ok.ok and ok.tables[0].rows[1] == ["單位", "11,726"]


def test_validate_rejects_invented_numbers_and_non_tables():
    bad = validate_answer("| 項目 | 古洞北 |\n| --- | --- |\n| 面積 | 449 |", PAGE, False)
    assert bad.reason == "invented_number" and bad.details == ["449"]
    assert validate_answer("Sorry, I cannot read this page.", PAGE, False).reason == "no_table"
    assert validate_answer("", PAGE, False).reason == "no_table"
    # scanned page: no text layer to compare with, a table is enough
    assert validate_answer("| a | b |\n| --- | --- |\n| 1 | 2 |", "", True).ok


def test_inject_replaces_spans_and_appends_unlocated():
    text = "intro\nA B 1 2\nafter"
    entries = [TableSpan(role="table", source="pdfplumber", markdown="| A | B |\n| --- | --- |\n| 1 | 2 |",
                         span=(6, 13)),
               TableSpan(role="table", source="pdfplumber", markdown="| X |\n| --- |", span=None)]
    out = inject_page(text, entries)
    assert out == "intro\n| A | B |\n| --- | --- |\n| 1 | 2 |\nafter\n\n| X |\n| --- |\n"
    # a continuation fragment is removed
    cont = TableSpan(role="continuation", source="pdfplumber", span=(0, 8))
    assert inject_page("rows 3 4\nbody", [cont]) == "\nbody"


def test_table_span_json_is_the_documented_dict():
    """``PageText.tables`` entries are stored as the dicts the table stage always wrote."""
    entry = {"role": "table", "source": "vision", "markdown": "| a |\n| --- |", "pages": [2, 3],
             "header": ["a"], "n_rows": 0, "span": [4, 9], "in_text": False}
    page = PageText.model_validate({"page_number": 2, "text": "t", "tables": [entry]})
    assert page.tables[0].span == (4, 9) and page.tables[0].pages == [2, 3]
    assert page.model_dump(mode="json")["tables"] == [entry]


@functools.cache
def _b():
    from services.parser.parse import parse_document

    p = fixture_pdf("B")
    out = parse_document(p.read_bytes(), p.name, "local", Settings(_env_file=None))
    return out.parsed, out.page_pdfs


def test_vision_table_takes_the_place_of_pdfplumber_table():
    parsed, pdfs = _b()
    results = page_results(parsed, pdfs)
    p3 = parsed.pages[2]
    answer = "| 發展參數 | 變化 |\n| --- | --- |\n| 住宅單位 | +16,000 個 |\n"
    results[2] = build_page_result(pdfs[3], 3, p3.text, False, answer)
    assert results[2].table_source == "vision"
    doc = apply_page_results(parsed, results)
    [entry] = doc.pages[2].tables
    assert entry.source == "vision" and entry.span is not None
    cs = split_document(doc, "question", Settings(_env_file=None))
    b1 = next(c for c in cs.chunks if c.metadata.get("question_id") == "B1")
    assert "| 住宅單位 | +16,000 個 |" in b1.text and "| 發展參數 | 原有規劃" not in b1.text
    assert "約 60,000 個" not in b1.text  # the pdfplumber table's flattened text is gone too
    assert b1.metadata["table_source"] == "vision"


def test_rejected_vision_answer_keeps_pdfplumber():
    parsed, pdfs = _b()
    res = build_page_result(pdfs[3], 3, parsed.pages[2].text, False,
                            "| 發展參數 | 變化 |\n| --- | --- |\n| 住宅單位 | +99,999 個 |")
    assert res.table_source == "pdfplumber" and res.vision_status == "rejected"
    assert res.vision_reject_reason == "invented_number"


def test_scanned_pages_say_so_without_vision_and_use_it_with():
    doc = ParsedDocument(document_id="x", filename="s.pdf", file_type="pdf", page_count=2, pages=[
        PageText(page_number=1, text="正文第一頁", char_count=5),
        PageText(page_number=2, text="CB(3)710", char_count=8, scanned=True)])
    plain = apply_page_results(doc, page_results(doc, {}))
    assert scanned_notice(2) in plain.pages[1].text
    cs = split_document(plain, "token", Settings(_env_file=None))
    assert any(scanned_notice(2) in c.text and c.metadata.get("scanned") for c in cs.chunks)
    read = build_page_result(None, 2, "CB(3)710", True, "掃描內容\n\n| a | b |\n| --- | --- |\n| 1 | 2 |")
    seen = apply_page_results(doc, [build_page_result(None, 1, "正文第一頁", False), read])
    assert seen.pages[1].text.startswith("掃描內容") and seen.pages[1].tables[0].in_text is True


def test_unreadable_page_pdf_gives_no_tables_and_a_note():
    res = build_page_result(b"%PDF-1.4 broken", 3, "text", False)
    assert res.table_source == "none" and res.tables == [] and "pdfplumber" in res.notes[0]
