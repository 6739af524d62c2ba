"""Browser end-to-end test of the web frontend on the real test stack.

Creates a member and a reader key of one department (``POST /api/v1/keys`` with the admin key the
stack's bootstrap wrote to ``<stack var>/admin.key``), then runs ``frontend/e2e/ui.e2e.mjs``
(playwright-core driving Debian's headless Chromium) against the gateway: sign in as the member,
upload E_基礎設施.pdf with "Chunk by question", follow the progress bar to Indexed, expand the
document's Q&A chunks, search and filter the Database page, ask one of E's truth queries on the LTT
page (the prepared answer verbatim under its id, its internal note labelled, the cited words
highlighted in the viewer, Markdown and DOCX speaking notes without the internal note) and open a
source's PDF, ask an unanswerable question ("Not covered"), show an earlier answer from the history;
sign in as the reader and find no upload or delete control; sign in as the admin, use the department
filter, create and revoke a key on the Keys page, open the Operations page (every panel's chart from
the stack's Prometheus through the gateway, at least one series drawn on its canvas; the range
picker; the dead-lettered document below, retried). axe-core runs on every page and dialog (0 critical,
0 serious), and at 390 px no page scrolls sideways. All of it runs in Traditional Chinese (the
browser's locale, zh-HK) and again in English (picked with the switcher, remembered over a reload),
against the document uploaded once; the labels come from the locale files, ``<html lang>`` follows
the language, and Chinese content in the English interface is marked ``lang="zh-HK"``. Screenshots
go to ``var/screenshots/`` (``ltt-zh-HK-390.png``, ``ltt-en-390.png``, …). Then, in English, the
keyboard alone (Tab, Shift+Tab, Enter, Space and typing; no click): upload E_基礎設施.txt through the
dropzone's file chooser and wait for it to be indexed, ask a question, open a source's viewer and
close it with Escape (the focus back on its "View"), and delete the upload through the confirmation;
every focused element must show a focus indicator (outline or box-shadow), and the Tab presses per
task are logged. The two keys are revoked afterwards.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest
from aiokafka import AIOKafkaProducer

from shared import topics
from shared.events import DeadLetter, DocumentUploaded
from shared.settings import Settings
from shared.topic_reader import read_topic
from tests.conftest import FIXTURES, REPO
from tests.infra import Stack

SCREENSHOTS = REPO / "var" / "screenshots"
SCRIPT = REPO / "frontend" / "e2e" / "ui.e2e.mjs"
# The browser e2e runs in both interface languages (zh-HK first, the browser's; then English, picked
# with the switcher); every screenshot is named by its language.
LANGUAGES = ("zh-HK", "en")
SHOTS = ["signin-{}-1280.png", "ltt-{}-1280.png", "ltt-{}-900.png", "ltt-sources-{}-1280.png", "ltt-sources-{}-900.png",
         "rag-database-{}-1280.png", "rag-database-{}-900.png", "rag-database-chunks-{}-900.png",
         "rag-database-reader-{}-1280.png", "keys-{}-1280.png",
         "signin-{}-390.png", "rag-database-{}-390.png", "ltt-{}-390.png", "keys-{}-390.png",
         "operations-{}-1280.png", "operations-full-{}-1280.png", "operations-deadletters-{}-1280.png",
         "operations-{}-390.png", "operations-chart-{}-390.png"]
EXPECTED = [shot.format(lang) for lang in LANGUAGES for shot in SHOTS]
# A department of its own, so that other tests' documents in the same stack do not show up.
DEPARTMENT = "ui-e2e"
# The Operations page's dead letter: a document of a department of its own that the parser fails.
DEAD_LETTER_FILE = "ops-e2e-broken.pdf"
DEAD_LETTER_DEPARTMENT = "ui-e2e-ops"


@pytest.fixture(scope="module")
def browser_ready() -> None:
    """Chromium (apt, idempotent) and the frontend's node_modules (playwright-core)."""
    subprocess.run(["bash", str(REPO / "scripts" / "deps.sh"), "browser"], check=True)
    if not (REPO / "frontend" / "node_modules" / "playwright-core").is_dir():
        # The stack fixture builds the frontend (npm ci) unless LEGCO_SKIP_FRONTEND=1.
        subprocess.run(["bash", str(REPO / "scripts" / "deps.sh"), "frontend"], check=True)
    if not shutil.which("node"):
        pytest.fail("node is not installed")


def admin_key(stack: Stack, timeout_s: float = 30) -> str:
    """The key the stack's bootstrap wrote (``<var>/admin.key``), waiting briefly for it."""
    path = stack.var / "admin.key"
    deadline = time.monotonic() + timeout_s
    while not path.is_file():
        assert time.monotonic() < deadline, f"no admin key at {path}"
        time.sleep(0.5)
    return path.read_text().strip()


@pytest.fixture(scope="module")
def ui_keys(stack: Stack) -> Iterator[dict[str, str]]:
    """A member and a reader key of ``DEPARTMENT``, and the admin key; the two are revoked after."""
    admin = admin_key(stack)
    with httpx.Client(base_url=stack.gateway_url, timeout=30.0,
                      headers={"Authorization": f"Bearer {admin}"}) as client:
        keys = {"admin": admin}
        for role in ("member", "reader"):
            r = client.post("/api/v1/keys", json={"department": DEPARTMENT, "role": role, "label": f"ui e2e {role}"})
            assert r.status_code in (200, 201), r.text
            keys[role] = r.json()["key"]
        yield keys
        for role in ("member", "reader"):
            prefix = keys[role].split("_")[1]
            r = client.delete(f"/api/v1/keys/{prefix}")
            assert r.status_code in (200, 204), r.text


async def publish_dead_letter(stack: Stack, letter: DeadLetter) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=stack.env["KAFKA_BOOTSTRAP"], acks="all")
    await producer.start()
    try:
        await producer.send_and_wait(topics.DEAD_LETTER, letter.model_dump_json().encode(),
                                     key=letter.document_id.encode())
    finally:
        await producer.stop()


@pytest.fixture(scope="module")
def dead_letter(stack: Stack) -> Iterator[str]:
    """A dead-lettered document for the Operations page, its filename: a PDF that is not one,
    uploaded (admin, ``DEAD_LETTER_DEPARTMENT``), which the parser fails at once; then the dead
    letter a stage publishes when it gives up, with the document's real ``documents.uploaded``
    event as its payload. So the page lists a ``failed`` document, and its "Retry" is a real
    replay: the gateway sets it back to ``queued`` and republishes the event, the parser fails it
    again (``failed``, so the next language's run can retry it too). Deleted afterwards."""
    with stack.client() as c:
        r = c.post("/api/v1/ingest", params={"strategy": "token", "department": DEAD_LETTER_DEPARTMENT},
                   files={"file": (DEAD_LETTER_FILE, b"%PDF-1.4\n% not a PDF at all\n", "application/pdf")})
        assert r.status_code == 202, r.text
        doc_id = r.json()["document_id"]
        deadline = time.monotonic() + 120
        while (rec := c.get(f"/api/v1/documents/{doc_id}").json())["status"] != "failed":
            assert time.monotonic() < deadline, f"the broken PDF did not fail: {rec}"
            time.sleep(0.5)
        settings = Settings(kafka_bootstrap=stack.env["KAFKA_BOOTSTRAP"])
        records = asyncio.run(read_topic(settings, topics.UPLOADED, 30))
        [event] = [e for e in (DocumentUploaded.model_validate_json(r.value or b"") for r in records)
                   if e.document_id == doc_id]
        asyncio.run(publish_dead_letter(stack, DeadLetter(
            document_id=doc_id, department=event.department, visibility=event.visibility,
            source_topic=topics.UPLOADED, consumer_group="parser", error_type="DocumentError", attempts=1,
            reason=f"{rec['error']} (dead-lettered by the UI e2e)", payload=event.model_dump(mode="json"))))
        deadline = time.monotonic() + 60
        while doc_id not in {d["document_id"] for d in c.get("/api/v1/deadletters").json()["deadletters"]}:
            assert time.monotonic() < deadline, "the dead letter is not listed"
            time.sleep(0.5)
        yield DEAD_LETTER_FILE
        c.delete(f"/api/v1/documents/{doc_id}")


def test_ui_sign_in_upload_progress_ask_then_reader_and_admin(stack: Stack, browser_ready: None,
                                                             ui_keys: dict[str, str], dead_letter: str) -> None:
    assert (FIXTURES / "E_基礎設施.pdf").is_file() and (FIXTURES / "E_基礎設施.txt").is_file()
    out = SCREENSHOTS
    for name in [*EXPECTED, "failure.png"]:
        (out / name).unlink(missing_ok=True)
    env = {**os.environ, "LEGCO_E2E_MEMBER_KEY": ui_keys["member"], "LEGCO_E2E_READER_KEY": ui_keys["reader"],
           "LEGCO_E2E_ADMIN_KEY": ui_keys["admin"], "UI_E2E_LANGUAGES": ",".join(LANGUAGES),
           "LEGCO_E2E_DEADLETTER_FILENAME": dead_letter}
    started = time.monotonic()
    proc = subprocess.run(["node", str(SCRIPT), stack.gateway_url, str(out)], check=False, cwd=REPO / "frontend",
                          capture_output=True, text=True, timeout=900, env=env)
    took = time.monotonic() - started
    print(proc.stdout, proc.stderr, f"[ui-e2e] node script took {took:.0f}s", sep="\n")
    assert proc.returncode == 0, f"browser e2e failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout[-4000:]}"
    assert "PASS" in proc.stdout
    assert "keyboard only [en]: Tab presses" in proc.stdout, "the keyboard-only part did not run"
    # The Operations page ran in each language, its dead letter retried each time.
    assert proc.stdout.count(f"operations: dead letter {DEAD_LETTER_FILE} retried") == len(LANGUAGES)
    for name in EXPECTED:
        png = out / name
        assert png.is_file(), f"missing screenshot {png}"
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, f"{png} is not a real screenshot"
