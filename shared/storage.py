"""MinIO object storage: the original uploads, one-page PDFs, page texts, chunks and the
document registry's manifests, all in one bucket under ``documents/{document_id}/``; delete
tombstones under ``tombstones/{document_id}``.

Object keys are built only here, from validated ids, so no user-provided path ever becomes
a key unchecked. The MinIO client is synchronous; async callers wrap calls in
``asyncio.to_thread``.
"""
from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from minio import Minio
from minio.deleteobjects import DeleteObject
from minio.error import S3Error

from shared.settings import Settings

_ID_RE = re.compile(r"^[0-9a-f]{32}$")


def valid_document_id(document_id: str) -> bool:
    """True for ids the gateway mints (32 lowercase hex characters, a uuid4 hex)."""
    return bool(_ID_RE.match(document_id))


DOCUMENTS_PREFIX = "documents/"
"""Everything of every document lives under this prefix (``documents/{id}/…``)."""

TOMBSTONES_PREFIX = "tombstones/"
"""Delete tombstones (``tombstones/{id}``): outside ``documents/``, so deleting a document's
objects leaves its tombstone, which the stages honour until the reconciler removes it."""


def _doc_prefix(document_id: str) -> str:
    if not valid_document_id(document_id):
        raise ValueError(f"invalid document id: {document_id!r}")
    return f"{DOCUMENTS_PREFIX}{document_id}/"


def document_prefix(document_id: str) -> str:
    """Prefix of every object of one document (``documents/{id}/``)."""
    return _doc_prefix(document_id)


def document_id_of(key: str) -> str | None:
    """The document id of a key under ``documents/`` (``None`` for any other key)."""
    if not key.startswith(DOCUMENTS_PREFIX):
        return None
    doc_id = key[len(DOCUMENTS_PREFIX):].split("/", 1)[0]
    return doc_id if valid_document_id(doc_id) else None


def tombstone_key(document_id: str) -> str:
    """Key of a document's delete tombstone, written by the gateway before it deletes anything:
    a stage that finds it stops work on the document (``ObjectStore.document_live``)."""
    if not valid_document_id(document_id):
        raise ValueError(f"invalid document id: {document_id!r}")
    return f"{TOMBSTONES_PREFIX}{document_id}"


def original_key(document_id: str) -> str:
    """Key of the uploaded file as received (its filename lives in the manifest)."""
    return _doc_prefix(document_id) + "original"


def manifest_key(document_id: str) -> str:
    """Key of the document's registry record (JSON)."""
    return _doc_prefix(document_id) + "manifest.json"


def pages_key(document_id: str) -> str:
    """Key of the parser's ``ParsedDocument`` JSON."""
    return _doc_prefix(document_id) + "parsed/pages.json"


def page_boxes_prefix(document_id: str) -> str:
    """Prefix of the parser's text-position layers (``{prefix}{n}.json``, n 1-based)."""
    return _doc_prefix(document_id) + "parsed/boxes/"


def page_boxes_key(document_id: str, page_number: int) -> str:
    """Key of page ``page_number``'s (1-based) text-position layer (``models.PageBoxes`` JSON)."""
    if page_number < 1:
        raise ValueError("page numbers are 1-based")
    return f"{page_boxes_prefix(document_id)}{page_number}.json"


def page_pdf_prefix(document_id: str) -> str:
    """Prefix of the one-page PDFs (``{prefix}{n}.pdf``, n 1-based)."""
    return _doc_prefix(document_id) + "pages/"


def page_pdf_key(document_id: str, page_number: int) -> str:
    """Key of the original page ``page_number`` (1-based) as a one-page PDF."""
    if page_number < 1:
        raise ValueError("page numbers are 1-based")
    return f"{page_pdf_prefix(document_id)}{page_number}.pdf"


def page_result_prefix(document_id: str) -> str:
    """Prefix of the table stage's per-page results (``{prefix}{n}.json``, n 1-based)."""
    return _doc_prefix(document_id) + "tables/pages/"


def page_result_key(document_id: str, page_number: int) -> str:
    """Key of the table result (``PageResult`` JSON) of page ``page_number`` (1-based)."""
    if page_number < 1:
        raise ValueError("page numbers are 1-based")
    return f"{page_result_prefix(document_id)}{page_number}.json"


def tables_job_key(document_id: str) -> str:
    """Key of the table stage's job: the ``DocumentParsed`` event its fan-out received (the
    gatherer takes the document's strategy, scanned pages and warnings from it)."""
    return _doc_prefix(document_id) + "tables/job.json"


def tables_parsed_key(document_id: str) -> str:
    """Key of the ``ParsedDocument`` with the tables attached (``PageText.tables``) that the
    table stage stores once every page is done; the splitter chunks it."""
    return _doc_prefix(document_id) + "tables/parsed.json"


def tables_done_key(document_id: str) -> str:
    """Marker the table stage writes after it emitted a document's ``DocumentTablesDone``, so
    later (redelivered or racing) page events do not gather it again."""
    return _doc_prefix(document_id) + "tables/done"


def vision_cache_key(image_sha256: str, model: str) -> str:
    """Key of a cached vision-LLM answer for a page image (by PNG content hash and model).
    Outside ``documents/`` so it survives deleting and re-ingesting the document."""
    if not re.fullmatch(r"[0-9a-f]{64}", image_sha256):
        raise ValueError("image_sha256 must be a sha256 hex digest")
    import hashlib
    model_id = hashlib.sha256(model.encode("utf-8")).hexdigest()[:16]
    return f"cache/vision/{model_id}/{image_sha256}.json"


REINDEX_JOB_KEY = "index/reindex.json"
"""The record of the latest reindex job (``shared.api.ReindexStatus``), written by the gateway
that runs it; any gateway answers ``GET /api/v1/reindex`` from it."""


def chunks_key(document_id: str) -> str:
    """Key of the splitter's ``ChunkSet`` JSON."""
    return _doc_prefix(document_id) + "chunks.json"


def embedding_job_key(document_id: str) -> str:
    """Key of the embedder's job for a document it embeds in chunk ranges: the
    ``DocumentChunked`` its fan-out received (the gatherer finishes the document from it)."""
    return _doc_prefix(document_id) + "embedding/job.json"


def chunk_range_key(document_id: str, range_number: int) -> str:
    """Key of the ``ChunkSet`` of chunk range ``range_number`` (1-based) of a document the
    embedder embeds in ranges (those chunks only)."""
    if range_number < 1:
        raise ValueError("range numbers are 1-based")
    return f"{_doc_prefix(document_id)}embedding/ranges/{range_number}.json"


def range_result_prefix(document_id: str) -> str:
    """Prefix of the results of a document's embedded chunk ranges (``{prefix}{n}.json``)."""
    return _doc_prefix(document_id) + "embedding/done/"


def range_result_key(document_id: str, range_number: int) -> str:
    """Key of the result of chunk range ``range_number`` (1-based): written once its vectors
    are in Chroma, before its ``ChunkRangeEmbedded`` event."""
    if range_number < 1:
        raise ValueError("range numbers are 1-based")
    return f"{range_result_prefix(document_id)}{range_number}.json"


def embedding_indexed_key(document_id: str) -> str:
    """Marker the embedder's gatherer writes after it emitted the ``DocumentIndexed`` of a
    document embedded in ranges, so later (redelivered or racing) range events do not finish it
    again."""
    return _doc_prefix(document_id) + "embedding/indexed"


class ObjectStore:
    """Thin wrapper over the MinIO client for one bucket.

    Args:
        settings: endpoint, credentials and bucket name.

    Raises:
        ValueError: no MinIO credentials are configured (``MINIO_ACCESS_KEY``/``MINIO_SECRET_KEY``,
            or the credentials file ``make up`` writes).
    """

    def __init__(self, settings: Settings) -> None:
        if not (settings.minio_access_key and settings.minio_secret_key):
            raise ValueError("No MinIO credentials: set MINIO_ACCESS_KEY and MINIO_SECRET_KEY, or run `make up`, "
                             f"which writes them to {settings.minio_credentials_file}.")
        self.bucket = settings.minio_bucket
        self.client = Minio(
            settings.minio_endpoint,
            access_key=settings.minio_access_key,
            secret_key=settings.minio_secret_key,
            secure=settings.minio_secure,
        )

    def ensure_bucket(self) -> None:
        """Create the bucket if it does not exist (idempotent)."""
        if not self.client.bucket_exists(self.bucket):
            try:
                self.client.make_bucket(self.bucket)
            except S3Error as e:  # created concurrently by another service
                if e.code not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                    raise

    def put_bytes(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        """Store ``data`` (bytes) at ``key``, overwriting."""
        self.client.put_object(self.bucket, key, io.BytesIO(data), len(data), content_type=content_type)

    def get_bytes(self, key: str) -> bytes:
        """Read the object at ``key``. Raises ``KeyError`` when it does not exist."""
        try:
            resp = self.client.get_object(self.bucket, key)
        except S3Error as e:
            if e.code in ("NoSuchKey", "NoSuchObject"):
                raise KeyError(key) from None
            raise
        try:
            return resp.read()
        finally:
            resp.close()
            resp.release_conn()

    def put_json(self, key: str, obj: Any) -> None:
        """Store ``obj`` as UTF-8 JSON (pydantic models via ``model_dump(mode='json')``)."""
        if hasattr(obj, "model_dump"):
            obj = obj.model_dump(mode="json")
        self.put_bytes(key, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json")

    def get_json(self, key: str) -> Any:
        """Read and decode a JSON object. Raises ``KeyError`` when it does not exist."""
        return json.loads(self.get_bytes(key))

    def exists(self, key: str) -> bool:
        """True when an object is stored at ``key``."""
        try:
            self.client.stat_object(self.bucket, key)
            return True
        except S3Error as e:
            if e.code in ("NoSuchKey", "NoSuchObject", "NotFound"):
                return False
            raise

    def list_keys(self, prefix: str, recursive: bool = True) -> Iterator[str]:
        """Keys under ``prefix``."""
        for obj in self.client.list_objects(self.bucket, prefix=prefix, recursive=recursive):
            yield obj.object_name

    def list_objects(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        """``(key, last modified, timezone-aware)`` of every object under ``prefix``."""
        for obj in self.client.list_objects(self.bucket, prefix=prefix, recursive=True):
            if obj.last_modified is not None:
                yield obj.object_name, obj.last_modified

    def delete(self, key: str) -> None:
        """Delete one object (no error when it does not exist)."""
        self.client.remove_object(self.bucket, key)

    def document_live(self, document_id: str) -> bool:
        """True while a document may be worked on: its manifest exists and it has no delete
        tombstone. The manifest is checked first: the gateway writes the tombstone before it
        deletes anything, so finding no tombstone *after* finding the manifest means no delete
        had begun when the manifest was seen."""
        return self.exists(manifest_key(document_id)) and not self.exists(tombstone_key(document_id))

    def delete_prefix(self, prefix: str) -> int:
        """Delete every object under ``prefix``; returns how many were deleted."""
        keys = [DeleteObject(k) for k in self.list_keys(prefix)]
        if not keys:
            return 0
        errors = list(self.client.remove_objects(self.bucket, keys))
        if errors:
            raise RuntimeError(f"could not delete {len(errors)} objects under {prefix}")
        return len(keys)

    def delete_document(self, document_id: str) -> int:
        """Delete every object of a document (original, pages, chunks, manifest)."""
        return self.delete_prefix(_doc_prefix(document_id))

    def healthy(self) -> bool:
        """True when MinIO answers."""
        try:
            self.client.bucket_exists(self.bucket)
            return True
        except Exception:  # noqa: BLE001 - whatever the client raises, MinIO is not usable
            return False


async def open_store(settings: Settings) -> ObjectStore:
    """An ``ObjectStore`` with its bucket ensured, created off the event loop (for a service's
    lifespan)."""
    store = ObjectStore(settings)
    await asyncio.to_thread(store.ensure_bucket)
    return store
