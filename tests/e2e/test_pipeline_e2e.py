"""End to end on the real infrastructure: upload → Kafka stages → ChromaDB → answer with page
sources; bad files fail with a readable reason while the others index; delete; replace. (The
fully scanned paper is no longer a bad file: local OCR reads it, ``test_tables_e2e``.)"""
from __future__ import annotations

import io
import time

import pytest
from pypdf import PdfReader

from shared.storage import ObjectStore
from shared.vectorstore import VectorStore
from tests.conftest import BAD, FIXTURES, REAL
from tests.e2e.helpers import upload, wait_terminal

REAL_PDFS = ["hk_legco_sub_710-02_tables_zh.pdf", "hk_legco_sub_710-06_zh.pdf",
             "hk_isd_pr_remarks_sfs_media_session_en.pdf", "hk_csb_coai_exam_venues_reply_zh.pdf"]
EXPECTED_PAGES = {"hk_legco_sub_710-02_tables_zh.pdf": 17, "hk_legco_sub_710-06_zh.pdf": 6,
                  "hk_isd_pr_remarks_sfs_media_session_en.pdf": 2, "hk_csb_coai_exam_venues_reply_zh.pdf": 3}


def stores(stack) -> tuple[ObjectStore, VectorStore]:
    """Clients on the test stack's MinIO and Chroma."""
    s = stack.settings()
    return ObjectStore(s), VectorStore(s)


@pytest.fixture(scope="module")
def ingested(api):
    """Upload the real PDFs, a DOCX, a corrupt PDF and an HTML page named .pdf."""
    ids = {}
    for name in REAL_PDFS:
        ids[name] = upload(api, REAL / name)["document_id"]
    ids["E_基礎設施.docx"] = upload(api, FIXTURES / "E_基礎設施.docx")["document_id"]
    ids["G05_truncated.pdf"] = upload(api, BAD / "G05_truncated.pdf")["document_id"]
    ids["G07_html_named.pdf"] = upload(api, BAD / "G07_html_named.pdf")["document_id"]
    records = wait_terminal(api, list(ids.values()))
    return {name: records[i] for name, i in ids.items()}


def test_real_pdfs_index_with_one_chunk_per_page(ingested, api):
    for name, pages in EXPECTED_PAGES.items():
        rec = ingested[name]
        assert rec["status"] == "indexed", (name, rec["error"])
        assert rec["page_count"] == pages
        assert rec["chunk_count"] == pages
        chunks = api.get(f"/api/v1/documents/{rec['document_id']}/chunks").json()["chunks"]
        assert [c["page_number"] for c in chunks] == list(range(1, pages + 1))
        assert all(c["pdf_url"].endswith(f"/pages/{c['page_number']}.pdf") for c in chunks)


def test_docx_indexes_without_pages(ingested, api):
    rec = ingested["E_基礎設施.docx"]
    assert rec["status"] == "indexed", rec["error"]
    chunks = api.get(f"/api/v1/documents/{rec['document_id']}/chunks").json()["chunks"]
    assert len(chunks) == rec["chunk_count"] >= 2
    assert all(c["page_number"] is None and c["pdf_url"] is None for c in chunks)


@pytest.mark.parametrize("name, words", [
    ("G05_truncated.pdf", ("corrupt", "damaged", "truncated", "incomplete", "cannot be read", "could not")),
    ("G07_html_named.pdf", ("html", "web page")),
])
def test_bad_files_fail_with_a_readable_reason(ingested, name, words):
    rec = ingested[name]
    assert rec["status"] == "failed"
    reason = rec["error"] or ""
    assert any(w in reason.lower() for w in words), reason
    assert "Traceback" not in reason and 'File "' not in reason


def test_failed_document_keeps_its_original(ingested, stack):
    store, _ = stores(stack)
    doc_id = ingested["G05_truncated.pdf"]["document_id"]
    assert store.get_bytes(f"documents/{doc_id}/original") == (BAD / "G05_truncated.pdf").read_bytes()


def test_page_pdf_is_the_original_single_page(ingested, api):
    doc_id = ingested["hk_legco_sub_710-02_tables_zh.pdf"]["document_id"]
    r = api.get(f"/api/v1/documents/{doc_id}/pages/5.pdf")
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(r.content))
    assert len(reader.pages) == 1
    assert "無障礙車輛" in reader.pages[0].extract_text()
    assert api.get(f"/api/v1/documents/{doc_id}/pages/99.pdf").status_code == 404
    assert api.get("/api/v1/documents/..%2F..%2Fetc/pages/1.pdf").status_code == 404


def test_question_finds_the_known_page(ingested, api):
    csb = ingested["hk_csb_coai_exam_venues_reply_zh.pdf"]["document_id"]
    r = api.post("/api/v1/query", json={"question": "每個試場有幾多個主考員同監考員？", "top_k": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["answer_mode"] == "extractive" and body["notice"]
    top = body["sources"][0]
    assert (top["document_id"], top["page_number"]) == (csb, 3)     # "每個試場設有1名主考員和6至10名監考員"
    assert "主考員" in "".join(body["answer"].split())
    pdf = api.get(top["pdf_url"])
    assert pdf.headers["content-type"] == "application/pdf" and len(PdfReader(io.BytesIO(pdf.content)).pages) == 1

    tables = ingested["hk_legco_sub_710-02_tables_zh.pdf"]["document_id"]
    r = api.post("/api/v1/query", json={"question": "網約車平台須提供無障礙車輛選項，等待時間不超過5分鐘", "top_k": 5})
    assert (tables, 5) in {(s["document_id"], s["page_number"]) for s in r.json()["sources"]}
    only = ingested["hk_legco_sub_710-06_zh.pdf"]["document_id"]
    r = api.post("/api/v1/query", json={"question": "無障礙", "document_ids": [only]})
    assert {s["document_id"] for s in r.json()["sources"]} == {only}


def test_rejections_at_upload(api):
    r = api.post("/api/v1/ingest", params={"strategy": "sentences"}, files={"file": ("a.txt", b"x")})
    assert r.status_code == 400 and "strategy" in r.json()["detail"]
    r = api.post("/api/v1/ingest", files={"file": ("a.exe", b"MZ")})
    assert r.status_code == 400
    r = api.post("/api/v1/ingest", files={"file": ("G01_empty.pdf", (BAD / "G01_empty.pdf").read_bytes())})
    assert r.status_code == 400 and "empty" in r.json()["detail"]
    r = api.post("/api/v1/ingest", files={"file": ("big.txt", b"a" * (7 * 1024 * 1024))})  # limit: 5 MB
    assert r.status_code == 413 and "limit" in r.json()["detail"]
    r = api.post("/api/v1/ingest", files={"file": ("big.txt", b"a" * (5 * 1024 * 1024 + 10))})
    assert r.status_code == 413


def test_same_filename_replaces_then_delete_removes_everything(ingested, api, stack):
    store, vectors = stores(stack)
    old = ingested["hk_isd_pr_remarks_sfs_media_session_en.pdf"]["document_id"]
    total_before = api.get("/api/v1/documents").json()["total_documents"]
    new = upload(api, REAL / "hk_isd_pr_remarks_sfs_media_session_en.pdf")
    assert new["replaced"] == [old] and new["document_id"] != old
    assert wait_terminal(api, [new["document_id"]])[new["document_id"]]["status"] == "indexed"
    listing = api.get("/api/v1/documents").json()
    assert listing["total_documents"] == total_before
    assert old not in {d["document_id"] for d in listing["documents"]}
    assert vectors.count_document(old) == 0 and not list(store.list_keys(f"documents/{old}/"))

    doc_id = new["document_id"]
    assert vectors.count_document(doc_id) == 2
    r = api.delete(f"/api/v1/documents/{doc_id}")
    assert r.status_code == 200 and r.json()["deleted"] is True
    assert api.get(f"/api/v1/documents/{doc_id}").status_code == 404
    assert api.get(f"/api/v1/documents/{doc_id}/chunks").status_code == 404
    assert vectors.count_document(doc_id) == 0
    assert not list(store.list_keys(f"documents/{doc_id}/"))


def test_delete_one_chunk(ingested, api, stack):
    _, vectors = stores(stack)
    rec = ingested["hk_csb_coai_exam_venues_reply_zh.pdf"]
    chunk_id = f"{rec['document_id']}_1"
    assert api.delete(f"/api/v1/chunks/{chunk_id}").json()["deleted"] is True
    assert vectors.count_document(rec["document_id"]) == rec["chunk_count"] - 1
    assert api.get(f"/api/v1/documents/{rec['document_id']}").json()["chunk_count"] == rec["chunk_count"] - 1
    assert api.delete(f"/api/v1/chunks/{chunk_id}").status_code == 404


def test_sse_streams_document_records_to_indexed(stack, api):
    """The SSE stream sends the gateway's folded record (event ``document``) after each change,
    the same JSON as ``GET /api/v1/documents/{id}``, and ``deleted`` when the document goes."""
    import json
    import threading

    import httpx

    events: list[tuple[str, dict]] = []
    indexed, deleted = threading.Event(), threading.Event()

    def listen():
        with (httpx.Client(base_url=stack.gateway_url, timeout=None, headers=stack.auth()) as c,
              c.stream("GET", "/api/v1/events") as r):
            name = None
            for line in r.iter_lines():
                if line.startswith("event:"):
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and name in ("document", "deleted", "progress"):
                    data = json.loads(line.split(":", 1)[1])
                    events.append((name, data))
                    if data["document_id"] != target.get("id"):
                        continue
                    if name == "document" and data["status"] in ("indexed", "failed"):
                        indexed.set()
                    if name == "deleted":
                        deleted.set()
                        return

    target: dict = {}
    t = threading.Thread(target=listen, daemon=True)
    t.start()
    time.sleep(1.0)
    target["id"] = upload(api, BAD / "utf8_bom.txt")["document_id"]
    assert indexed.wait(180), events[-5:]
    assert "progress" not in {n for n, _ in events}, "raw progress events reached an SSE client"
    mine = [d for n, d in events if n == "document" and d["document_id"] == target["id"]]
    stages = [d["stage"] for d in mine]
    assert stages[0] == "uploaded" and "parsing" in stages and "embedding" in stages and stages[-1] == "indexed"
    assert mine[-1] == api.get(f"/api/v1/documents/{target['id']}").json()
    assert mine[-1]["filename"] == "utf8_bom.txt" and mine[-1]["chunk_count"] >= 1
    chunks = api.get(f"/api/v1/documents/{target['id']}/chunks").json()["chunks"]
    assert chunks[0]["text"].startswith("立法會") and "\ufeff" not in chunks[0]["text"]
    assert api.delete(f"/api/v1/documents/{target['id']}").json()["deleted"] is True
    assert deleted.wait(30), events[-3:]


def test_metrics_exposed(api, stack):
    import httpx
    text = api.get("/metrics").text
    assert 'legco_documents_total{department="default",outcome="accepted",stage="upload"}' in text
    for stage in ("parser", "tables", "splitter", "embedder"):
        port, = stack.ports(stage)  # one replica of each in the test stack
        body = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        assert "legco_documents_total" in body
