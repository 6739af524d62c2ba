"""What the embedder embeds: document title, question line with context."""
from __future__ import annotations

from services.embedder.search_text import content_chars, document_title, question_search_text
from shared.models import Chunk, ChunkSet
from shared.textnorm import normalize_for_search


def chunk_set(*chunks: Chunk) -> ChunkSet:
    return ChunkSet(document_id="d", filename="L.pdf", strategy="question", strategy_used="question",
                    file_type="pdf", chunks=list(chunks))


def test_title_skips_header_letter():
    cs = chunk_set(Chunk(chunk_index=0, text="(L)\n古洞北及粉嶺北新發展區\n補償及安置安排\n目錄\n"))
    assert document_title(cs) == "古洞北及粉嶺北新發展區 補償及安置安排"
    assert document_title(chunk_set()) == ""


def test_question_line_has_title_topic_and_question_normalised():
    qa = Chunk(chunk_index=3, text="Q14 ...", metadata={"chunk_kind": "qa", "question_text": "政府至今已发放多少补偿？",
                                                       "topic_section": "業務經營者"})
    # NFKC: full-width ？ → ?
    assert question_search_text("古洞北 新發展區", qa) == "古洞北新發展區\n業務經營者\n政府至今已發放多少補償?"
    assert question_search_text("t", Chunk(chunk_index=0, text="x", metadata={"chunk_kind": "section"})) is None


def test_content_chars():
    assert content_chars(" Part II \n") == 6


def test_a_page_chunk_is_embedded_with_its_overlap_unless_told_otherwise():
    from services.embedder.search_text import chunk_search_text

    page = Chunk(chunk_index=0, text="end of page 1\npage two text\nstart of page 3",
                 metadata={"strategy_type": "token", "overlap_before_chars": 13, "overlap_after_chars": 15})
    assert page.own_text().strip() == "page two text"
    assert chunk_search_text(page) == normalize_for_search(page.text)
    assert chunk_search_text(page, page_overlap=False) == normalize_for_search(page.own_text())
    qa = Chunk(chunk_index=1, text="shown", embed_text="q\na", metadata={"chunk_kind": "qa"})
    assert chunk_search_text(qa) == chunk_search_text(qa, page_overlap=False) == normalize_for_search("q\na")
