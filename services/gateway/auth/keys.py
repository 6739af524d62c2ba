"""API keys, stored hashed in MinIO (``auth/keys/{prefix}.json``), so they survive restarts.

A key is ``lgk_<prefix>_<secret>``: ``prefix`` is 8 lowercase hex characters (unique; shown in
lists and used to revoke), ``secret`` 32 characters of ``secrets.token_urlsafe`` (about 190
random bits). Only the SHA-256 of the whole key is stored: with that much randomness a fast hash
is the right tool (as for GitHub or Stripe tokens; a slow password hash would only slow every
request). Keys are compared with ``hmac.compare_digest``. The key itself is returned once, by
:meth:`KeyStore.create`, and never stored or logged.

The gateway keeps the records in memory (loaded at start, refreshed from MinIO when a prefix is
unknown, so a key created by another gateway process works at once). ``last_used_at`` is kept in
memory and written to MinIO at most once per ``LAST_USED_FLUSH_S`` seconds per key.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import secrets
import time

from pydantic import BaseModel

from shared.api import Role
from shared.events import utcnow
from shared.storage import ObjectStore

log = logging.getLogger("legco.gateway.keys")

ROLES: tuple[Role, ...] = ("admin", "member", "reader")
KEY_PREFIX_DIR = "auth/keys/"
LAST_USED_FLUSH_S = 60.0
_KEY_RE = re.compile(r"^lgk_([0-9a-f]{8})_([A-Za-z0-9_-]{20,64})$")
_DEPARTMENT_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


class KeyRecord(BaseModel):
    """What is stored about a key (never the key itself)."""

    key_prefix: str
    sha256: str
    department: str
    role: Role
    label: str = ""
    created_at: str
    last_used_at: str | None = None
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        """Not revoked."""
        return self.revoked_at is None


def valid_department(name: str) -> bool:
    """Department names are lowercase letters, digits and ``-`` (1-63 characters): they appear
    in metrics labels, object metadata and URLs."""
    return bool(_DEPARTMENT_RE.match(name))


def key_sha256(key: str) -> str:
    """Hex SHA-256 of a key (what is stored)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def split_key(key: str) -> tuple[str, str] | None:
    """(prefix, secret) of a well-formed key, else ``None``."""
    m = _KEY_RE.match(key.strip())
    return (m.group(1), m.group(2)) if m else None


def record_key(prefix: str) -> str:
    """Object key of a key record."""
    if not re.fullmatch(r"[0-9a-f]{8}", prefix):
        raise ValueError(f"invalid key prefix: {prefix!r}")
    return f"{KEY_PREFIX_DIR}{prefix}.json"


class KeyStore:
    """The key records of one deployment.

    Args:
        store: the MinIO object store.
    """

    def __init__(self, store: ObjectStore) -> None:
        self.store = store
        self.records: dict[str, KeyRecord] = {}
        self._flushed: dict[str, float] = {}
        self._lock = asyncio.Lock()

    async def load(self) -> int:
        """Read every key record from MinIO; returns how many."""
        def _load() -> dict[str, KeyRecord]:
            out = {}
            for k in self.store.list_keys(KEY_PREFIX_DIR):
                try:
                    rec = KeyRecord.model_validate(self.store.get_json(k))
                    out[rec.key_prefix] = rec
                except Exception:
                    log.exception("skipping unreadable key record %s", k)
            return out
        self.records = await asyncio.to_thread(_load)
        return len(self.records)

    async def _fetch(self, prefix: str) -> KeyRecord | None:
        """The record of ``prefix`` from MinIO (a key made by another gateway process)."""
        try:
            raw = await asyncio.to_thread(self.store.get_json, record_key(prefix))
        except KeyError:
            return None
        rec = KeyRecord.model_validate(raw)
        self.records[prefix] = rec
        return rec

    async def verify(self, key: str) -> KeyRecord | None:
        """The active record matching ``key``, or ``None`` (malformed, unknown, wrong secret or
        revoked). Records the use (``last_used_at``)."""
        parts = split_key(key)
        if parts is None:
            return None
        prefix = parts[0]
        rec = self.records.get(prefix) or await self._fetch(prefix)
        if rec is None or not hmac.compare_digest(rec.sha256, key_sha256(key.strip())) or not rec.active:
            return None
        rec.last_used_at = utcnow()
        if time.monotonic() - self._flushed.get(prefix, float("-inf")) >= LAST_USED_FLUSH_S:
            self._flushed[prefix] = time.monotonic()
            await self._write(rec)
        return rec

    async def _write(self, rec: KeyRecord) -> None:
        await asyncio.to_thread(self.store.put_json, record_key(rec.key_prefix), rec)

    async def create(self, department: str, role: Role, label: str = "") -> tuple[str, KeyRecord]:
        """A new key and its record (stored). The key is returned only here.

        Raises:
            ValueError: an invalid department name or role.
        """
        if not valid_department(department):
            raise ValueError("A department name is 1-63 lowercase letters, digits or '-'.")
        if role not in ROLES:
            raise ValueError(f"The role must be one of {', '.join(ROLES)}.")
        async with self._lock:
            while True:
                prefix = secrets.token_hex(4)
                if prefix not in self.records and await self._fetch(prefix) is None:
                    break
            key = f"lgk_{prefix}_{secrets.token_urlsafe(24)}"
            rec = KeyRecord(key_prefix=prefix, sha256=key_sha256(key), department=department, role=role,
                            label=label[:200], created_at=utcnow())
            self.records[prefix] = rec
            await self._write(rec)
        return key, rec

    async def revoke(self, prefix: str) -> KeyRecord | None:
        """Revoke the key with ``prefix``; ``None`` when there is none. Revoking twice is a no-op."""
        rec = self.records.get(prefix) if re.fullmatch(r"[0-9a-f]{8}", prefix) else None
        if rec is None and re.fullmatch(r"[0-9a-f]{8}", prefix):
            rec = await self._fetch(prefix)
        if rec is None:
            return None
        if rec.active:
            rec.revoked_at = utcnow()
            await self._write(rec)
        return rec

    def list(self) -> list[KeyRecord]:
        """Every record, oldest first."""
        return sorted(self.records.values(), key=lambda r: r.created_at)

    def has_active_admin(self) -> bool:
        """True when an admin key that is not revoked exists."""
        return any(r.role == "admin" and r.active for r in self.records.values())
