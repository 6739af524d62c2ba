"""The table stage's event contracts (pure)."""
from __future__ import annotations

from shared import topics
from shared.events import DocumentParsed, DocumentTablesDone, PageTablesDone


def test_parsed_event_reads_as_tables_done():
    """``SPLITTER_INPUT_TOPIC=legco.documents.parsed.v1`` (no table stage) works because every
    field of ``DocumentTablesDone`` is a ``DocumentParsed`` field of the same meaning."""
    parsed = DocumentParsed(document_id="d", filename="a.pdf", strategy="question", file_type="pdf",
                            page_count=3, pages_key="documents/d/parsed/pages.json",
                            page_pdf_prefix="documents/d/pages/", scanned_pages=[2], warnings=["w"])
    done = DocumentTablesDone.model_validate_json(parsed.model_dump_json())
    shared = set(DocumentTablesDone.model_fields) - {"event_id", "ts"}
    assert shared <= set(DocumentParsed.model_fields)
    assert {k: getattr(done, k) for k in shared} == {k: getattr(parsed, k) for k in shared}


def test_page_done_is_small_and_standalone():
    assert not issubclass(PageTablesDone, DocumentParsed)
    assert set(PageTablesDone.model_fields) - {"event_version", "event_id", "document_id", "department", "visibility",
                                               "ts"} == {
        "filename", "page_number", "page_count", "result_key", "table_source", "scanned"}


def test_table_topics_are_created():
    assert {topics.TABLE_PAGES, topics.TABLE_PAGE_DONE, topics.TABLES} <= set(topics.ALL_TOPICS)
    assert "legco.pages.rendered.v1" not in topics.ALL_TOPICS and "legco.pages.tables.v1" not in topics.ALL_TOPICS
