"""Highlights: a chunk's own text aligned with its pages' position layers (Chinese and English
Q&A pairs, token pages without their overlap, reflowed and spaced text), and the splitter stage
storing them in chunks.json."""
from __future__ import annotations

import asyncio
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from services.parser.parse import ParseOutput, parse_document
from services.splitter.handle import split_and_store
from services.splitter.highlight import add_highlights, align, own_text
from services.splitter.split import split_document
from shared import storage
from shared.events import DocumentTablesDone
from shared.models import BoxLine, Chunk, ChunkSet, Highlight, PageBoxes
from shared.settings import Settings
from tests.memory_store import MemoryStore as Store

CORPUS = (Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus").resolve()
E_PDF = CORPUS / "fixtures" / "E_基礎設施.pdf"
FAQ_PDF = CORPUS / "real" / "hk_ld_ec_ordinance_guide_faq_en.pdf"
DOC = "2" * 32


@cache
def _parsed(path: Path) -> ParseOutput:
    return parse_document(path.read_bytes(), path.name, DOC, Settings(_env_file=None))


@cache
def _chunks(path: Path, strategy: str) -> list[Chunk]:
    out = _parsed(path)
    chunks = split_document(out.parsed, strategy, Settings(_env_file=None)).chunks
    add_highlights(chunks, out.page_boxes)
    return chunks


def _norm(text: str) -> str:
    return re.sub(r"\W+", "", text).casefold()


def _qa(chunks: list[Chunk], qid: str) -> Chunk:
    return next(c for c in chunks if c.metadata.get("question_id") == qid and c.metadata.get("part", 1) == 1)


def _lines_with(layer: PageBoxes, needle: str) -> list[BoxLine]:
    return [line for line in layer.lines if _norm(needle) in _norm(line.t)]


def _overlaps(rect: tuple[float, float, float, float], box: tuple[float, float, float, float]) -> bool:
    return rect[0] < box[2] and box[0] < rect[2] and rect[1] < box[3] and box[1] < rect[3]


def _rects(chunk: Chunk, page: int) -> list[tuple[float, float, float, float]]:
    return [r for h in chunk.highlights if h.page == page for r in h.rects]


def _covered(chunk: Chunk) -> str:
    return _norm("".join(t for h in chunk.highlights for t in h.texts))


@pytest.mark.parametrize("path,qid,prev,page", [
    (E_PDF, "A2", "A1", 3),      # Chinese: 問 A2 follows A1's answer (and its 內部參考) on page 3
    (FAQ_PDF, "Q2", "Q1", 48),   # English: Q2 starts on page 48 right under Q1's answer
])
def test_a_qa_chunk_covers_its_lines_and_not_the_previous_question(path: Path, qid: str, prev: str,
                                                                   page: int) -> None:
    chunks = _chunks(path, "question")
    chunk, before = _qa(chunks, qid), _qa(chunks, prev)
    layer = _parsed(path).page_boxes[page]
    question = str(chunk.metadata["question_text"])
    # the question's first line: a rect of the chunk lies on it
    q_line = _lines_with(layer, question[:12])
    assert q_line, question
    assert any(_overlaps(r, q_line[0].b) for r in _rects(chunk, page))
    # almost all of its own text is under its rects, in order, and nothing more than that
    own, covered = _norm(own_text(chunk)), _covered(chunk)
    assert len(covered) >= 0.9 * len(own)
    assert len(covered) <= 1.05 * len(own)
    # the previous pair's answer lines on that page carry none of its rects
    prev_answer_lines = [line for line in layer.lines
                         if line.b[3] <= q_line[0].b[1] and _norm(line.t)
                         and _norm(line.t) in _norm(before.text)]
    assert prev_answer_lines
    for line in prev_answer_lines:
        assert not any(_overlaps(r, line.b) for r in _rects(chunk, page)), line.t
    # and the previous pair's rects stop above this question
    assert not any(_overlaps(r, q_line[0].b) for r in _rects(before, page))


def test_a_qa_pair_over_two_pages_has_a_highlight_on_each():
    chunk = _qa(_chunks(E_PDF, "question"), "A1")      # 問 A1 on page 2, its answer ends on page 3
    assert [h.page for h in chunk.highlights] == [2, 3]
    for h in chunk.highlights:
        assert len(h.rects) == len(h.texts) > 0
        layer = _parsed(E_PDF).page_boxes[h.page]
        for x0, y0, x1, y1 in h.rects:
            assert 0 <= x0 < x1 <= layer.width and 0 <= y0 < y1 <= layer.height


def test_a_token_chunk_covers_its_page_and_not_the_overlap():
    chunks = _chunks(E_PDF, "token")
    page2 = next(c for c in chunks if c.page_number == 2)
    assert page2.metadata["overlap_before_chars"] > 0 and page2.metadata["overlap_after_chars"] > 0
    page_text = _parsed(E_PDF).parsed.pages[1].text
    # the page without its furniture: the footer "E-2" and the date line are not chunked
    assert own_text(page2).strip() == page_text.removesuffix("\nE-2\n2024-06-17").strip() != page_text.strip()
    # only page 2 is marked, though its text holds the ends of pages 1 and 3
    assert [h.page for h in page2.highlights] == [2]
    layer = _parsed(E_PDF).page_boxes[2]
    marked = {(r[1], r[3]) for r in page2.highlights[0].rects}
    assert len(marked) == len(layer.lines) - 2     # every line of the page but the page number and date


def _layer(page: int, lines: list[str], top: float = 100.0, step: float = 20.0) -> PageBoxes:
    """A page of lines set 10 pt per character from x = 50."""
    out = []
    offset = 0
    for i, text in enumerate(lines):
        y0 = top + i * step
        xs = [50.0 + 10 * k for k in range(len(text) + 1)]
        out.append(BoxLine(o=offset, t=text, b=(xs[0], y0, xs[-1], y0 + 12), x=xs))
        offset += len(text) + 2
    return PageBoxes(page=page, width=595, height=842, lines=out)


def test_english_reflowed_with_a_hyphen_and_other_spacing():
    layer = _layer(5, ["Q1 What is the limit?", "The employer must insure every em-",
                       "ployee for at least HK$100 million per event.", "Q2 Next question here"])
    text = "What is the limit?\nThe employer must insure every employee for at least HK$ 100 million per event."
    [hl] = align(text, [layer])
    assert hl.page == 5
    assert hl.texts == ["What is the limit?", "The employer must insure every em-",
                        "ployee for at least HK$100 million per event."]
    assert hl.rects[0] == (80.0, 100.0, 260.0, 112.0)  # after "Q1 ", 18 characters of 10 pt
    assert all(r[1] < 160 for r in hl.rects)             # nothing on the Q2 line


def test_chinese_without_spaces_against_a_spaced_layer():
    layer = _layer(1, ["問 A1：會否增加水浸", "風險？", "答 A1：不會。 工程 完成後 會", "下降。", "問 A2：下一題"])
    text = "會否增加水浸風險？\n不會。工程完成後會下降。"
    [hl] = align(text, [layer])
    # the answer marker between the question and its answer is the pair's own; 問 A2 is not
    assert hl.texts == ["會否增加水浸", "風險？", "答 A1：不會。 工程 完成後 會", "下降。"]
    assert len(hl.rects) == 4


def test_no_match_no_highlight_and_a_lone_common_word_is_ignored():
    layer = _layer(1, ["completely different words on this page", "the"])
    assert align("nothing alike here", [layer]) == []
    assert align("the", [layer]) == []


def test_chunks_without_pages_or_layers_get_none():
    chunk = Chunk(chunk_index=0, text="abc def", page_number=None)
    add_highlights([chunk], {1: _layer(1, ["abc def"])})
    assert chunk.highlights == []
    chunk = Chunk(chunk_index=0, text="abc def ghi", page_number=2)
    add_highlights([chunk], {1: _layer(1, ["abc def ghi"])})
    assert chunk.highlights == []
    chunk.page_number = 1
    add_highlights([chunk], {1: _layer(1, ["abc def ghi"])})
    assert chunk.highlights == [Highlight(page=1, rects=[(50.0, 100.0, 160.0, 112.0)], texts=["abc def ghi"])]


def _event(boxes_prefix: str | None) -> DocumentTablesDone:
    return DocumentTablesDone(document_id=DOC, filename="E.pdf", strategy="question", file_type="pdf",
                              page_count=13, pages_key="pages", boxes_prefix=boxes_prefix)


async def _report(**_: Any) -> None:
    pass


@pytest.mark.parametrize("with_layers", [True, False])
def test_the_stage_stores_highlights_in_chunks_json_when_the_layers_are_named(with_layers: bool) -> None:
    out = _parsed(E_PDF)
    store = Store()
    store.objects["pages"] = out.parsed
    for n, layer in out.page_boxes.items():
        store.objects[storage.page_boxes_key(DOC, n)] = layer
    prefix = storage.page_boxes_prefix(DOC) if with_layers else None
    asyncio.run(split_and_store(_event(prefix), store, Settings(_env_file=None), _report))  # type: ignore[arg-type]
    stored = store.objects[storage.chunks_key(DOC)]
    chunk_set = ChunkSet.model_validate(stored.model_dump(mode="json"))
    qa = [c for c in chunk_set.chunks if c.metadata.get("chunk_kind") == "qa"]
    assert qa
    if with_layers:
        assert all(c.highlights for c in qa)
    else:
        assert all(not c.highlights for c in chunk_set.chunks)
