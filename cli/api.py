"""Async calls to the gateway HTTP API (``/api/v1``) with errors turned into ``ApiError``.

Every function takes an ``httpx.AsyncClient`` whose ``base_url`` is the gateway root
(e.g. ``http://localhost:8080``) and returns the decoded JSON body. The URL and the timeouts
come from ``shared.settings.ClientSettings`` (``LEGCO_URL``, ``LEGCO_REQUEST_TIMEOUT_S``).
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from shared.settings import ClientSettings

API = "/api/v1"


class ApiError(Exception):
    """A gateway call failed; ``str(e)`` is a one-line message for the user.

    Attributes:
        status: the HTTP status code, or ``None`` when the gateway was not reachable.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def resolve_url(flag: str | None, settings: ClientSettings | None = None) -> str:
    """Gateway root URL: ``--url`` flag, else ``settings.url`` (env ``LEGCO_URL``, default
    ``http://localhost:8080``); no trailing slash."""
    return (flag or (settings or ClientSettings()).url).rstrip("/")


def make_client(url: str, settings: ClientSettings | None = None) -> httpx.AsyncClient:
    """A keep-alive client for the gateway at ``url`` (``settings.request_timeout_s`` seconds
    per request; ``ClientSettings()`` when not given) that sends the API key
    (``LEGCO_API_KEY``, else ``var/admin.key`` of this checkout) as ``Authorization: Bearer``."""
    s = settings or ClientSettings()
    key = s.api_key_or_file()
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.AsyncClient(base_url=url, timeout=s.request_timeout_s, headers=headers)


def error_detail(resp: httpx.Response) -> str:
    """The human part of an error response: FastAPI's ``detail`` (string or validation list),
    else the body text (first 300 characters)."""
    try:
        detail = resp.json().get("detail")
    except (ValueError, AttributeError):
        detail = None
    if isinstance(detail, list):
        return "; ".join(f"{'.'.join(str(x) for x in d.get('loc', []))}: {d.get('msg', '')}"
                         if isinstance(d, dict) else str(d) for d in detail)
    if detail:
        return str(detail)
    return resp.text.strip()[:300] or resp.reason_phrase


async def call(client: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    """Send one request and return its JSON body (an object: every gateway endpoint answers one).

    Args:
        method: HTTP method; path: relative to the gateway root (``/api/v1/...``);
        kwargs: passed to ``httpx.AsyncClient.request`` (``json``, ``params``, ``files``).

    Raises:
        ApiError: transport failure (``status`` None) or a non-2xx answer (message
            ``"<status> <detail>"``).
    """
    try:
        resp = await client.request(method, path, **kwargs)
    except httpx.TimeoutException:
        raise ApiError(f"The gateway at {client.base_url} did not answer in time.") from None
    except httpx.TransportError as e:
        raise ApiError(f"Cannot reach the gateway at {client.base_url} ({type(e).__name__}).") from None
    if resp.status_code == 401:
        raise ApiError(f"401 {error_detail(resp)} Set LEGCO_API_KEY, or run from the checkout whose "
                       "`make up` wrote var/admin.key.", 401)
    if resp.status_code >= 400:
        raise ApiError(f"{resp.status_code} {error_detail(resp)}", resp.status_code)
    body: dict[str, Any] = resp.json()
    return body


async def upload(client: httpx.AsyncClient, path: Path, strategy: str, department: str | None = None,
                 shared: bool = False) -> dict[str, Any]:
    """``POST /api/v1/ingest?strategy=&department=&visibility=`` with the file as multipart field
    ``file``; ``department`` and ``shared`` (the shared library) are for admin keys.

    Returns ``{document_id, filename, strategy, status, department, visibility, replaced}``
    (``replaced``: the same-named documents it replaces once indexed).

    Raises:
        ApiError: e.g. 400 unsupported type/empty file, 403 another department, 413 too large,
            503 the pipeline is unreachable (nothing kept).
        OSError: the file cannot be read.
    """
    data = await asyncio.to_thread(path.read_bytes)
    params = {"strategy": strategy, **({"department": department} if department else {}),
              **({"visibility": "shared"} if shared else {})}
    return await call(client, "POST", f"{API}/ingest", params=params,
                      files={"file": (path.name, data, "application/octet-stream")})


async def get_document(client: httpx.AsyncClient, document_id: str) -> dict[str, Any]:
    """``GET /api/v1/documents/{id}``: the document's record. Raises ``ApiError`` (404 unknown)."""
    return await call(client, "GET", f"{API}/documents/{document_id}")


async def list_documents(client: httpx.AsyncClient) -> dict[str, Any]:
    """``GET /api/v1/documents``: ``{documents: [...], total_documents, total_chunks}``."""
    return await call(client, "GET", f"{API}/documents")


async def delete_document(client: httpx.AsyncClient, document_id: str) -> dict[str, Any]:
    """``DELETE /api/v1/documents/{id}``: ``{deleted, message}``. Raises ``ApiError``."""
    return await call(client, "DELETE", f"{API}/documents/{document_id}")


async def query(client: httpx.AsyncClient, question: str, top_k: int) -> dict[str, Any]:
    """``POST /api/v1/query``: ``{answer, answer_mode, notice, llm_model, sources}``."""
    return await call(client, "POST", f"{API}/query", json={"question": question, "top_k": top_k})


async def create_key(client: httpx.AsyncClient, department: str, role: str, label: str = "") -> dict[str, Any]:
    """``POST /api/v1/keys`` (admin): ``{key, key_prefix, department, role, label, created_at, …}``.
    Raises ``ApiError`` (400 invalid department, 403 not an admin key)."""
    return await call(client, "POST", f"{API}/keys", json={"department": department, "role": role, "label": label})


async def list_keys(client: httpx.AsyncClient) -> dict[str, Any]:
    """``GET /api/v1/keys`` (admin): ``{keys: [{key_prefix, department, role, label, created_at,
    last_used_at, revoked_at}]}``."""
    return await call(client, "GET", f"{API}/keys")


async def revoke_key(client: httpx.AsyncClient, prefix: str) -> dict[str, Any]:
    """``DELETE /api/v1/keys/{prefix}`` (admin): ``{revoked, key_prefix}``. Raises ``ApiError``
    (404 unknown prefix)."""
    return await call(client, "DELETE", f"{API}/keys/{prefix}")


async def audit(client: httpx.AsyncClient, department: str | None, since: str, limit: int) -> dict[str, Any]:
    """``GET /api/v1/audit`` (admin): ``{entries: [{ts, key_prefix, department, action, target,
    result, detail}]}``, newest first."""
    params: dict[str, str | int] = {"since": since, "limit": limit}
    if department:
        params["department"] = department
    return await call(client, "GET", f"{API}/audit", params=params)

async def list_deadletters(client: httpx.AsyncClient, every: bool = False) -> dict[str, Any]:
    """``GET /api/v1/deadletters`` (admin): ``{deadletters: [...]}``, newest first (the latest per
    document unless ``every``). Raises ``ApiError`` (403 not an admin key, 503 Kafka down)."""
    return await call(client, "GET", f"{API}/deadletters", params={"all": "true"} if every else {})


async def replay_deadletters(client: httpx.AsyncClient, document_ids: list[str] | None, every: bool,
                             stage: str | None) -> dict[str, Any]:
    """``POST /api/v1/deadletters/replay`` (admin): ``{documents: [{document_id, replayed, skipped}]}``."""
    body: dict[str, Any] = {"all": every, "document_ids": document_ids or None, "stage": stage}
    return await call(client, "POST", f"{API}/deadletters/replay", json=body)


async def start_reindex(client: httpx.AsyncClient, department: str | None, model: str | None) -> dict[str, Any]:
    """``POST /api/v1/reindex`` (admin): the new job's record. Raises ``ApiError`` (409 one runs)."""
    return await call(client, "POST", f"{API}/reindex", json={"department": department, "model": model})


async def reindex_status(client: httpx.AsyncClient) -> dict[str, Any]:
    """``GET /api/v1/reindex`` (admin): the latest job's record. Raises ``ApiError`` (404 none)."""
    return await call(client, "GET", f"{API}/reindex")


async def reconcile(client: httpx.AsyncClient) -> dict[str, Any]:
    """``POST /api/v1/reconcile`` (admin): ``{objects, vectors, tombstones, documents, took_s}``."""
    return await call(client, "POST", f"{API}/reconcile")
