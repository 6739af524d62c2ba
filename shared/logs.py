"""Structured logs: every service writes one JSON object per line (python-json-logger), so one
document's journey through the stages is found with ``grep <document_id> var/log/*.log``.

Every line has the keys ``ts`` (ISO-8601 UTC, milliseconds), ``level``, ``logger``, ``message``,
``service``, and ``document_id``, ``department``, ``stage`` — the document the line concerns,
``null`` when there is none (a start-up line, a scrape) — plus whatever a library adds as record
extras (FastStream: ``topic``, ``group_id``, ``message_id``) and ``exc_info`` (the traceback, in
the one line) on errors.

The document comes from a context variable, set

* for every consumed Kafka message with a ``document_id``, before FastStream logs ``Received``
  (``shared.kafka.LogContextMiddleware``), and kept by the work it starts (``shared.workqueue``
  runs each record's job in the context of its own message);
* around each stage handler (``shared.stage.Stage.subscriber``): ``stage`` is the progress stage
  (``parsing``, ``tables``, ``splitting``, ``embedding``);
* by the gateway around an upload (``stage`` ``uploaded``) and a deletion (``deleted``).

A line may also name its document explicitly: ``log.info(..., extra={"document_id": ...})``.
:func:`configure` is called once by each service's entry point (``shared.worker.run``, the
gateway's ``__main__``, the e5 server) and routes uvicorn's error and access logs and FastStream's
own logger through the same JSON handler.
"""
from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from contextvars import ContextVar, Token
from dataclasses import dataclass
from datetime import UTC, datetime

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

DOCUMENT_FIELDS = ("document_id", "department", "stage")
"""The per-document keys every line carries (``null`` when no document is in context)."""

PROBE_PATHS = ("/metrics", "/healthz")
"""Paths whose successful requests are not access-logged (Prometheus scrapes, health probes)."""


@dataclass(frozen=True)
class DocumentContext:
    """The document a log line concerns: its id, department and pipeline stage (any may be ``None``)."""

    document_id: str | None = None
    department: str | None = None
    stage: str | None = None


NO_DOCUMENT = DocumentContext()
_current: ContextVar[DocumentContext] = ContextVar("legco_log_document", default=NO_DOCUMENT)


def current() -> DocumentContext:
    """The document in context (``NO_DOCUMENT`` when none)."""
    return _current.get()


def bind(document_id: str | None, department: str | None = None,
         stage: str | None = None) -> Token[DocumentContext]:
    """Put a document in context until :func:`unbind` (or for the rest of the current task);
    returns the token :func:`unbind` takes."""
    return _current.set(DocumentContext(document_id, department, stage))


def unbind(token: Token[DocumentContext]) -> None:
    """Restore the context :func:`bind` replaced."""
    _current.reset(token)


@contextlib.contextmanager
def document(document_id: str | None, department: str | None = None,
             stage: str | None = None) -> Iterator[None]:
    """``with document(id, department, stage):`` — the lines logged inside concern that document."""
    token = bind(document_id, department, stage)
    try:
        yield
    finally:
        unbind(token)


class DocumentFilter(logging.Filter):
    """Adds the document in context to each record (``document_id``, ``department``, ``stage``),
    unless the record names them itself (``extra=``). Never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        ctx = _current.get()
        for name in DOCUMENT_FIELDS:
            if not hasattr(record, name):
                setattr(record, name, getattr(ctx, name))
        return True


class ProbeFilter(logging.Filter):
    """Drops uvicorn access lines of successful ``PROBE_PATHS`` requests (its access record's
    args: client, method, path, HTTP version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5:
            path, status = str(args[2]).split("?", 1)[0], args[4]
            return not (path in PROBE_PATHS and isinstance(status, int) and status < 400)
        return True


class Formatter(JsonFormatter):
    """One JSON object per record, keys in the order ``ts level logger message service
    document_id department stage`` then extras; non-ASCII kept (filenames, Chinese text)."""

    def __init__(self, service: str) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s %(document_id)s %(department)s %(stage)s",
                         rename_fields={"asctime": "ts", "levelname": "level", "name": "logger"},
                         static_fields={"service": service}, json_ensure_ascii=False,
                         reserved_attrs=[*RESERVED_ATTRS, "color_message"])  # uvicorn's ANSI copy of the message

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # logging's name
        """``record.created`` as ISO-8601 UTC with milliseconds."""
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


# loggers that libraries give handlers of their own (FastStream at import, uvicorn's dictConfig)
_OWN_HANDLERS = ("faststream", "uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def configure(service: str, level: str | int = "INFO") -> logging.Handler:
    """Log JSON lines to standard error from every logger, at ``level``, for ``service``.

    Replaces the root logger's handlers with one JSON handler (:class:`Formatter`,
    :class:`DocumentFilter`); the loggers that libraries configure themselves (``faststream``,
    ``uvicorn.*``) lose their handlers and propagate to it; Python warnings are logged too.
    Run uvicorn with ``log_config=None`` after this, so it keeps the configuration. Returns the
    handler (tests read what it wrote)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(Formatter(service))
    handler.addFilter(DocumentFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in _OWN_HANDLERS:
        lg = logging.getLogger(name)
        lg.handlers.clear()
        lg.propagate = True
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, ProbeFilter) for f in access.filters):
        access.addFilter(ProbeFilter())
    logging.captureWarnings(True)
    return handler
