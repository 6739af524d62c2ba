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
filter, create and revoke a key on the Keys page. axe-core runs on every page and dialog (0 critical,
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

import os
import shutil
import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest

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
         "signin-{}-390.png", "rag-database-{}-390.png", "ltt-{}-390.png", "keys-{}-390.png"]
EXPECTED = [shot.format(lang) for lang in LANGUAGES for shot in SHOTS]
# A department of its own, so that other tests' documents in the same stack do not show up.
DEPARTMENT = "ui-e2e"


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


def test_ui_sign_in_upload_progress_ask_then_reader_and_admin(stack: Stack, browser_ready: None,
                                                             ui_keys: dict[str, str]) -> None:
    assert (FIXTURES / "E_基礎設施.pdf").is_file() and (FIXTURES / "E_基礎設施.txt").is_file()
    out = SCREENSHOTS
    for name in [*EXPECTED, "failure.png"]:
        (out / name).unlink(missing_ok=True)
    env = {**os.environ, "LEGCO_E2E_MEMBER_KEY": ui_keys["member"], "LEGCO_E2E_READER_KEY": ui_keys["reader"],
           "LEGCO_E2E_ADMIN_KEY": ui_keys["admin"], "UI_E2E_LANGUAGES": ",".join(LANGUAGES)}
    started = time.monotonic()
    proc = subprocess.run(["node", str(SCRIPT), stack.gateway_url, str(out)], check=False, cwd=REPO / "frontend",
                          capture_output=True, text=True, timeout=900, env=env)
    took = time.monotonic() - started
    print(proc.stdout, proc.stderr, f"[ui-e2e] node script took {took:.0f}s", sep="\n")
    assert proc.returncode == 0, f"browser e2e failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout[-4000:]}"
    assert "PASS" in proc.stdout
    assert "keyboard only [en]: Tab presses" in proc.stdout, "the keyboard-only part did not run"
    for name in EXPECTED:
        png = out / name
        assert png.is_file(), f"missing screenshot {png}"
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, f"{png} is not a real screenshot"
