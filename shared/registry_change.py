"""``RegistryChange``, the event of ``legco.gateway.registry.v1``: how the gateway replicas share
every change of the document registry and of the API keys (``services/gateway/changelog.py``)."""
from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, Field

from shared.api import DocumentRecord
from shared.events import ProgressEvent, utcnow

ChangeKind = Literal["document", "deleted", "key"]


class RegistryChange(BaseModel):
    """One change of the registry or the keys, as every gateway replica folds it.

    * ``document``: ``record`` is the document's record as written to its manifest; ``cause``
      the progress event that moved it, if one did (the replicas' wait estimates learn from it,
      ``waits.py``);
    * ``deleted``: document ``document_id`` is gone (deleted, replaced, an upload undone);
    * ``key``: the API key record of ``key_prefix`` changed in MinIO (created, revoked); the
      record itself (the key's hash) is not sent: each replica reads it from MinIO.

    ``origin`` is the writing replica's ``gateway_instance``.
    """

    event_version: Literal[1] = 1
    change_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    kind: ChangeKind
    document_id: str = ""
    record: DocumentRecord | None = None
    cause: ProgressEvent | None = None
    key_prefix: str = ""
    origin: str = ""
    ts: str = Field(default_factory=utcnow)

    def kafka_key(self) -> bytes:
        """The message key: the document id, or ``key:{prefix}``."""
        return (f"key:{self.key_prefix}" if self.kind == "key" else self.document_id).encode()
