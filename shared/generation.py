"""Index generations: which set of Chroma collections is the index, and with which embedding
model it was built.

The index is three collections (chunks, ``_questions``, ``_stats``, see ``shared.vectorstore``)
of one *generation*. Generation 0 is the configured name ``N`` (``CHROMA_COLLECTION``, as
before generations existed); generation ``g`` ≥ 1 is ``N_g{g}``. A rebuild (``legco reindex``)
writes a new generation next to the current one, which queries keep using, and switches when
it is complete by rewriting one pointer record: collection ``N_generation``, record
``current``, metadata = :class:`IndexGeneration`. The pointer lives in Chroma, next to what it
points to: every ``VectorStore`` reads it, and if Chroma's data is lost the pointer goes with
the collections (generation 0, empty, until a rebuild).

Who follows a switch: the query service on the ``legco.index.switched.v1`` event (it rebuilds
its keyword index and language means from the new generation, then swaps), the embedder per
document (it reads the pointer before each document and redoes a document whose generation
changed while it was embedded), the gateway at most every few seconds.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from shared.events import utcnow

POINTER_SUFFIX = "_generation"
POINTER_ID = "current"
SUFFIXES = ("", "_questions", "_stats")
"""The collections of one generation: chunks, question lines, per-language statistics."""


@dataclass(frozen=True)
class IndexGeneration:
    """One generation of the index.

    Attributes:
        generation: 0 (the configured collection name) or a rebuild's number (≥ 1).
        collection: the chunk collection's name (``_questions``/``_stats`` are appended).
        model: the embedding model its vectors were made with (queries must use the same).
        switched_at: ISO-8601 UTC time it became current (``""`` for generation 0 by default).
    """

    generation: int
    collection: str
    model: str
    switched_at: str = ""

    def metadata(self) -> dict[str, str | int]:
        """The pointer record's metadata."""
        return dict(asdict(self))

    @classmethod
    def from_metadata(cls, meta: dict[str, object]) -> IndexGeneration:
        """The generation a pointer record names."""
        return cls(generation=int(str(meta["generation"])), collection=str(meta["collection"]),
                   model=str(meta["model"]), switched_at=str(meta.get("switched_at", "")))


def collection_name(base: str, generation: int) -> str:
    """The chunk collection of ``generation`` (0: ``base`` itself, else ``{base}_g{generation}``)."""
    return base if generation == 0 else f"{base}_g{generation}"


def default_generation(base: str, model: str) -> IndexGeneration:
    """Generation 0: what the index is when no pointer has been written."""
    return IndexGeneration(0, base, model)


def next_generation(base: str, model: str, existing: list[int]) -> IndexGeneration:
    """A new generation numbered after every one that exists (``existing``), with ``model``."""
    n = max([0, *existing]) + 1
    return IndexGeneration(n, collection_name(base, n), model)


def generation_of(base: str, name: str) -> int | None:
    """The generation whose chunk collection is called ``name`` (``None`` for any other name,
    e.g. a ``_questions`` collection or another index)."""
    if name == base:
        return 0
    m = re.fullmatch(re.escape(base) + r"_g(\d+)", name)
    return int(m.group(1)) if m else None


def switched(generation: IndexGeneration) -> IndexGeneration:
    """``generation`` stamped with the time it becomes current."""
    return IndexGeneration(generation.generation, generation.collection, generation.model, utcnow())
