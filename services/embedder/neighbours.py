"""Page vectors that carry their neighbours' context without embedding their text twice
(``EMBED_PAGE_OVERLAP=false`` with ``EMBED_NEIGHBOUR_WEIGHT`` > 0).

A token-strategy page chunk holds its page plus ~200 tokens of each neighbouring page. Embedding
that whole text costs the e5 server each page about twice (1.77x the tokens of every page once on
the real papers); embedding the page alone lost two Cantonese questions on the English FAQ guide
at rank 1 (a table page's vector, without its neighbours' prose, came first). Here each page's
own text is embedded once and the vector stored for the chunk is

    unit( unit(own_i) + w * (unit(own_{i-1}) + unit(own_{i+1})) )

over the document's page chunks in chunk order (a missing neighbour adds nothing): a weighted
centroid of the page and its neighbours, as the overlap text mixes them, for the price of the
page alone. ``w`` is ``EMBED_NEIGHBOUR_WEIGHT`` (0.5), or ``EMBED_TABLE_NEIGHBOUR_WEIGHT`` (2.5)
for a page holding a table, whose figures say little of its subject by themselves
(``bench/README.md``, "ingest.py": ``legco eval`` on the fixtures and the real papers with the
vectors rewritten in place: R@1 0.965, MRR@10 0.982, zh→en R@1 0.909, as with the overlap
embedded; 0.930 / 0.965 / 0.727 with the page alone; 0.947 / 0.974 / 0.818 with 0.5 for table
pages too. Ingested afresh: 0.965 / 0.980 / 0.818, zh→zh 1.000 against 0.963, so not the default).

The embedder writes each page's **own** vector first (metadata ``vector_kind: own``,
``vector_sha`` of the own text), batch by batch, so a crash loses nothing; once every page of the
document is embedded it writes the **composed** vectors over them (``vector_kind: neighbours``,
``vector_sha`` of the own texts' digests and ``w``, so the query service's vector cache never
mixes the two).
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from shared.models import Chunk

OWN_KIND = "own"
"""``vector_kind`` metadata of a page chunk's own-text vector, before its composed vector."""
COMPOSED_KIND = "neighbours"
"""``vector_kind`` metadata of a page chunk's composed vector (Chroma's upsert keeps metadata
keys it is not given, so the composed record names its kind too)."""


def is_page_chunk(chunk: Chunk) -> bool:
    """True for a token-strategy page chunk (its overlap with the neighbours is marked by
    ``overlap_before_chars`` / ``overlap_after_chars``), the chunks whose vectors are composed."""
    meta = chunk.metadata
    return (meta.get("strategy_type") == "token" and meta.get("chunk_kind") != "qa"
            and isinstance(meta.get("overlap_before_chars"), int)
            and isinstance(meta.get("overlap_after_chars"), int))


def page_weight(chunk: Chunk, weight: float, table_weight: float) -> float:
    """The neighbours' weight in a page chunk's composed vector: ``table_weight``
    (``EMBED_TABLE_NEIGHBOUR_WEIGHT``) for a page holding a table (``has_table``), whose own
    text (figures, labels) says little of its subject, else ``weight`` (``EMBED_NEIGHBOUR_WEIGHT``)."""
    return table_weight if chunk.metadata.get("has_table") else weight


def neighbours(positions: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """For page chunks at ``positions`` (indices into the document's chunk list, in chunk order),
    each one's neighbouring page chunks: the previous and the next of ``positions``."""
    out: dict[int, tuple[int, ...]] = {}
    for k, pos in enumerate(positions):
        out[pos] = tuple(positions[j] for j in (k - 1, k + 1) if 0 <= j < len(positions))
    return out


def composed_sha(own_sha: str, neighbour_shas: Sequence[str], weight: float) -> str:
    """``vector_sha`` of a composed vector: 16 hex digits of the SHA-256 of the own text's
    digest, the neighbours' digests (in chunk order) and the weight."""
    key = "|".join([own_sha, *neighbour_shas, f"w={weight:g}"])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def compose(own: Sequence[float], around: Sequence[Sequence[float]], weight: float) -> list[float]:
    """``unit(unit(own) + weight * sum(unit(v) for v in around))``: the stored vector of a page
    chunk from its own-text embedding and its neighbours' (each of the embedding's dimension).

    Raises:
        ValueError: a vector of another dimension.
    """
    acc = _unit(own)
    for v in around:
        u = _unit(v)
        if u.shape != acc.shape:
            raise ValueError(f"vector of dimension {u.shape[0]} next to one of {acc.shape[0]}")
        acc = acc + weight * u
    return [float(x) for x in _unit(acc)]


def _unit(v: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(v, dtype=np.float64)
    n = float(np.linalg.norm(a))
    return a / n if n > 0 else a
