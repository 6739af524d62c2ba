"""Vision answers cached in MinIO by page-image content hash and model, so re-ingesting the
same file (any document id) calls the vision LLM zero times. Blocking: call in a thread."""
from __future__ import annotations

from shared import storage
from shared.events import utcnow
from shared.storage import ObjectStore


def cached_answer(store: ObjectStore, image_sha256: str, model: str) -> str | None:
    """The cached markdown answer for this image and model, or ``None``."""
    try:
        answer: str = store.get_json(storage.vision_cache_key(image_sha256, model))["answer"]
        return answer
    except KeyError:
        return None


def store_answer(store: ObjectStore, image_sha256: str, model: str, answer: str) -> None:
    """Cache ``answer`` (raw, before validation) for this image and model."""
    store.put_json(storage.vision_cache_key(image_sha256, model),
                   {"answer": answer, "model": model, "image_sha256": image_sha256, "ts": utcnow()})
