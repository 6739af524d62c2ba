"""SSE parsing and ``legco ingest``/``ask``/``docs`` against an in-process fake gateway
(``httpx.MockTransport``): no services are needed."""
from __future__ import annotations

import json

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


def progress(doc: str, stage: str, status: str, **kw) -> str:
    data = {"document_id": doc, "filename": "f", "stage": stage, "status": status,
            "pages_done": 0, "pages_total": 0, "unit": "pages", "warnings": [], **kw}
    return f"event: progress\r\ndata: {json.dumps(data)}\r\n\r\n"


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
        monkeypatch.setattr(api, "make_client", lambda url, timeout_s=120.0: httpx.AsyncClient(
            base_url=url, transport=httpx.MockTransport(gw)))
        holder["gw"] = gw
        return gw
    return install


def test_ingest_wait_follows_sse_until_indexed_and_failed(fake, tmp_path, capsys):
    for n in ("doc.pdf", "big.pdf"):
        (tmp_path / n).write_bytes(b"%PDF-1.4 test")
    sse = (progress("d1", "uploaded", "queued") + progress("d1", "parsing", "processing", pages_total=3)
           + progress("d1", "indexed", "indexed", pages_done=7, pages_total=7, unit="chunks", chunk_count=7)
           + progress("d2", "failed", "failed", error="The PDF is password-protected."))
    records = {"d1": {"status": "indexed", "stage": "indexed", "chunk_count": 7, "warnings": ["Page 2 is blank."]},
               "d2": {"status": "failed", "stage": "failed", "chunk_count": 0, "error": "The PDF is password-protected."}}
    gw = fake(FakeGateway(sse, records, ["d1", "d2"]))
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


def test_ingest_wait_falls_back_to_polling(fake, tmp_path, capsys):
    (tmp_path / "doc.pdf").write_bytes(b"%PDF-1.4 test")
    records = {"d1": {"status": "indexed", "stage": "indexed", "chunk_count": 3, "warnings": []}}
    fake(FakeGateway(": no events\r\n\r\n", records, ["d1"]))
    import cli.tracking as tracking
    orig = tracking.Tracker.__init__

    def fast_poll(self, *a, **kw):
        orig(self, *a, **{**kw, "poll_s": 0.05})
    tracking.Tracker.__init__ = fast_poll
    try:
        rc = main(["--url", "http://gw", "ingest", str(tmp_path / "doc.pdf"), "--wait", "--timeout", "10"])
    finally:
        tracking.Tracker.__init__ = orig
    assert rc == 0
    assert "indexed doc.pdf: 3 chunks (id d1)" in capsys.readouterr().out


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
    monkeypatch.setattr(api, "make_client", lambda url, timeout_s=120.0: httpx.AsyncClient(
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
                              "page_count": 13, "upload_date": "2024-01-01T00:00:00+00:00"}],
               "total_documents": 1, "total_chunks": 18}
    status = {"code": 200}
    monkeypatch.setattr(api, "make_client", lambda url, timeout_s=120.0: httpx.AsyncClient(
        base_url=url, transport=httpx.MockTransport(
            lambda r: httpx.Response(status["code"], json=listing if status["code"] == 200 else {"detail": "boom"}))))
    assert main(["docs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == listing
    assert main(["docs"]) == 0
    out = capsys.readouterr().out
    assert "E.pdf" in out and "18" in out and "1 documents, 18 chunks" in out
    status["code"] = 503
    assert main(["docs"]) == 1
    assert capsys.readouterr().err == "error: 503 boom\n"
