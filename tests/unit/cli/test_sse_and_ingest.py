"""SSE parsing and ``legco ingest``/``ask``/``docs`` against an in-process fake gateway
(``httpx.MockTransport``): no services are needed."""
from __future__ import annotations

import json
import re

import httpx
import pytest

from cli import api
from cli.main import main
from cli.sse import SseEvent, SseParser


def feed_all(lines: list[str]) -> list[SseEvent]:
    p = SseParser()
    return [ev for ln in lines if (ev := p.feed(ln)) is not None]


def test_sse_parser_events_comments_and_multiline_data():
    lines = [": ping - 2024", "", "event: progress", 'data: {"a": 1}', "\r", "data: x", "data:y", "",
             "event: deleted", "data: {}", ""]
    assert feed_all(lines) == [SseEvent("progress", '{"a": 1}'), SseEvent("message", "x\ny"),
                               SseEvent("deleted", "{}")]


def record(doc: str, stage: str, status: str, second: int = 0, **kw) -> dict:
    """A gateway ``DocumentRecord`` as JSON, updated at 12:00:``second``."""
    return {"document_id": doc, "filename": "doc.pdf", "department": "default", "file_type": "pdf",
            "strategy": "question", "strategy_used": None, "status": status, "stage": stage,
            "pages_done": 0, "pages_total": 0, "unit": "pages", "page_count": None, "chunk_count": 0,
            "upload_date": "2024-01-01T12:00:00+00:00", "updated_at": f"2024-01-01T12:00:{second:02d}+00:00",
            "size_bytes": 13, "sha256": "", "error": None, "warnings": [], **kw}


def sse(event: str, data: dict) -> str:
    return f"event: {event}\r\ndata: {json.dumps(data)}\r\n\r\n"


def document(doc: str, stage: str, status: str, second: int = 0, **kw) -> str:
    return sse("document", record(doc, stage, status, second, **kw))


class FakeGateway:
    """Answers the API calls the CLI makes; ``records`` are what GET /documents/{id} returns."""

    def __init__(self, sse_body: str, records: dict[str, dict], ids: list[str]) -> None:
        self.sse_body, self.records, self.ids = sse_body, records, list(ids)
        self.uploads: list[tuple[str, str]] = []
        self.order: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.order.append(f"{request.method} {path}")
        if path == "/api/v1/events":
            return httpx.Response(200, text=self.sse_body, headers={"content-type": "text/event-stream"})
        if path == "/api/v1/ingest":
            body = request.content.decode("utf-8", "replace")
            name = "big.pdf" if 'filename="big.pdf"' in body else "doc.pdf"
            if name == "big.pdf":
                return httpx.Response(413, json={"detail": "The file is larger than the 100 MB limit."})
            doc_id = self.ids.pop(0)
            self.uploads.append((doc_id, request.url.params["strategy"]))
            return httpx.Response(202, json={"document_id": doc_id, "filename": name, "strategy": "question",
                                             "status": "queued", "replaced": []})
        if path.startswith("/api/v1/documents/"):
            rec = self.records.get(path.rsplit("/", 1)[-1])
            return httpx.Response(200, json=rec) if rec else httpx.Response(404, json={"detail": "No such document."})
        return httpx.Response(404, json={"detail": "Not Found"})


@pytest.fixture
def fake(monkeypatch):
    holder = {}

    def install(gw: FakeGateway) -> FakeGateway:
        monkeypatch.setattr(api, "make_client", lambda url, settings=None: httpx.AsyncClient(
            base_url=url, transport=httpx.MockTransport(gw)))
        holder["gw"] = gw
        return gw
    return install


def test_ingest_wait_follows_sse_until_indexed_and_failed(fake, tmp_path, capsys):
    for n in ("doc.pdf", "big.pdf"):
        (tmp_path / n).write_bytes(b"%PDF-1.4 test")
    body = (document("d1", "uploaded", "queued") + document("d1", "parsing", "processing", 1, pages_total=3)
            + sse("progress", {"document_id": "d1", "stage": "splitting", "status": "processing"})  # not read
            + document("d1", "indexed", "indexed", 2, pages_done=7, pages_total=7, unit="chunks", chunk_count=7,
                       warnings=["Page 2 is blank."])
            + document("d2", "failed", "failed", 1, error="The PDF is password-protected."))
    records = {"d1": record("d1", "indexed", "indexed", 2, chunk_count=7, warnings=["Page 2 is blank."]),
               "d2": record("d2", "failed", "failed", 1, error="The PDF is password-protected.")}
    gw = fake(FakeGateway(body, records, ["d1", "d2"]))
    rc = main(["--url", "http://gw", "ingest", str(tmp_path / "doc.pdf"), str(tmp_path / "big.pdf"),
               str(tmp_path / "doc.pdf"), "--strategy", "question", "--wait", "--timeout", "20"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert gw.order[0] == "GET /api/v1/events"  # subscribed before the first upload
    assert gw.uploads == [("d1", "question"), ("d2", "question")]
    assert "indexed doc.pdf: 7 chunks (id d1)" in out
    assert "warning: Page 2 is blank." in out
    assert "failed  doc.pdf: The PDF is password-protected. (id d2)" in out
    assert "big.pdf: 413 The file is larger than the 100 MB limit." in out + err
    assert "Traceback" not in out + err


def test_ingest_wait_falls_back_to_polling(fake, tmp_path, capsys, monkeypatch):
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4 test")
    records = {"d1": record("d1", "indexed", "indexed", chunk_count=3)}
    fake(FakeGateway(": no events\r\n\r\n", records, ["d1"]))
    monkeypatch.setenv("LEGCO_POLL_INTERVAL_S", "0.05")
    rc = main(["--url", "http://gw", "ingest", str(tmp_path / "doc.pdf"), "--wait", "--timeout", "10"])
    assert rc == 0
    assert "indexed doc.pdf: 3 chunks (id d1)" in capsys.readouterr().out


def test_ingest_wait_deleted_event_fails_the_document(fake, tmp_path, capsys, monkeypatch):
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4 test")
    body = document("d1", "parsing", "processing", 1) + sse("deleted", {"document_id": "d1"})
    records = {"d1": record("d1", "parsing", "processing", 1)}  # polls would never finish it
    fake(FakeGateway(body, records, ["d1"]))
    monkeypatch.setenv("LEGCO_POLL_INTERVAL_S", "60")
    rc = main(["--url", "http://gw", "ingest", str(tmp_path / "doc.pdf"), "--wait", "--timeout", "10"])
    assert rc == 1
    assert "failed  doc.pdf: The document was deleted or replaced while indexing. (id d1)" in capsys.readouterr().out


def test_doc_progress_keeps_the_newest_record_and_stays_terminal():
    from cli.tracking import DocProgress

    d = DocProgress("d1", "doc.pdf")
    assert d.take(record("d1", "parsing", "processing", 5, pages_done=2, pages_total=9))
    assert not d.take(record("d1", "uploaded", "queued", 1))  # an older poll answer
    assert (d.stage, d.pages_done, d.pages_total, d.chunk_count) == ("parsing", 2, 9, None)
    assert d.take(record("d1", "indexed", "indexed", 8, chunk_count=4, unit="chunks", warnings=["w"]))
    assert (d.done, d.chunk_count, d.unit, d.warnings) == (True, 4, "chunks", ["w"])
    assert not d.take(record("d1", "failed", "failed", 9, error="late")) and not d.gone()
    assert d.status == "indexed"


def test_doc_progress_names_the_step_under_way():
    from cli.tracking import DocProgress

    d = DocProgress("d1", "doc.pdf")
    assert d.take(record("d1", "splitting", "processing", 5, step="verifying", step_done=3, step_total=7))
    assert d.stage_label == "splitting · verifying 3/7"
    assert d.take(record("d1", "splitting", "processing", 6, pages_done=4, pages_total=4))  # the pass is over
    assert d.stage_label == "splitting" and d.step is None


def test_ingest_without_wait_prints_queued(fake, tmp_path, capsys):
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4 test")
    gw = fake(FakeGateway("", {}, ["d9"]))
    assert main(["--url", "http://gw", "ingest", str(tmp_path / "doc.pdf")]) == 0
    assert gw.uploads == [("d9", "token")]
    assert "queued doc.pdf (id d9, strategy question)" in capsys.readouterr().out


def test_ask_prints_answer_and_absolute_pdf_urls(monkeypatch, capsys):
    resp = {"answer": "蓄洪池平日保持乾涸。", "answer_mode": "extractive", "notice": "No language model.",
            "sources": [{"chunk_id": "d_3", "document_id": "d", "filename": "E.pdf", "page_number": 3,
                         "score": 0.8123, "pdf_url": "/api/v1/documents/d/pages/3.pdf", "question_id": "A2",
                         "question_text": "會否產生臭味？", "source_page_range": [3, 4]}]}
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["body"] = json.loads(request.content)
        return httpx.Response(200, json=resp)
    monkeypatch.setattr(api, "make_client", lambda url, settings=None: httpx.AsyncClient(
        base_url=url, transport=httpx.MockTransport(handler)))
    assert main(["--url", "http://gw:8080", "ask", "臭味？", "--top-k", "2"]) == 0
    out = capsys.readouterr().out
    assert seen["body"] == {"question": "臭味？", "top_k": 2}
    assert out.startswith("蓄洪池平日保持乾涸。")
    assert "answer mode: extractive" in out and "notice: No language model." in out
    assert "[1] E.pdf - question A2, page 3, pages 3-4  (score 0.812)" in out
    assert "    Q: 會否產生臭味？" in out
    assert "    http://gw:8080/api/v1/documents/d/pages/3.pdf" in out


def test_docs_json_and_http_error(monkeypatch, capsys):
    listing = {"documents": [{"document_id": "d", "filename": "E.pdf", "status": "indexed", "stage": "indexed",
                              "strategy": "question", "strategy_used": "question", "chunk_count": 18,
                              "page_count": 13, "upload_date": "2024-01-01T00:00:00+00:00",
                              "department": "transport", "visibility": "department"},
                             {"document_id": "s", "filename": "FAQ.pdf", "status": "indexed", "stage": "indexed",
                              "strategy": "token", "chunk_count": 2, "department": "default",
                              "visibility": "shared"}],
               "total_documents": 2, "total_chunks": 20}
    status = {"code": 200}
    monkeypatch.setattr(api, "make_client", lambda url, settings=None: httpx.AsyncClient(
        base_url=url, transport=httpx.MockTransport(
            lambda r: httpx.Response(status["code"], json=listing if status["code"] == 200 else {"detail": "boom"}))))
    assert main(["docs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == listing
    assert main(["docs"]) == 0
    out = capsys.readouterr().out
    assert "E.pdf" in out and "18" in out and "2 documents, 20 chunks" in out
    cells = [[c.strip() for c in re.split("[│┃]", line)] for line in out.splitlines() if re.search("[│┃]", line)]
    rows = {c[0]: c for c in cells}
    assert rows["filename"][1] == "department"
    assert rows["E.pdf"][1] == "transport" and rows["FAQ.pdf"][1] == "shared"
    status["code"] = 503
    assert main(["docs"]) == 1
    assert capsys.readouterr().err == "error: 503 boom\n"
