"""Structured logs (``shared.logs``): one JSON object per line with ``ts``, ``level``, ``logger``,
``message`` and the document in context (``document_id``, ``department``, ``stage``, ``null``
without one), set by the Kafka middleware, kept by a work queue's jobs and by a stage handler."""
from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import ConsumerRecord
from faststream.kafka import TestKafkaBroker

from shared import logs
from shared.events import DocumentUploaded
from shared.kafka import LogContextMiddleware
from shared.stage import Stage
from shared.workqueue import Job, WorkQueue

KEYS = {"ts", "level", "logger", "message", "service", "document_id", "department", "stage"}


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """The JSON handler of ``logs.configure`` writing to a buffer; the root logger restored after."""
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    handler = logs.configure("test")
    out = io.StringIO()
    handler.setStream(out)  # type: ignore[attr-defined]
    yield out
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in saved:
        root.addHandler(h)
    root.setLevel(level)


def parsed(out: io.StringIO) -> list[dict[str, Any]]:
    text = out.getvalue()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]  # every line is one JSON object


def test_every_line_is_json_with_the_document_keys(lines: io.StringIO) -> None:
    log = logging.getLogger("legco.test")
    log.info("outside %d", 1)
    with logs.document("d1", "dept-a", "parsing"):
        log.warning("inside 文件")
        try:
            raise ValueError("bad\nvalue")
        except ValueError:
            log.exception("failed")
    log.info("explicit", extra={"document_id": "d2"})
    out = parsed(lines)
    assert len(out) == 4 and all(set(x) >= KEYS for x in out)
    assert out[0]["message"] == "outside 1" and out[0]["document_id"] is None and out[0]["stage"] is None
    assert (out[1]["document_id"], out[1]["department"], out[1]["stage"]) == ("d1", "dept-a", "parsing")
    assert out[1]["message"] == "inside 文件" and out[1]["level"] == "WARNING" and out[1]["logger"] == "legco.test"
    assert out[2]["document_id"] == "d1" and "ValueError: bad" in out[2]["exc_info"]
    assert out[3]["document_id"] == "d2" and out[3]["department"] is None
    assert out[0]["ts"].endswith("+00:00") and "T" in out[0]["ts"] and out[0]["service"] == "test"


def test_uvicorn_and_faststream_lines_are_json_and_probes_are_not_logged(lines: io.StringIO) -> None:
    access = logging.getLogger("uvicorn.access")
    access.setLevel(logging.INFO)
    fmt = '%s - "%s %s HTTP/%s" %d'
    access.info(fmt, "127.0.0.1:5", "GET", "/metrics", "1.1", 200)
    access.info(fmt, "127.0.0.1:5", "GET", "/healthz", "1.1", 503)
    access.info(fmt, "127.0.0.1:5", "POST", "/api/v1/ingest", "1.1", 202)
    logging.getLogger("uvicorn.error").warning("Started server process [%d]", 1)
    logging.getLogger("faststream").warning("FastStream app starting...")
    out = parsed(lines)
    assert [x["logger"] for x in out] == ["uvicorn.access", "uvicorn.access", "uvicorn.error", "faststream"]
    assert "/healthz" in out[0]["message"] and "/api/v1/ingest" in out[1]["message"]
    assert all(set(x) >= KEYS for x in out)


async def test_the_middleware_names_the_consumed_document() -> None:
    body = DocumentUploaded(document_id="d9", department="dept-b", filename="a.txt", strategy="token",
                            object_key="k", size_bytes=1, sha256="0", upload_date="now").model_dump_json()
    record = ConsumerRecord("t", 0, 7, 0, 0, b"d9", body.encode(), None, 2, len(body), [])
    await LogContextMiddleware("parsing")(record, context=None).on_receive()
    assert logs.current() == logs.DocumentContext("d9", "dept-b", "parsing")
    progress = dataclasses.replace(record, value=b'{"document_id": "d9", "department": "x", "stage": "embedding"}')
    await LogContextMiddleware()(progress, context=None).on_receive()
    assert logs.current().stage == "embedding"  # a broker without a stage: the event's own
    await LogContextMiddleware("parsing")(dataclasses.replace(record, value=b"not json"), context=None).on_receive()
    assert logs.current() == logs.NO_DOCUMENT


async def test_a_queued_job_logs_its_own_document(lines: io.StringIO) -> None:
    """The dispatch loop starts in the first job's context; each job still runs in its own."""
    q = WorkQueue("t", concurrency=2)
    log = logging.getLogger("legco.test")

    async def work() -> None:
        await asyncio.sleep(0)
        log.info("working")

    for i, doc in enumerate(("first", "second")):
        with logs.document(doc, "dept", "tables"):
            await q.submit(Job(("t", 0), i, "dept", work))
    await q.drain()
    await q.close()
    assert sorted(x["document_id"] for x in parsed(lines)) == ["first", "second"]


async def test_a_stage_handler_logs_with_its_document_department_and_stage(lines: io.StringIO) -> None:
    stage = Stage("logtest", progress_stage="splitting")
    seen: list[logs.DocumentContext] = []

    @stage.subscriber("legco.test.v1")
    async def handle(event: DocumentUploaded) -> None:
        seen.append(logs.current())
        logging.getLogger("legco.test").info("handled")

    event = DocumentUploaded(document_id="d5", department="dept-c", filename="a.txt", strategy="token",
                             object_key="k", size_bytes=1, sha256="0", upload_date="now")
    async with TestKafkaBroker(stage.broker) as br:
        await br.publish(event, topic="legco.test.v1")
    assert seen == [logs.DocumentContext("d5", "dept-c", "splitting")]
    handled = [x for x in parsed(lines) if x["message"] == "handled"]
    assert [(x["document_id"], x["department"], x["stage"]) for x in handled] == [("d5", "dept-c", "splitting")]
