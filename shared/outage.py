"""Which errors are outages of a dependency, and which one.

A stage treats two kinds of failure differently (``shared.stage.Stage.run``): a ``DocumentError``
is bad input and fails the document at once; an outage — MinIO, Chroma, the embeddings endpoint
or Kafka refusing connections, timing out or answering 5xx — is not the document's fault, so the
stage waits for the dependency and tries again without using up an attempt. Everything else is
a bug and gets the bounded attempts.

The clients raise their own libraries' errors; :func:`dependency_of` reads them (and their
causes) and names the dependency. Code that knows better raises :class:`shared.errors.DependencyError`.
"""
from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

import httpx
import openai
import urllib3.exceptions
from aiokafka import errors as kafka_errors
from minio.error import S3Error, ServerError

from shared.errors import DependencyError
from shared.settings import Settings

MINIO, CHROMA, EMBEDDINGS, KAFKA = "MinIO", "Chroma", "the embeddings endpoint", "Kafka"
_MINIO_BUSY = {"SlowDown", "ServiceUnavailable", "InternalError", "XMinioServerNotInitialized",
               "XMinioReadQuorum", "XMinioWriteQuorum"}
_KAFKA = (kafka_errors.KafkaConnectionError, kafka_errors.KafkaTimeoutError, kafka_errors.NoBrokersAvailable,
          kafka_errors.NodeNotReadyError, kafka_errors.RequestTimedOutError, kafka_errors.NotEnoughReplicasError,
          kafka_errors.LeaderNotAvailableError, kafka_errors.NotLeaderForPartitionError,
          kafka_errors.KafkaUnavailableError)


def _http_dependency(url: httpx.URL | str | None, settings: Settings) -> str:
    """The dependency an HTTP request went to, by host and port."""
    if url is None:
        return "a service"
    parts = urlsplit(str(url))
    where = (parts.hostname or "", parts.port)
    if where[1] == settings.chroma_port:
        return CHROMA
    for base in (settings.embeddings_base_url, getattr(settings, "query_embeddings_base_url", "") or ""):
        b = urlsplit(base)
        if base and (b.hostname, b.port) == where:
            return EMBEDDINGS
    return f"the service at {parts.hostname}:{parts.port}"


def _one(error: BaseException, settings: Settings) -> str | None:
    if isinstance(error, DependencyError):
        return error.dependency
    if isinstance(error, (urllib3.exceptions.HTTPError, ServerError)):
        return MINIO
    if isinstance(error, S3Error) and error.code in _MINIO_BUSY:
        return MINIO
    if isinstance(error, ValueError) and "connect to a Chroma server" in str(error):
        return CHROMA
    if isinstance(error, (openai.APIConnectionError, openai.APITimeoutError)):
        return EMBEDDINGS
    if isinstance(error, openai.APIStatusError) and (error.status_code >= 500 or error.status_code == 429):
        return EMBEDDINGS
    if isinstance(error, httpx.TransportError):
        return _http_dependency(error.request.url if error._request is not None else None, settings)
    if isinstance(error, httpx.HTTPStatusError) and error.response.status_code >= 500:
        return _http_dependency(error.request.url, settings)
    if isinstance(error, _KAFKA):
        return KAFKA
    if isinstance(error, (ConnectionError, asyncio.TimeoutError)):
        return "a service"
    return None


def dependency_of(error: BaseException, settings: Settings) -> str | None:
    """The dependency whose outage caused ``error`` (its causes are followed), or ``None`` when
    ``error`` is not an outage."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _one(current, settings)
        if found:
            return found
        current = current.__cause__ or current.__context__
    return None


class Outages:
    """The outages one stage is waiting out: when each dependency was first found down, and a
    gate (``clear``, an ``asyncio.Event``) that is set while nothing is down. The stage's work
    queues start no new work while the gate is closed; the piece of work that found the outage
    keeps probing, and the first success anywhere reopens it. The outage's age is the stage's,
    not one document's: when it reaches the limit, every waiting document is dead-lettered at
    once instead of each waiting the whole limit in turn."""

    def __init__(self) -> None:
        self.since: dict[str, float] = {}
        self.clear = asyncio.Event()
        self.clear.set()

    def down(self, dependency: str) -> float:
        """Record that ``dependency`` is down; returns how long (seconds) it has been."""
        now = time.monotonic()
        first = self.since.setdefault(dependency, now)
        self.clear.clear()
        return now - first

    def gave_up(self) -> None:
        """An event was dead-lettered past the limit: reopen the gate, keeping when the outage
        began. Otherwise nothing would ever probe again (the work that was probing is gone) and
        the stage would hold every later event, a replay's included, for good. The next piece
        of work probes: it succeeds once the dependency is back (:meth:`recovered`), or, still
        down, is past the limit at once and dead-lettered too."""
        self.clear.set()

    def recovered(self) -> None:
        """Work succeeded: nothing is down any more; reopen the gate."""
        if self.since:
            self.since.clear()
        self.clear.set()

    def waiting_for(self) -> list[str]:
        """The dependencies currently down."""
        return sorted(self.since)
