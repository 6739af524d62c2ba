"""Request/response models of ``POST /api/v1/query``."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator


class QueryRequest(BaseModel):
    """A question (at least one letter, digit or Chinese character), optionally restricted to
    some documents (a non-empty list; omit it to search everything), the chunking strategy a chunk was
    made with (``token``/``question``; a question-strategy paper without Q&A items is ``token``)
    or a topic section (exactly as printed, e.g. ``(A) 排水系統``)."""

    question: str = Field(min_length=1, max_length=4000)
    top_k: int = Field(default=5, ge=1, le=50)
    document_ids: list[str] | None = Field(default=None, min_length=1)
    strategy: Literal["token", "question"] | None = None
    topic_section: str | None = Field(default=None, max_length=500)

    @field_validator("question")
    @classmethod
    def _has_words(cls, v: str) -> str:
        if not any(ch.isalnum() for ch in v):
            raise ValueError("the question has no letters, digits or Chinese characters")
        return v

    @field_validator("topic_section")
    @classmethod
    def _strip_topic(cls, v: str | None) -> str | None:
        return v.strip() if v is not None else None


class Rendition(BaseModel):
    """The same passage in another document (e.g. the DOCX of a PDF paper)."""

    chunk_id: str
    document_id: str
    filename: str | None = None
    page_number: int | None = None
    pdf_url: str | None = None


class Source(BaseModel):
    """One retrieved chunk; for Q&A chunks also the question id/text and the whole answer.

    ``score``: the ranking score (cosine similarity after language-bias removal, blended with
    the question-line similarity for Q&A pairs; see ``services/query/README.md``).
    ``matched_by``: the signal under which the chunk ranked best among the candidates —
    ``"dense"`` (question vs chunk embedding), ``"question-line"`` (vs the pair's question
    line) or ``"keyword"`` (BM25 on the query's words or their dictionary translations).
    ``matched_terms``: the query words (or their translations, ``"特惠 (ex gratia)"``) found
    in the chunk. ``also_in``: the same passage in other documents (collapsed into this one).
    """

    chunk_id: str
    document_id: str
    filename: str | None = None
    page_number: int | None = None
    score: float
    snippet: str
    pdf_url: str | None = None
    strategy_type: str | None = None
    question_id: str | None = None
    question_text: str | None = None
    answer: str | None = None
    topic_section: str | None = None
    source_page_range: list[int] | None = None
    matched_by: Literal["dense", "question-line", "keyword"] = "dense"
    matched_terms: list[str] = Field(default_factory=list)
    also_in: list[Rendition] = Field(default_factory=list)


class QueryResponse(BaseModel):
    """The answer (markdown) with its sources; ``answer_mode`` says how it was made."""

    answer: str
    answer_mode: Literal["llm", "extractive"]
    notice: str | None = None
    llm_model: str | None = None
    sources: list[Source]
