"""Wiring shared by the FastStream worker services: an ASGI app around the broker that serves
``/metrics`` (Prometheus) and ``/healthz``, run with uvicorn (``python -m services.<name>``)."""
from __future__ import annotations

import logging
import os

from faststream.asgi import AsgiFastStream, AsgiResponse, get
from faststream.kafka import KafkaBroker

from shared.metrics import metrics_app


def make_app(broker: KafkaBroker, *, lifespan=None) -> AsgiFastStream:
    """ASGI FastStream app for a worker: the broker plus ``/metrics`` and ``/healthz``."""

    @get
    async def healthz(scope) -> AsgiResponse:
        ok = await broker.ping(timeout=2.0)
        return AsgiResponse(b'{"status":"ok"}' if ok else b'{"status":"kafka unreachable"}',
                            status_code=200 if ok else 503, headers={"content-type": "application/json"})

    return AsgiFastStream(broker, asgi_routes=[("/metrics", metrics_app()), ("/healthz", healthz)],
                          lifespan=lifespan)


def run(app_path: str, default_port: int) -> None:
    """Run ``app_path`` (``module:attr``) with uvicorn on ``$PORT`` (or ``default_port``)."""
    import uvicorn

    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    uvicorn.run(app_path, host=os.environ.get("HOST", "127.0.0.1"),
                port=int(os.environ.get("PORT", default_port)), log_level="warning")
