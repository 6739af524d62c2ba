"""``GET /api/v1/audit`` (admin): the audit log read back from ``legco.audit.v1``."""
from __future__ import annotations

from aiokafka.errors import KafkaError
from fastapi import APIRouter, HTTPException, Query

from services.gateway.api.deps import StateDep
from services.gateway.audit import parse_since, read_entries
from services.gateway.auth.principal import AdminDep
from shared.api import AuditEntry, AuditList

router = APIRouter(tags=["audit"])


@router.get("/audit", response_model=AuditList)
async def audit_log(state: StateDep, caller: AdminDep,
                    department: str | None = Query(None, max_length=63, description="only this department's entries"),
                    since: str = Query("24h", max_length=40, description="seconds (3600), a duration (30m, 1h, "
                                       "2d, 1w) or an ISO-8601 time"),
                    limit: int = Query(100, ge=1, le=10000, description="at most this many entries")) -> AuditList:
    """Audit entries (uploads, deletes, replacements, chunk deletes, key creation and revocation,
    refused requests) since ``since`` (default: the last 24 hours), newest first. 400 for a
    ``since`` that is not a time; 503 when Kafka is not reachable."""
    try:
        start = parse_since(since)
    except ValueError as e:
        raise HTTPException(400, str(e)) from None
    try:
        events = await read_entries(state.settings, start, department or None, limit)
    except KafkaError:
        raise HTTPException(503, "The audit log (Kafka) is not reachable; try again shortly.") from None
    return AuditList(entries=[AuditEntry.model_validate(e.model_dump(exclude={"event_version"})) for e in events])
