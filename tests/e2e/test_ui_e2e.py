"""Browser end-to-end test of the web frontend on the real test stack.

Runs ``frontend/e2e/ui.e2e.mjs`` (playwright-core driving Debian's headless Chromium) against the
gateway: upload E_基礎設施.pdf with "Chunk by question", follow the progress bar to Indexed, expand
the document's Q&A chunks, ask one of E's truth queries on the LTT page and fetch a source's PDF.
Screenshots go to ``var/screenshots/``.
"""
from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from tests.conftest import FIXTURES, REPO
from tests.infra import Stack

SCREENSHOTS = REPO / "var" / "screenshots"
SCRIPT = REPO / "frontend" / "e2e" / "ui.e2e.mjs"
EXPECTED = ["ltt-1280.png", "ltt-900.png", "ltt-sources-1280.png", "ltt-sources-900.png", "rag-database-1280.png",
            "rag-database-900.png", "rag-database-chunks-900.png"]


@pytest.fixture(scope="module")
def browser_ready() -> None:
    """Chromium (apt, idempotent) and the frontend's node_modules (playwright-core)."""
    subprocess.run(["bash", str(REPO / "scripts" / "deps.sh"), "browser"], check=True)
    if not (REPO / "frontend" / "node_modules" / "playwright-core").is_dir():
        # The stack fixture builds the frontend (npm ci) unless LEGCO_SKIP_FRONTEND=1.
        subprocess.run(["bash", str(REPO / "scripts" / "deps.sh"), "frontend"], check=True)
    if not shutil.which("node"):
        pytest.fail("node is not installed")


def test_ui_upload_progress_chunks_ask_and_source_pdf(stack: Stack, browser_ready: None) -> None:
    assert (FIXTURES / "E_基礎設施.pdf").is_file()
    out = SCREENSHOTS
    for name in [*EXPECTED, "failure.png"]:
        (out / name).unlink(missing_ok=True)
    started = time.monotonic()
    proc = subprocess.run(["node", str(SCRIPT), stack.gateway_url, str(out)], cwd=REPO / "frontend",
                          capture_output=True, text=True, timeout=600)
    took = time.monotonic() - started
    print(proc.stdout, proc.stderr, f"[ui-e2e] node script took {took:.0f}s", sep="\n")
    assert proc.returncode == 0, f"browser e2e failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout[-4000:]}"
    assert "PASS" in proc.stdout
    for name in EXPECTED:
        png = out / name
        assert png.is_file(), f"missing screenshot {png}"
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, f"{png} is not a real screenshot"
