"""One page of a document listing (``GET /api/v1/documents``): which documents match the filters,
in which order, and which of them the page holds. Pure functions of the registry's records; the
route (``api/routes/documents.py``) applies the caller's department scope first and finds the
documents whose chunk text holds the search text (``content_search.py``), so nothing here can
see, or count, another department's document.

Shapes:

* in: ``records`` — ``list[DocumentRecord]`` already limited to the caller's scope;
  ``query`` — ``DocumentListQuery`` (``shared/api.py``: ``q``, ``status``, ``strategy``,
  ``uploaded_from``/``uploaded_to``, ``sort``, ``page``, ``page_size``); ``content_ids`` — ids of
  the records whose chunks contain ``query.q`` (``set[str]``); ``tz`` — the zone of the dates.
* out: :class:`Page` — ``documents`` (the page, in order) and ``total`` (every match).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from shared.api import DocumentListQuery, DocumentRecord

STATUS_ORDER = {"queued": 0, "processing": 1, "indexed": 2, "failed": 3}
"""``sort=status``: the pipeline's order, not the alphabet's."""
_OLDEST = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Page:
    """The documents of one page, in order, and how many documents matched in all."""

    documents: list[DocumentRecord]
    total: int


def uploaded_at(record: DocumentRecord) -> datetime:
    """When ``record`` was uploaded (its ISO ``upload_date``, read as UTC when it has no offset;
    the oldest possible time when it cannot be read, so a broken date sorts last, not first)."""
    try:
        at = datetime.fromisoformat(record.upload_date)
    except ValueError:
        return _OLDEST
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def day_window(first: date | None, last: date | None, tz: tzinfo) -> tuple[datetime | None, datetime | None]:
    """The instants ``[start, end)`` of the calendar days ``first`` … ``last`` (inclusive) in ``tz``;
    ``None`` for an open end."""
    start = datetime.combine(first, time.min, tz) if first else None
    end = datetime.combine(last + timedelta(days=1), time.min, tz) if last else None
    return start, end


def matches(record: DocumentRecord, query: DocumentListQuery, content_ids: set[str], tz: tzinfo) -> bool:
    """True when ``record`` passes every filter of ``query``: the search text in its filename
    (case-insensitive) or its id in ``content_ids``; its status and chosen strategy among those
    asked for (any, when none); uploaded within the days asked for."""
    needle = (query.q or "").strip().casefold()
    if needle and needle not in record.filename.casefold() and record.document_id not in content_ids:
        return False
    if query.status and record.status not in query.status:
        return False
    if query.strategy and record.strategy not in query.strategy:
        return False
    start, end = day_window(query.uploaded_from, query.uploaded_to, tz)
    at = uploaded_at(record)
    return (start is None or at >= start) and (end is None or at < end)


_SORT_KEYS: dict[str, Callable[[DocumentRecord], Any]] = {
    "uploaded_at": lambda r: (uploaded_at(r), r.upload_seq),
    "filename": lambda r: r.filename.casefold(),
    "status": lambda r: STATUS_ORDER.get(r.status, len(STATUS_ORDER)),
    "pages": lambda r: r.page_count,
    "chunks": lambda r: r.chunk_count,
}


def sort_records(records: Iterable[DocumentRecord], sort: str) -> list[DocumentRecord]:
    """``records`` in the order ``sort`` names (``DocumentSort``: a field, ``-`` for descending).
    Ties keep the newest upload first (then the document id, so pages never overlap); documents
    not yet parsed (no page count) come last under ``pages`` either way."""
    field = sort.removeprefix("-")
    key = _SORT_KEYS[field]
    ordered = sorted(records, key=lambda r: r.document_id)
    ordered.sort(key=lambda r: (uploaded_at(r), r.upload_seq), reverse=True)
    known = [r for r in ordered if key(r) is not None]
    unknown = [r for r in ordered if key(r) is None]
    known.sort(key=key, reverse=sort.startswith("-"))  # stable, also when reversed: ties keep the order above
    return known + unknown


def select(records: Iterable[DocumentRecord], query: DocumentListQuery, content_ids: set[str],
           tz: tzinfo) -> Page:
    """The page of ``records`` that ``query`` asks for (every match when it has no ``page_size``;
    an empty page past the last one), and the number of matches."""
    found = sort_records((r for r in records if matches(r, query, content_ids, tz)), query.sort)
    if query.page_size is None:
        return Page(found, len(found))
    first = (query.page - 1) * query.page_size
    return Page(found[first:first + query.page_size], len(found))
