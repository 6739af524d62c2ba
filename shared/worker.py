"""Wiring shared by the FastStream worker services: an ASGI app around the broker that serves
``/metrics`` (Prometheus) and ``/healthz``, run with uvicorn (``python -m services.<name>``),
logging JSON lines (``shared.logs``)."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from faststream.asgi import AsgiFastStream, AsgiResponse, get
from faststream.kafka import KafkaBroker

from shared import logs
from shared.metrics import metrics_app
from shared.settings import get_settings


def make_app(broker: KafkaBroker, *,
             lifespan: Callable[[], AbstractAsyncContextManager[None]] | None = None) -> AsgiFastStream:
    """ASGI FastStream app for a worker: the broker plus ``/metrics`` and ``/healthz``."""

    @get
    async def healthz(scope: Any) -> AsgiResponse:  # Any: FastStream's dependency injection reads the annotation
        ok = await broker.ping(timeout=get_settings().health_timeout_s)
        return AsgiResponse(b'{"status":"ok"}' if ok else b'{"status":"kafka unreachable"}',
                            status_code=200 if ok else 503, headers={"content-type": "application/json"})

    return AsgiFastStream(broker, asgi_routes=[("/metrics", metrics_app()), ("/healthz", healthz)],
                          lifespan=lifespan)


def run(app_path: str, default_port: int) -> None:
    """Run ``app_path`` (``services.<name>.main:app``) with uvicorn on ``settings.port`` (env
    ``PORT``, else ``default_port``) and ``settings.host``, logging JSON lines at
    ``settings.log_level`` as service ``<name>`` (uvicorn's own lines included)."""
    import uvicorn

    s = get_settings()
    logs.configure(service_name(app_path), s.log_level)
    uvicorn.run(app_path, host=s.host, port=s.port or default_port, log_level=s.log_level.lower(), log_config=None)


def service_name(app_path: str) -> str:
    """``services.parser.main:app`` → ``parser`` (any other path: its module)."""
    module = app_path.split(":", 1)[0]
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "services" else module
