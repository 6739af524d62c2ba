"""Local OCR (services/tables/ocr.py) on a rasterised fixture page: Tesseract (Debian's
packages, installed by ``scripts/deps.sh ocr``) reads a Traditional Chinese text page rendered at
200 DPI with scan-like noise, measured against the page's own text layer."""
from __future__ import annotations

import io

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageFilter

from services.tables.ocr import TesseractEngine, char_accuracy, edit_distance, parse_tsv
from tests.conftest import FIXTURES

E_PDF = FIXTURES / "E_基礎設施.pdf"


def scan_of(pdf_path, page: int, dpi: int = 200) -> tuple[Image.Image, str]:
    """(grey 200-DPI render with Gaussian noise (sigma 12, seeded: the same image every run),
    a 0.4 degree skew, smoothing and JPEG artefacts; text layer) of 1-based ``page``."""
    doc = pdfium.PdfDocument(pdf_path.read_bytes())
    p = doc[page - 1]
    ref = p.get_textpage().get_text_range()
    grey = p.render(scale=dpi / 72).to_pil().convert("L")
    noise = np.random.default_rng(page).normal(0, 12, (grey.height, grey.width))
    noisy = Image.fromarray(np.clip(np.asarray(grey, dtype=np.float64) + noise, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    noisy.rotate(0.4, resample=Image.BICUBIC, fillcolor=255).filter(ImageFilter.SMOOTH).save(
        buf, format="JPEG", quality=70)
    return Image.open(io.BytesIO(buf.getvalue())), ref


@pytest.fixture(scope="module")
def engine() -> TesseractEngine:
    e = TesseractEngine()
    assert e.available(), "tesseract with chi_tra+eng is not installed: run scripts/deps.sh ocr"
    return e


@pytest.mark.parametrize("page", [1, 2])
def test_scanned_fixture_page_reads_at_least_95_percent(engine, page):
    image, ref = scan_of(E_PDF, page)
    result = engine.read(image)
    acc = char_accuracy(result.text, ref)
    print(f"E_基礎設施 p{page}: accuracy {acc:.3f}, confidence {result.confidence:.2f}, {result.seconds:.1f} s")
    assert acc >= 0.95, (acc, result.text[:300])
    assert 0.5 < result.confidence <= 1.0
    assert "\n" in result.text and "  " not in result.text


def test_blank_page_reads_nothing(engine):
    result = engine.read(Image.new("L", (800, 1000), 255))
    assert result.text == "" and result.confidence == 0.0


def test_tsv_words_join_without_spaces_between_chinese_characters():
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [head,
            "5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\t網約",
            "5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\t車",
            "5\t1\t1\t1\t1\t3\t0\t0\t1\t1\t70\tUBER",
            "5\t1\t1\t1\t1\t4\t0\t0\t1\t1\t60\tapp",
            "5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t-1\t ",
            "5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t100\t二",
            "4\t1\t2\t1\t1\t0\t0\t0\t1\t1\t-1\t"]
    text, conf = parse_tsv("\n".join(rows))
    assert text == "網約車UBER app\n\n二"
    assert conf == pytest.approx((0.9 * 2 + 0.8 + 0.7 * 4 + 0.6 * 3 + 1.0) / 11)


def test_char_accuracy_ignores_whitespace_and_width():
    assert edit_distance("kitten", "sitting") == 3
    assert char_accuracy("網約車，服務", "網約車, 服 務") == 1.0
    assert char_accuracy("網約", "網約車服") == 0.5
    assert char_accuracy("完全不同的一段很長的文字", "短") == 0.0
    assert char_accuracy("", "") == 1.0 and char_accuracy("", "字") == 0.0


def test_missing_engine_is_an_ocr_error():
    from services.tables.ocr import OcrError

    e = TesseractEngine(binary="tesseract-not-installed")
    assert not e.available()
    with pytest.raises(OcrError):
        e.read(Image.new("L", (10, 10), 255))
