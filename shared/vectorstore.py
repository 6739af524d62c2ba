"""ChromaDB server access with explicit embeddings only.

The collection is created with ``embedding_function=None`` and is only ever written with
``embeddings=`` and queried with ``query_embeddings=``: Chroma never falls back to its default
embedding function (which would try to download a model). Metadata values are flat
str/int/float/bool, as Chroma requires.
"""
from __future__ import annotations

from typing import Any

import chromadb
from chromadb.api.models.Collection import Collection

from shared.settings import Settings


def flat_metadata(meta: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """Drop ``None`` values and turn lists into comma-joined strings (Chroma metadata rule)."""
    out: dict[str, str | int | float | bool] = {}
    for k, v in meta.items():
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            out[k] = ",".join(str(x) for x in v)
        elif isinstance(v, (str, int, float, bool)):
            out[k] = v
        else:
            out[k] = str(v)
    return out


class VectorStore:
    """One Chroma collection on a Chroma server (cosine space).

    Args:
        settings: host/port of the server and the collection name.
    """

    def __init__(self, settings: Settings) -> None:
        self.client = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port)
        self.collection_name = settings.chroma_collection
        self._collection: Collection | None = None

    @property
    def collection(self) -> Collection:
        """The collection, created on first use (idempotent)."""
        if self._collection is None:
            self._collection = self.client.get_or_create_collection(
                self.collection_name,
                embedding_function=None,
                metadata={"hnsw:space": "cosine"},
            )
        return self._collection

    def upsert(self, ids: list[str], embeddings: list[list[float]], documents: list[str],
               metadatas: list[dict[str, Any]]) -> None:
        """Insert or overwrite chunks by id (deterministic ids make redelivery idempotent)."""
        if not ids:
            return
        self.collection.upsert(ids=ids, embeddings=embeddings, documents=documents,
                               metadatas=[flat_metadata(m) for m in metadatas])

    def delete_document(self, document_id: str) -> None:
        """Delete every chunk whose metadata ``document_id`` matches."""
        self.collection.delete(where={"document_id": document_id})

    def delete_ids(self, ids: list[str]) -> None:
        """Delete chunks by id."""
        if ids:
            self.collection.delete(ids=ids)

    def get_document_chunks(self, document_id: str) -> dict[str, Any]:
        """All chunks of a document: Chroma ``get`` result with ids, documents and metadatas."""
        return self.collection.get(where={"document_id": document_id}, include=["documents", "metadatas"])

    def get_ids(self, ids: list[str]) -> dict[str, Any]:
        """Chunks by id, with documents and metadatas."""
        return self.collection.get(ids=ids, include=["documents", "metadatas"])

    def count_document(self, document_id: str) -> int:
        """Number of chunks stored for a document."""
        return len(self.collection.get(where={"document_id": document_id}, include=[])["ids"])

    def query(self, embedding: list[float], k: int, where: dict[str, Any] | None = None) -> dict[str, Any]:
        """Top-``k`` nearest chunks to ``embedding`` (cosine distance), optionally filtered."""
        return self.collection.query(
            query_embeddings=[embedding], n_results=k, where=where,
            include=["documents", "metadatas", "distances"],
        )

    def healthy(self) -> bool:
        """True when the Chroma server answers its heartbeat."""
        try:
            self.client.heartbeat()
            return True
        except Exception:
            return False
