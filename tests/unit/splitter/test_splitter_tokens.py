"""Token strategy: offline cl100k, page overlaps (seed 002 §3.2.2), DOCX/TXT windows."""
from __future__ import annotations

import pytest

from services.splitter.preprocess import strip_furniture
from services.splitter.split import split_document
from services.splitter.tokens import count_tokens, encode, get_encoding, head_text, tail_text
from services.splitter.windows import token_windows
from shared.models import PageText, ParsedDocument

from splitter_corpus import BAD, FIXTURES, load_doc

C02 = (BAD / "C02_rare_chars.txt").read_text(encoding="utf-8")


def _doc(file_type, texts, page_numbers=None):
    pages = [
        PageText(page_number=(page_numbers[i] if page_numbers else (i + 1 if file_type == "pdf" else None)), text=t)
        for i, t in enumerate(texts)
    ]
    return ParsedDocument(document_id="d", filename="f", file_type=file_type, page_count=len(pages), pages=pages)


def test_offline_encoding_is_cl100k():
    enc = get_encoding()
    assert enc.n_vocab >= 100_000
    assert encode("hello world") == [15339, 1917]  # cl100k_base ids


def test_special_tokens_are_plain_text():
    text = (BAD / "C20_special_tokens.txt").read_text(encoding="utf-8")
    toks = encode(text)
    assert 100257 not in toks and 100276 not in toks
    assert get_encoding().decode(toks) == text


@pytest.mark.parametrize("n", [1, 2, 3, 7, 13, 50, 200])
def test_head_tail_never_split_characters(n):
    head, k = head_text(C02, n)
    assert "\ufffd" not in head and C02.startswith(head) and k <= n
    tail, k = tail_text(C02, n)
    assert "\ufffd" not in tail and C02.endswith(tail) and k <= n


def test_head_tail_exact_on_clean_text():
    text = "The Legislative Council meets weekly. " * 40
    toks = encode(text)
    head, k = head_text(text, 200)
    assert k == 200 and head == get_encoding().decode(toks[:200])
    tail, k = tail_text(text, 200)
    assert k == 200 and tail == get_encoding().decode(toks[-200:])


@pytest.mark.parametrize("size,overlap", [(7, 3), (13, 3), (50, 3), (1000, 200), (120, 40)])
def test_windows_c02(size, overlap):
    windows = token_windows(C02, size, overlap)
    rebuilt = "".join(C02[w.start + w.overlap_chars:w.end] for w in windows)
    assert rebuilt == C02
    for w in windows:
        piece = C02[w.start:w.end]
        assert "\ufffd" not in piece
        assert count_tokens(piece) <= size
    assert windows[0].start == 0 and windows[-1].end == len(C02)


def test_txt_token_chunks_reproduce_text(settings):
    doc = load_doc(FIXTURES / "E_基礎設施.txt")
    cs = split_document(doc, "token", settings)
    assert cs.strategy_used == "token"
    text = doc.full_text()
    rebuilt = "".join(c.text[c.metadata["overlap_chars"]:] for c in cs.chunks)
    assert rebuilt == text
    assert [c.chunk_index for c in cs.chunks] == list(range(len(cs.chunks)))
    for c in cs.chunks:
        assert c.page_number is None
        assert c.metadata["strategy_type"] == "token" and c.metadata["has_table"] is False
        assert c.metadata["token_count"] == count_tokens(c.text) <= settings.chunk_size_tokens
    # overlaps are (close to) 200 tokens
    for c in cs.chunks[1:]:
        assert 150 <= count_tokens(c.text[: c.metadata["overlap_chars"]]) <= settings.chunk_overlap_tokens


def test_c02_txt_no_replacement_char(settings):
    doc = _doc("txt", [C02])
    cs = split_document(doc, "token", settings.model_copy(update={"chunk_size_tokens": 50, "chunk_overlap_tokens": 3}))
    assert all("\ufffd" not in c.text for c in cs.chunks)
    assert "".join(c.text[c.metadata["overlap_chars"]:] for c in cs.chunks) == C02


def test_pdf_page_chunks_overlap_200(settings):
    doc = load_doc(FIXTURES / "E_基礎設施.pdf")
    cs = split_document(doc, "token", settings)
    texts = strip_furniture(doc)  # the pages' "E-1" footers and "(E)" header are not chunked
    assert texts != [p.text for p in doc.pages]
    assert [c.page_number for c in cs.chunks] == [p.page_number for p in doc.pages]
    enc = get_encoding()
    for i, c in enumerate(cs.chunks):
        assert texts[i] in c.text
        assert "\ufffd" not in c.text
        if i > 0:
            prev = encode(texts[i - 1])
            assert len(prev) >= 200
            k = c.metadata["overlap_before_tokens"]
            assert 197 <= k <= 200
            assert c.text.startswith(enc.decode(prev[-k:]))
        if i + 1 < len(cs.chunks):
            nxt = encode(texts[i + 1])
            k = c.metadata["overlap_after_tokens"]
            assert 197 <= k <= 200
            assert c.text.endswith(enc.decode(nxt[:k]))
    assert cs.chunks[0].metadata["overlap_before_tokens"] == 0
    assert cs.chunks[-1].metadata["overlap_after_tokens"] == 0


def test_pdf_exact_200_when_clean(settings):
    p1 = "Alpha beta gamma delta. " * 100
    p2 = "Page two text here. " * 100
    p3 = "Third page words. " * 100
    cs = split_document(_doc("pdf", [p1, p2, p3]), "token", settings)
    enc = get_encoding()
    mid = cs.chunks[1]
    assert mid.metadata["overlap_before_tokens"] == 200 and mid.metadata["overlap_after_tokens"] == 200
    assert mid.text == enc.decode(encode(p1)[-200:]) + "\n" + p2 + "\n" + enc.decode(encode(p3)[:200])


def test_pdf_page_never_split_and_rare_chars(settings):
    big = C02 * 3  # > 1000 tokens: still one chunk
    doc = _doc("pdf", [C02, big, C02])
    cs = split_document(doc, "token", settings)
    assert len(cs.chunks) == 3
    # its first line, at the top of all three pages, is a running header: stripped
    assert strip_furniture(doc)[1] in cs.chunks[1].text
    assert all("\ufffd" not in c.text for c in cs.chunks)


def test_pdf_blank_page_skipped_overlap_from_neighbours(settings):
    doc = load_doc(BAD / "C06_blank_page2.pdf")
    cs = split_document(doc, "token", settings)
    assert [c.page_number for c in cs.chunks] == [1, 3]
    assert all(c.text.strip() for c in cs.chunks)
    # page 1 takes its "after" overlap from page 3 (the next page with text)
    p3 = doc.pages[2].text
    assert cs.chunks[0].text.endswith(head_text(p3, 200)[0])


def test_empty_document(settings):
    cs = split_document(_doc("pdf", ["", "  \n"]), "token", settings)
    assert cs.chunks == [] and cs.notes
    cs = split_document(_doc("txt", [""]), "token", settings)
    assert cs.chunks == []


def test_unknown_strategy(settings):
    with pytest.raises(ValueError):
        split_document(_doc("txt", ["x"]), "paragraph", settings)


def test_token_chunks_show_normalised_text(settings):
    # a page's text layer with a private-use 邨 (U+E473), Kangxi radicals, a ligature and a soft hyphen
    page = "公共屋\ue473的⽴法會文件。\nThe ﬁrst sub\u00adcontractor."
    for kind in ("pdf", "txt"):
        cs = split_document(_doc(kind, [page, page]), "token", settings)
        assert cs.chunks
        for c in cs.chunks:
            assert "公共屋邨的立法會文件。" in c.text and "The first subcontractor." in c.text, c.text
            assert not any("\ue000" <= ch <= "\uf8ff" or "\u2f00" <= ch <= "\u2fdf" for ch in c.text)
