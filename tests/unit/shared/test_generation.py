"""Index generations: names, the pointer in Chroma, stores pinned to a generation, deletes that
reach every generation (an in-process Chroma, no server)."""
from __future__ import annotations

import uuid

import chromadb
import pytest

from shared.generation import IndexGeneration, collection_name, generation_of, next_generation, switched
from shared.settings import Settings
from shared.vectorstore import VectorStore


def test_names() -> None:
    assert collection_name("legco_chunks", 0) == "legco_chunks"
    assert collection_name("legco_chunks", 3) == "legco_chunks_g3"
    assert generation_of("legco_chunks", "legco_chunks_g3") == 3
    assert generation_of("legco_chunks", "legco_chunks") == 0
    assert generation_of("legco_chunks", "legco_chunks_g3_questions") is None
    assert generation_of("legco_chunks", "other") is None
    assert next_generation("legco_chunks", "m", [0, 2]) == IndexGeneration(3, "legco_chunks_g3", "m")
    gen = switched(IndexGeneration(1, "legco_chunks_g1", "m"))
    assert gen.switched_at and IndexGeneration.from_metadata(gen.metadata()) == gen


@pytest.fixture
def store() -> VectorStore:
    s = VectorStore(Settings(chroma_collection=f"t{uuid.uuid4().hex[:8]}", embeddings_model="m"))
    s._client = chromadb.EphemeralClient()
    return s


def _put(store: VectorStore, doc_id: str, n: int) -> None:
    store.upsert([f"{doc_id}_{i}" for i in range(n)], [[1.0, float(i)] for i in range(n)], ["t"] * n,
                 [{"document_id": doc_id, "chunk_index": i} for i in range(n)])


def test_a_rebuilt_generation_becomes_current_only_when_the_pointer_says_so(store: VectorStore) -> None:
    assert store.generation.generation == 0 and store.collection_name == store.base
    _put(store, "a" * 32, 2)
    target = next_generation(store.base, "m", store.generations())
    pinned = store.at(target)
    _put(pinned, "a" * 32, 2)
    _put(pinned, "b" * 32, 1)
    assert store.refresh().generation == 0                  # built, not switched: queries read gen 0
    assert store.document_ids() == {"a" * 32}
    store.write_pointer(switched(target))
    assert store.refresh().generation == 1 and store.collection_name == f"{store.base}_g1"
    assert store.document_ids() == {"a" * 32, "b" * 32}
    assert store.generations() == [0, 1]
    store.delete_document("a" * 32)                          # every generation
    assert store.at(0).document_ids() == set() and store.document_ids() == {"b" * 32}
    store.drop_generation(0)
    assert store.generations() == [1]


def test_a_pinned_store_keeps_its_generation(store: VectorStore) -> None:
    pinned = store.at(IndexGeneration(2, f"{store.base}_g2", "m"))
    assert pinned.refresh().generation == 2
    with pytest.raises(ValueError):
        pinned.use(IndexGeneration(0, store.base, "m"))
