"""The document listing (``GET /api/v1/documents``: ``listing.py``, ``content_search.py``): search in
filenames and chunk text, filters, sorts, pages and totals, all inside the caller's department
scope — another department's documents are neither listed nor counted nor searched — and 422s
that say what is wrong. On the gateway app with in-memory stores, plus the Chroma filter itself
on an in-process Chroma."""
from __future__ import annotations

import uuid
from datetime import date
from typing import Any
from zoneinfo import ZoneInfo

import chromadb
import pytest
from fastapi.testclient import TestClient

from services.gateway.listing import day_window, select, sort_records
from shared.api import DocumentListQuery, DocumentRecord
from shared.scope import chroma_where
from shared.settings import Settings
from shared.vectorstore import VectorStore
from tests.unit.gateway.test_gateway_contract import ADMIN_KEY, Gateway, MemoryVectors, key_store

A_MEMBER = "lgk_a1a1a1a1_" + "a" * 32
B_MEMBER = "lgk_b1b1b1b1_" + "b" * 32
HK = ZoneInfo("Asia/Hong_Kong")


def record(n: int, filename: str, department: str = "dept-a", **fields: Any) -> DocumentRecord:
    values: dict[str, Any] = {"document_id": f"{n:032x}", "filename": filename, "department": department,
                              "strategy": "token", "status": "indexed", "chunk_count": 1, "page_count": 1,
                              "upload_date": f"2026-05-{n:02d}T04:00:00+00:00", "upload_seq": n} | fields
    return DocumentRecord.model_validate(values)


class Library:
    """A gateway holding seven documents of ``dept-a``, one shared, and three of ``dept-b`` (one
    named like an ``dept-a`` paper, one holding the same chunk text), with a member key of each
    department and an admin key."""

    def __init__(self) -> None:
        self.gw = Gateway(MemoryVectors())
        self.vectors: MemoryVectors = self.gw.app.state.gateway.vectors
        self.gw.app.state.gateway.keys = key_store(self.gw.store, (ADMIN_KEY, "default", "admin"),
                                                   (A_MEMBER, "dept-a", "member"), (B_MEMBER, "dept-b", "member"))
        self.records = [
            record(1, "Drainage 排水.pdf", chunk_count=12, page_count=6),
            record(2, "budget-2026.pdf", strategy="question", chunk_count=30, page_count=20),
            record(3, "Minutes.docx", status="failed", chunk_count=0, page_count=None),
            record(4, "roads.txt", status="processing", chunk_count=0, page_count=None),
            record(5, "alpha.pdf", strategy="question", chunk_count=5, page_count=3),
            record(6, "zeta.pdf", status="queued", chunk_count=0, page_count=None),
            record(7, "housing.pdf", chunk_count=8, page_count=40),
            record(8, "council.pdf", department="ops", visibility="shared", chunk_count=2, page_count=2),
            record(9, "drainage-b.pdf", department="dept-b", chunk_count=100, page_count=50),
            record(10, "secret.pdf", department="dept-b", status="failed", chunk_count=0),
            record(11, "b-notes.pdf", department="dept-b", chunk_count=7),
        ]
        for r in self.records:
            self.gw.registry.records[r.document_id] = r
        self.chunk(2, "The Finance Committee approved the ex gratia allowance.")
        self.chunk(7, "公共房屋 waiting time")
        self.chunk(11, "ex gratia allowance for dept-b only")

    def chunk(self, n: int, text: str) -> None:
        r = self.records[n - 1]
        self.vectors.chunks[f"{r.document_id}_0"] = (text, {"document_id": r.document_id, "department": r.department,
                                                           "visibility": r.visibility})

    def client(self, key: str) -> TestClient:
        return TestClient(self.gw.app, headers={"Authorization": f"Bearer {key}"})

    def names(self, key: str = A_MEMBER, **params: Any) -> list[str]:
        resp = self.client(key).get("/api/v1/documents", params=params)
        assert resp.status_code == 200, resp.text
        return [d["filename"] for d in resp.json()["documents"]]


@pytest.fixture
def lib() -> Library:
    return Library()


# --- the listing over HTTP ------------------------------------------------------------------------

def test_without_parameters_every_document_of_the_scope_newest_first(lib: Library) -> None:
    body = lib.client(A_MEMBER).get("/api/v1/documents").json()
    assert [d["filename"] for d in body["documents"]] == [
        "council.pdf", "housing.pdf", "zeta.pdf", "alpha.pdf", "roads.txt", "Minutes.docx", "budget-2026.pdf",
        "Drainage 排水.pdf"]
    assert (body["total"], body["total_documents"], body["total_chunks"]) == (8, 8, 12 + 30 + 5 + 8 + 2)
    assert (body["page"], body["page_size"], body["notice"]) == (1, None, None)


def test_search_matches_filenames_ignoring_case(lib: Library) -> None:
    assert lib.names(q="DRAINAGE") == ["Drainage 排水.pdf"]
    assert lib.names(q="排水") == ["Drainage 排水.pdf"]
    assert lib.names(q="  .docx ") == ["Minutes.docx"]


def test_search_matches_chunk_text_of_the_scope_only(lib: Library) -> None:
    assert lib.names(q="EX GRATIA") == ["budget-2026.pdf"]  # dept-b's chunk holds it too
    assert lib.names(q="公共房屋") == ["housing.pdf"]
    text, where = lib.vectors.searches[-1]
    assert text == "公共房屋" and where == chroma_where(frozenset({"dept-a"}))
    assert lib.names(B_MEMBER, q="ex gratia") == ["b-notes.pdf"]
    assert sorted(lib.names(ADMIN_KEY, q="ex gratia")) == ["b-notes.pdf", "budget-2026.pdf"]


def test_another_departments_documents_are_neither_listed_nor_counted(lib: Library) -> None:
    body = lib.client(A_MEMBER).get("/api/v1/documents", params={"q": "drainage", "page_size": 1}).json()
    assert [d["filename"] for d in body["documents"]] == ["Drainage 排水.pdf"]
    assert body["total"] == 1 and body["total_documents"] == 8  # not drainage-b.pdf, not dept-b's 3
    failed = lib.client(A_MEMBER).get("/api/v1/documents", params={"status": "failed"}).json()
    assert [d["filename"] for d in failed["documents"]] == ["Minutes.docx"] and failed["total"] == 1
    b = lib.client(B_MEMBER).get("/api/v1/documents").json()
    assert (b["total"], b["total_documents"], b["total_chunks"]) == (4, 4, 100 + 7 + 2)  # its 3 + shared


def test_a_member_cannot_widen_its_scope(lib: Library) -> None:
    resp = lib.client(A_MEMBER).get("/api/v1/documents", params={"department": "dept-b", "q": "secret"})
    assert resp.status_code == 403
    assert lib.names(q="secret") == []


def test_an_admin_filters_by_department_before_counting(lib: Library) -> None:
    body = lib.client(ADMIN_KEY).get("/api/v1/documents", params={"department": "dept-b", "status": "indexed"}).json()
    assert sorted(d["filename"] for d in body["documents"]) == ["b-notes.pdf", "council.pdf", "drainage-b.pdf"]
    assert (body["total"], body["total_documents"]) == (3, 4)
    everything = lib.client(ADMIN_KEY).get("/api/v1/documents").json()
    assert everything["total_documents"] == 11


def test_status_and_strategy_filters_take_several_values(lib: Library) -> None:
    assert lib.names(status=["queued", "processing"]) == ["zeta.pdf", "roads.txt"]
    assert lib.names(status="queued,failed") == ["zeta.pdf", "Minutes.docx"]
    assert lib.names(strategy="question") == ["alpha.pdf", "budget-2026.pdf"]
    assert lib.names(strategy="question", status="indexed", q="alpha") == ["alpha.pdf"]


def test_upload_dates_are_inclusive_days_in_hong_kong(lib: Library) -> None:
    # uploads are at 04:00 UTC = 12:00 in Hong Kong on the day of their number
    assert lib.names(uploaded_from="2026-05-06", uploaded_to="2026-05-07") == ["housing.pdf", "zeta.pdf"]
    assert lib.names(uploaded_to="2026-05-01") == ["Drainage 排水.pdf"]
    lib.gw.registry.records[lib.records[0].document_id] = record(1, "late.pdf", upload_date="2026-05-01T17:00:00Z")
    assert lib.names(uploaded_from="2026-05-02", uploaded_to="2026-05-02") == ["budget-2026.pdf", "late.pdf"]


@pytest.mark.parametrize(("sort", "first_three"), [
    ("uploaded_at", ["Drainage 排水.pdf", "budget-2026.pdf", "Minutes.docx"]),
    ("filename", ["alpha.pdf", "budget-2026.pdf", "council.pdf"]),
    ("-filename", ["zeta.pdf", "roads.txt", "Minutes.docx"]),
    ("status", ["zeta.pdf", "roads.txt", "council.pdf"]),
    ("-status", ["Minutes.docx", "council.pdf", "housing.pdf"]),
    ("-pages", ["housing.pdf", "budget-2026.pdf", "Drainage 排水.pdf"]),
    ("pages", ["council.pdf", "alpha.pdf", "Drainage 排水.pdf"]),
    ("-chunks", ["budget-2026.pdf", "Drainage 排水.pdf", "housing.pdf"]),
])
def test_sorts(lib: Library, sort: str, first_three: list[str]) -> None:
    assert lib.names(sort=sort)[:3] == first_three


def test_documents_without_a_page_count_sort_last_either_way(lib: Library) -> None:
    assert lib.names(sort="pages")[-3:] == ["zeta.pdf", "roads.txt", "Minutes.docx"]
    assert lib.names(sort="-pages")[-3:] == ["zeta.pdf", "roads.txt", "Minutes.docx"]


def test_pages_split_the_matches_without_overlap(lib: Library) -> None:
    pages = [lib.client(A_MEMBER).get("/api/v1/documents", params={"page": n, "page_size": 3, "sort": "filename"})
             .json() for n in (1, 2, 3, 4)]
    assert [[d["filename"] for d in p["documents"]] for p in pages] == [
        ["alpha.pdf", "budget-2026.pdf", "council.pdf"], ["Drainage 排水.pdf", "housing.pdf", "Minutes.docx"],
        ["roads.txt", "zeta.pdf"], []]
    assert {(p["total"], p["page_size"]) for p in pages} == {(8, 3)}
    assert [p["page"] for p in pages] == [1, 2, 3, 4]


def test_search_falls_back_to_filenames_when_chroma_is_down(lib: Library) -> None:
    lib.vectors.down = True
    body = lib.client(A_MEMBER).get("/api/v1/documents", params={"q": "budget"}).json()
    assert [d["filename"] for d in body["documents"]] == ["budget-2026.pdf"]
    assert body["notice"] and "Only filenames were searched" in body["notice"]


@pytest.mark.parametrize(("params", "says"), [
    ({"page_size": "500"}, "page_size is documents per page: a whole number from 1 to 200"),
    ({"page_size": "0"}, "page_size is documents per page"),
    ({"page": "0"}, "page is the page to show: a whole number, 1 or more — got '0'"),
    ({"page": "two"}, "page is the page to show"),
    ({"status": "done"}, "status is one or more of queued, processing, indexed, failed"),
    ({"strategy": "words"}, "strategy is the chunking strategy chosen at upload: token or question"),
    ({"sort": "size"}, "sort is one of uploaded_at, filename, status, pages, chunks; a leading '-' sorts "
                       "descending — got 'size'"),
    ({"uploaded_from": "16/05/2026"}, "uploaded_from is a date written YYYY-MM-DD"),
    ({"uploaded_from": "2026-05-10", "uploaded_to": "2026-05-01"},
     "uploaded_from (2026-05-10) is after uploaded_to (2026-05-01)"),
    ({"q": "x" * 201}, "q is search text (at most 200 characters)"),
])
def test_bad_parameters_are_a_422_that_says_why(lib: Library, params: dict[str, str], says: str) -> None:
    resp = lib.client(A_MEMBER).get("/api/v1/documents", params=params)
    assert resp.status_code == 422
    detail = resp.json()["detail"]
    assert isinstance(detail, str) and says in detail, detail
    assert "Traceback" not in detail and "{" not in detail


# --- the pure parts -------------------------------------------------------------------------------

def test_select_counts_every_match_and_cuts_one_page() -> None:
    records = [record(n, f"{n}.pdf") for n in range(1, 8)]
    page = select(records, DocumentListQuery(page=2, page_size=3, sort="uploaded_at"), set(), HK)
    assert [r.filename for r in page.documents] == ["4.pdf", "5.pdf", "6.pdf"] and page.total == 7
    found = select(records, DocumentListQuery(q="zzz"), {records[2].document_id}, HK)
    assert [r.filename for r in found.documents] == ["3.pdf"] and found.total == 1


def test_ties_keep_the_newest_upload_first() -> None:
    records = [record(n, "same.pdf") for n in (3, 1, 2)]
    assert [r.upload_seq for r in sort_records(records, "filename")] == [3, 2, 1]
    assert [r.upload_seq for r in sort_records(records, "-filename")] == [3, 2, 1]


def test_day_window_is_a_local_calendar_day() -> None:
    start, end = day_window(date(2026, 5, 16), date(2026, 5, 16), HK)
    assert start is not None and end is not None
    assert start.isoformat() == "2026-05-16T00:00:00+08:00" and end.isoformat() == "2026-05-17T00:00:00+08:00"
    assert day_window(None, None, HK) == (None, None)


def test_a_bad_time_zone_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown time zone"):
        Settings(document_dates_tz="Mars/Olympus")


# --- the Chroma filter itself ---------------------------------------------------------------------

def test_chroma_finds_a_literal_substring_ignoring_case_within_the_scope() -> None:
    store = VectorStore(Settings(chroma_collection=f"t{uuid.uuid4().hex[:8]}", embeddings_model="m"))
    store._client = chromadb.EphemeralClient()
    texts = {"a": ("Ex Gratia (1.5%) [Q&A] #3 ~ a-b", "dept-a", "department"),
             "b": ("排水系統 ex gratia", "dept-b", "department"), "c": ("EX GRATIA", "ops", "shared"),
             "d": ("exagratia", "dept-a", "department")}
    store.upsert([f"{d}_0" for d in texts], [[1.0, float(i)] for i in range(len(texts))],
                 [t for t, _, _ in texts.values()],
                 [{"document_id": d, "department": dept, "visibility": vis} for d, (_, dept, vis) in texts.items()])
    assert store.documents_containing("ex gratia", chroma_where(frozenset({"dept-a"}))) == {"a", "c"}
    assert store.documents_containing("ex gratia") == {"a", "b", "c"}
    assert store.documents_containing("(1.5%) [q&a] #3 ~ A-B") == {"a"}
    assert store.documents_containing("ex.gratia") == set()  # "." is a dot, not any character
    assert store.documents_containing("排水") == {"b"}
