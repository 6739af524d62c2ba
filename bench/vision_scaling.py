"""Scaling benchmark of the table stage with the vision path (not a test): one 20-page PDF whose
every page goes to the vision LLM, against a fake OpenAI-compatible server that answers after
1 s per page, ingested through the real stack with 1 and then 2 table-stage workers
(``TABLES_WORKERS``, alias ``VISION_WORKERS``).

Prints the table-stage time (parser's pages stored → last page result stored, from MinIO
object times) and the whole ingest time (upload → indexed) for each worker count, and the
ratio 2 workers / 1 worker (ideal: 0.5).

The document: the 14 scanned pages of ``hk_legco_sub_710-11_scanned_zh.pdf`` + the 6 ruled
table pages of fixture A (all different, so no page hits the vision cache of another; each
run uses a new model name so no cached answer from an earlier run applies).

Run: ``.cache/venv/bin/python bench/vision_scaling.py`` (starts its own stack on
``LEGCO_TEST_PORT_OFFSET``, default 10000; stops it at the end). Takes about 3 minutes.
"""
from __future__ import annotations

import io
import sys
import time
import uuid

from _common import CORPUS

import httpx
import pypdfium2 as pdfium

from shared.storage import ObjectStore, page_result_prefix, pages_key
from tests.e2e.helpers import wait_terminal
from tests.fake_vision import FakeVisionServer
from tests.infra import start_stack, stop_stack

DELAY_S = 1.0
ANSWER = "| 項目 | 內容 |\n| --- | --- |\n| 頁 | 甲 |\n"


def build_pdf() -> bytes:
    """20 distinct pages: 14 scanned + 6 with ruled tables."""
    out = pdfium.PdfDocument.new()
    for path in (CORPUS / "real" / "hk_legco_sub_710-11_scanned_zh.pdf", CORPUS / "fixtures" / "A_詳細數字一覽表.pdf"):
        src = pdfium.PdfDocument(path.read_bytes())
        out.import_pages(src)
    buf = io.BytesIO()
    out.save(buf)
    assert len(out) == 20, len(out)
    return buf.getvalue()


def ingest_once(stack, api: httpx.Client, pdf: bytes, name: str) -> tuple[float, float]:
    """Upload, wait until indexed; returns (table-stage seconds, whole ingest seconds)."""
    t0 = time.monotonic()
    r = api.post("/api/v1/ingest", params={"strategy": "token"}, files={"file": (name, pdf)})
    r.raise_for_status()
    doc_id = r.json()["document_id"]
    rec = wait_terminal(api, [doc_id], timeout_s=600)[doc_id]
    total = time.monotonic() - t0
    if rec["status"] != "indexed":
        raise SystemExit(f"ingest failed: {rec['error']}")
    store = ObjectStore(stack.settings())
    start = store.client.stat_object(store.bucket, pages_key(doc_id)).last_modified
    listing = store.client.list_objects(store.bucket, page_result_prefix(doc_id), recursive=True)
    ends = [o.last_modified for o in listing]
    assert len(ends) == 20, len(ends)
    return (max(ends) - start).total_seconds(), total


def main() -> int:
    pdf = build_pdf()
    fake = FakeVisionServer(ANSWER, delay_s=DELAY_S).start()
    env = {"VISION_ENABLED": "true", "VISION_BASE_URL": fake.base_url, "TABLES_WORKERS": "1"}
    stack = start_stack({**env, "VISION_MODEL": f"fake-{uuid.uuid4().hex[:8]}"})
    results = {}
    try:
        with httpx.Client(base_url=stack.gateway_url, timeout=60) as api:
            for workers in (1, 2):
                stack.reconfigure({"TABLES_WORKERS": str(workers), "VISION_MODEL": f"fake-{uuid.uuid4().hex[:8]}"})
                time.sleep(5)  # let the consumer group settle after the workers (re)joined
                calls0 = fake.image_calls
                stage, total = ingest_once(stack, api, pdf, f"scaling_{workers}.pdf")
                results[workers] = (stage, total, fake.image_calls - calls0)
                print(f"{workers} table-stage worker(s): table stage {stage:6.1f} s, whole ingest {total:6.1f} s, "
                      f"vision calls {fake.image_calls - calls0}", flush=True)
    finally:
        stop_stack(stack)
        fake.stop()
    (s1, t1, _), (s2, t2, _) = results[1], results[2]
    print(f"ratio 2 workers / 1 worker: table stage {s2 / s1:.2f}, whole ingest {t2 / t1:.2f} (ideal 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
