"""The highlights of a document's chunks, for the chunk routes.

The splitter stores each chunk's ``highlights`` (where its own text is printed: pages 1-based,
rects in PDF points, top-left origin; ``shared.models.Highlight``) in the document's
``chunks.json``, not in Chroma, whose metadata is flat. The chunk routes read them from there
and add them to the views Chroma gives.
"""
from __future__ import annotations

import logging
from typing import Any, Protocol

from shared import storage

log = logging.getLogger("legco.gateway.highlights")


class JsonStore(Protocol):
    def get_json(self, key: str) -> Any: ...


def chunk_highlights(store: JsonStore, document_id: str) -> dict[int, list[dict[str, Any]]]:
    """``{chunk_index: highlights}`` of the chunks of ``document_id`` that have any (JSON as
    stored). ``{}`` when ``chunks.json`` is missing or unreadable: the chunks are shown
    without highlights. Blocking (one MinIO read)."""
    try:
        stored = store.get_json(storage.chunks_key(document_id))
    except KeyError:
        return {}
    out: dict[int, list[dict[str, Any]]] = {}
    chunks = stored.get("chunks") if isinstance(stored, dict) else None
    if not isinstance(chunks, list):
        log.warning("chunks.json of %s has no chunk list", document_id)
        return {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        index, highlights = chunk.get("chunk_index"), chunk.get("highlights")
        if isinstance(index, int) and isinstance(highlights, list) and highlights:
            out[index] = highlights
    return out


def with_highlights(views: list[dict[str, Any]], highlights: dict[int, list[dict[str, Any]]]) -> None:
    """Add ``highlights`` to each chunk view (``shared.chunkview.chunk_view``) that has any,
    in place."""
    for view in views:
        found = highlights.get(view["chunk_index"])
        if found:
            view["highlights"] = found
