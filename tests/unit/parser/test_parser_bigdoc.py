"""Big PDFs: the parse child's time limit follows the page count, and a many-hundred-page PDF
built here from real pages is parsed with its one-page PDFs streamed through the spool
directory, the child's and the service side's memory far below the pages' size."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pypdf
import pytest

from services.parser.isolation import run_isolated
from services.parser.parse import parse_spooled_isolated, parse_time_limit_s, spool_time_limit
from services.parser.spool import PAGE_COUNT_FILE, page_pdf_path
from shared.errors import DocumentError
from shared.settings import Settings
from tests.conftest import REAL

REPO = Path(__file__).resolve().parents[3]


def build_pdf(source: Path, pages: int) -> bytes:
    """``pages`` pages: the pages of ``source`` in turn (pypdf ``add_page``)."""
    reader = pypdf.PdfReader(source)
    writer = pypdf.PdfWriter()
    for k in range(pages):
        writer.add_page(reader.pages[k % len(reader.pages)])
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def test_the_limit_is_the_base_plus_seconds_per_page_capped():
    s = Settings(parse_timeout_s=120, parse_timeout_per_page_s=2, parse_timeout_max_s=3600)
    assert parse_time_limit_s(s, None) == 120 and parse_time_limit_s(s, 0) == 120  # not counted yet
    assert parse_time_limit_s(s, 100) == 320
    assert parse_time_limit_s(s, 1200) == 2520
    assert parse_time_limit_s(s, 100_000) == 3600
    assert parse_time_limit_s(s.model_copy(update={"parse_timeout_max_s": 10}), 5) == 120  # never below the base


def test_the_child_writes_the_page_count_before_it_reads_the_pages(tmp_path):
    data = (REAL / "hk_isd_pr_remarks_sfs_media_session_en.pdf").read_bytes()
    out = parse_spooled_isolated(data, "p.pdf", "doc", Settings(), str(tmp_path))
    assert (tmp_path / PAGE_COUNT_FILE).read_text() == "2" == str(out.parsed.page_count)
    assert out.pdf_pages == [1, 2] and all(page_pdf_path(tmp_path, n).exists() for n in out.pdf_pages)


def test_the_limit_grows_once_the_page_count_is_known(tmp_path):
    """A child that runs 4 s: past a 2 s base it is killed with a readable reason; once the page
    count is in the spool directory (the parse child writes it first) the limit grows with it."""
    settings = Settings(parse_timeout_s=2.0, parse_timeout_per_page_s=4.0)
    with pytest.raises(DocumentError) as err:  # no count yet: the base alone
        run_isolated(time.sleep, (4.0,), timeout_s=2.0, memory_limit_bytes=None,
                     time_limit=spool_time_limit(settings, str(tmp_path)))
    assert err.value.code == "timeout"
    assert err.value.reason.startswith("Reading the file took longer than 2 s; the file is probably corrupt")
    (tmp_path / PAGE_COUNT_FILE).write_text("5")  # 2 + 5 x 4 = 22 s
    started = time.monotonic()
    run_isolated(time.sleep, (4.0,), timeout_s=2.0, memory_limit_bytes=None,
                 time_limit=spool_time_limit(settings, str(tmp_path)))
    assert time.monotonic() - started >= 4.0
    tight = settings.model_copy(update={"parse_timeout_per_page_s": 0.01})  # 2.05 s for 5 pages
    with pytest.raises(DocumentError) as err:
        run_isolated(time.sleep, (4.0,), timeout_s=2.0, memory_limit_bytes=None,
                     time_limit=spool_time_limit(tight, str(tmp_path)))
    assert "(the limit for its 5 pages)" in err.value.reason


# Runs in a fresh interpreter, so its peak RSS and its child's are this parse's alone: parse the
# PDF at argv[1] into a spool directory in a child process, then read the page PDFs back one at a
# time as the parser service uploads them; print sizes and peaks (bytes).
_MEASURE = """
import json, os, resource, sys, tempfile
sys.path.insert(0, sys.argv[2])
from services.parser.parse import parse_spooled_isolated
from services.parser.spool import page_pdf_path
from shared.settings import Settings
data = open(sys.argv[1], "rb").read()
with tempfile.TemporaryDirectory() as spool:
    out = parse_spooled_isolated(data, "big.pdf", "big", Settings(parse_timeout_per_page_s=30), spool)
    pdf_bytes = 0
    for n in out.pdf_pages:
        path = page_pdf_path(spool, n)
        pdf_bytes += len(path.read_bytes())
        path.unlink()
kib = 1024
print(json.dumps({"pages": out.parsed.page_count, "pdf_pages": len(out.pdf_pages), "pdf_bytes": pdf_bytes,
                  "text_pages": sum(1 for p in out.parsed.pages if p.text.strip()),
                  "child_peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * kib,
                  "service_peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * kib}))
"""


def measure(tmp_path: Path, pages: int) -> dict[str, int]:
    """Parse a PDF of ``pages`` pages of a real LegCo submission (its pages carry their CJK
    fonts: ~0.45 MB per one-page PDF) in a fresh interpreter; its sizes and peaks (bytes)."""
    path = tmp_path / f"big{pages}.pdf"
    path.write_bytes(build_pdf(REAL / "hk_legco_sub_710-06_zh.pdf", pages))
    run = subprocess.run([sys.executable, "-c", _MEASURE, str(path), str(REPO)], capture_output=True, text=True,
                         timeout=3600)
    assert run.returncode == 0, run.stderr[-2000:]
    got: dict[str, int] = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["pages"] == got["pdf_pages"] == got["text_pages"] == pages
    return got


def test_a_200_page_pdf_is_parsed_with_its_page_pdfs_streamed(tmp_path):
    """200 pages (~90 MB of one-page PDFs) against 10 of the same pages. Held in memory, as
    before, the child kept every page PDF and pickled them all (twice their size) and the service
    unpickled them (once more); streamed, what each process holds grows by a small part of the
    pages' size (page texts, the PDF reader's objects), not by the pages."""
    small, big = measure(tmp_path, 10), measure(tmp_path, 200)
    grown = big["pdf_bytes"] - small["pdf_bytes"]
    assert grown > 80 * 2**20
    assert big["child_peak"] - small["child_peak"] < 0.35 * grown, (small, big)
    assert big["service_peak"] - small["service_peak"] < 0.35 * grown, (small, big)
