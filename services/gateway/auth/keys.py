"""API keys, stored hashed in MinIO (``auth/keys/{prefix}.json``), so they survive restarts.

A key is ``lgk_<prefix>_<secret>``: ``prefix`` is 8 lowercase hex characters (unique; shown in
lists and used to revoke), ``secret`` 32 characters of ``secrets.token_urlsafe`` (about 190
random bits). Only the SHA-256 of the whole key is stored: with that much randomness a fast hash
is the right tool (as for GitHub or Stripe tokens; a slow password hash would only slow every
request). Keys are compared with ``hmac.compare_digest``. The key itself is returned once, by
:meth:`KeyStore.create`, and never stored or logged.

Every gateway replica keeps the records in memory: loaded at start, read from MinIO when a prefix
is unknown (a key created through another replica works at once), read again when another
replica announces a change on the registry topic (``changelog.py``: a key revoked through one
replica is refused by every other), and read again on use once the copy is older than
``key_cache_ttl_s`` (a revocation whose announcement was lost still takes effect). A key record
is written only when it is created and when it is revoked (the record is read from MinIO first).
``last_used_at`` is kept in memory and written to its own object, ``auth/usage/{prefix}.json``,
at most once per ``LAST_USED_FLUSH_S`` seconds per key and replica, so a replica recording a use
can never write back a record another replica has revoked; the key list shows the latest use any
replica wrote.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from shared.api import Role
from shared.events import utcnow
from shared.storage import ObjectStore

log = logging.getLogger("legco.gateway.keys")

ROLES: tuple[Role, ...] = ("admin", "member", "reader")
KEY_PREFIX_DIR = "auth/keys/"
USAGE_PREFIX_DIR = "auth/usage/"
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


def usage_key(prefix: str) -> str:
    """Object key of a key's last use (``{"last_used_at": ISO time}``)."""
    if not re.fullmatch(r"[0-9a-f]{8}", prefix):
        raise ValueError(f"invalid key prefix: {prefix!r}")
    return f"{USAGE_PREFIX_DIR}{prefix}.json"


def later(a: str | None, b: str | None) -> str | None:
    """The later of two ISO-8601 UTC times (``None`` for neither)."""
    return max((t for t in (a, b) if t), default=None)


class KeyStore:
    """The key records of one deployment, as one gateway replica holds them.

    Args:
        store: the MinIO object store.
        ttl_s: seconds a cached record is trusted before it is read again on use.

    ``announce`` (set by the gateway) tells the other replicas that a prefix's record changed;
    ``None``: nobody to tell (the bootstrap command, tests).
    """

    def __init__(self, store: ObjectStore, ttl_s: float = 30.0) -> None:
        self.store = store
        self.ttl_s = ttl_s
        self.announce: Callable[[str], Awaitable[None]] | None = None
        self.records: dict[str, KeyRecord] = {}
        self._read_at: dict[str, float] = {}  # monotonic time each record was read from MinIO
        self._flushed: dict[str, float] = {}
        self._lock = asyncio.Lock()

    async def load(self) -> int:
        """Read every key record and its last use from MinIO (at start, and for the key list);
        the last use this replica has not written yet is kept. Returns how many records."""
        def _load() -> tuple[dict[str, KeyRecord], dict[str, str]]:
            out, used = {}, {}
            for k in self.store.list_keys(KEY_PREFIX_DIR):
                try:
                    rec = KeyRecord.model_validate(self.store.get_json(k))
                    out[rec.key_prefix] = rec
                except Exception:
                    log.exception("skipping unreadable key record %s", k)
            for k in self.store.list_keys(USAGE_PREFIX_DIR):
                with contextlib.suppress(Exception):
                    used[k[len(USAGE_PREFIX_DIR):].removesuffix(".json")] = str(self.store.get_json(k)["last_used_at"])
            return out, used
        now = time.monotonic()
        records, used = await asyncio.to_thread(_load)
        for prefix, rec in records.items():
            mine = self.records.get(prefix)
            rec.last_used_at = later(later(rec.last_used_at, used.get(prefix)), mine.last_used_at if mine else None)
            self._read_at[prefix] = now
        self.records = {**self.records, **records}  # a record is never deleted from MinIO
        return len(records)

    async def _fetch(self, prefix: str) -> KeyRecord | None:
        """The record of ``prefix`` read from MinIO (and kept), or ``None`` when there is none."""
        try:
            raw = await asyncio.to_thread(self.store.get_json, record_key(prefix))
        except KeyError:
            self.records.pop(prefix, None)
            return None
        rec = KeyRecord.model_validate(raw)
        mine = self.records.get(prefix)
        rec.last_used_at = later(rec.last_used_at, mine.last_used_at if mine else None)
        self.records[prefix] = rec
        self._read_at[prefix] = time.monotonic()
        return rec

    async def refresh(self, prefix: str) -> KeyRecord | None:
        """Read the record of ``prefix`` again (another replica changed it)."""
        return await self._fetch(prefix) if re.fullmatch(r"[0-9a-f]{8}", prefix) else None

    async def _current(self, prefix: str) -> KeyRecord | None:
        """The record of ``prefix``: the cached one while younger than ``ttl_s``, else read again
        (the cached one when MinIO cannot be read)."""
        rec = self.records.get(prefix)
        if rec is not None and time.monotonic() - self._read_at.setdefault(prefix, time.monotonic()) < self.ttl_s:
            return rec
        try:
            return await self._fetch(prefix)
        except Exception:
            if rec is None:
                raise
            log.warning("key record %s not read again (MinIO); the cached one is used", prefix, exc_info=True)
            return rec

    async def verify(self, key: str) -> KeyRecord | None:
        """The active record matching ``key``, or ``None`` (malformed, unknown, wrong secret or
        revoked). Records the use (``last_used_at``)."""
        parts = split_key(key)
        if parts is None:
            return None
        prefix = parts[0]
        rec = await self._current(prefix)
        if rec is None or not hmac.compare_digest(rec.sha256, key_sha256(key.strip())) or not rec.active:
            return None
        rec.last_used_at = utcnow()
        if time.monotonic() - self._flushed.get(prefix, float("-inf")) >= LAST_USED_FLUSH_S:
            self._flushed[prefix] = time.monotonic()
            await asyncio.to_thread(self.store.put_json, usage_key(prefix), {"last_used_at": rec.last_used_at})
        return rec

    async def _write(self, rec: KeyRecord) -> None:
        await asyncio.to_thread(self.store.put_json, record_key(rec.key_prefix), rec)
        self._read_at[rec.key_prefix] = time.monotonic()
        if self.announce is not None:
            try:
                await self.announce(rec.key_prefix)
            except Exception:  # the other replicas read it again within key_cache_ttl_s anyway
                log.warning("key change %s not announced to the other replicas", rec.key_prefix, exc_info=True)

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
        """Revoke the key with ``prefix`` (its record read from MinIO first); ``None`` when there
        is none. Revoking twice is a no-op."""
        if not re.fullmatch(r"[0-9a-f]{8}", prefix):
            return None
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
