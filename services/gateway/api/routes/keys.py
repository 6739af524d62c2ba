"""``/api/v1/keys`` (admin): create, list and revoke API keys. A new key is shown once, in the
answer to its creation; lists show its prefix only."""
from __future__ import annotations

import logging

from fastapi import APIRouter, HTTPException

from services.gateway import audit
from services.gateway.api.deps import StateDep
from services.gateway.auth.keys import KeyRecord
from services.gateway.auth.principal import AdminDep
from shared.api import KeyCreate, KeyCreated, KeyInfo, KeyList, KeyRevoked

log = logging.getLogger("legco.gateway.keys")
router = APIRouter(tags=["keys"])


def key_info(rec: KeyRecord) -> KeyInfo:
    """What a list shows of a key (never its hash)."""
    return KeyInfo(key_prefix=rec.key_prefix, department=rec.department, role=rec.role, label=rec.label,
                   created_at=rec.created_at, last_used_at=rec.last_used_at, revoked_at=rec.revoked_at)


@router.post("/keys", response_model=KeyCreated, status_code=201)
async def create_key(state: StateDep, caller: AdminDep, body: KeyCreate) -> KeyCreated:
    """A new key for ``body.department`` with ``body.role``; the answer holds the key, which is not
    shown again. 400 for an invalid department name."""
    try:
        key, rec = await state.keys.create(body.department, body.role, body.label)
    except ValueError as e:
        raise HTTPException(400, str(e)) from None
    await audit.record(state, caller, "key_create", rec.key_prefix, "ok", f"{rec.role} key for {rec.department}")
    return KeyCreated(key=key, **key_info(rec).model_dump())


@router.get("/keys", response_model=KeyList)
async def list_keys(state: StateDep, caller: AdminDep) -> KeyList:
    """Every key, oldest first: department, role, prefix, label, created / last used / revoked."""
    # read from MinIO again: the keys and last uses any gateway replica recorded
    try:
        await state.keys.load()
    except Exception:  # MinIO down: this replica's copy
        log.warning("key records not read again; listing this replica's copy", exc_info=True)
    return KeyList(keys=[key_info(r) for r in state.keys.list()])


@router.delete("/keys/{key_prefix}", response_model=KeyRevoked)
async def revoke_key(state: StateDep, caller: AdminDep, key_prefix: str) -> KeyRevoked:
    """Revoke a key by its prefix; its next request gets 401. 404 for an unknown prefix."""
    rec = await state.keys.revoke(key_prefix.removeprefix("lgk_").lower())
    if rec is None:
        raise HTTPException(404, "No key has that prefix.")
    await audit.record(state, caller, "key_revoke", rec.key_prefix, "ok", f"{rec.role} key of {rec.department}")
    return KeyRevoked(revoked=True, key_prefix=rec.key_prefix)
