"""An in-memory stand-in for ``shared.storage``'s object store, for handler tests: the calls the
stages make (``get_json``/``put_json``, ``get_bytes``/``put_bytes``, ``list_keys``, ``exists``,
``document_live``), every document live. Models put with ``put_json`` are read back as their JSON form."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class MemoryStore:
    """Objects by key, in memory."""

    def __init__(self) -> None:
        self.objects: dict[str, Any] = {}

    def document_live(self, document_id: str) -> bool:
        return True

    def exists(self, key: str) -> bool:
        return key in self.objects

    def get_json(self, key: str) -> Any:
        """Raises ``KeyError`` for a missing key."""
        if key not in self.objects:
            raise KeyError(key)
        obj = self.objects[key]
        return obj.model_dump(mode="json") if hasattr(obj, "model_dump") else obj

    def put_json(self, key: str, obj: Any) -> None:
        self.objects[key] = obj

    def get_bytes(self, key: str) -> bytes:
        """Raises ``KeyError`` for a missing key."""
        if key not in self.objects:
            raise KeyError(key)
        return bytes(self.objects[key])

    def put_bytes(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        self.objects[key] = data

    def list_keys(self, prefix: str, recursive: bool = True) -> Iterator[str]:
        return iter([k for k in list(self.objects) if k.startswith(prefix)])
