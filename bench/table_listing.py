"""Cost of gathering a document's page results (not a test): MinIO calls the table stage and
the splitter make for one N-page PDF (default 100), counted on an in-memory object store. Kafka is FastStream's
in-memory ``TestKafkaBroker``; the pages are scanned and the vision path is off, so each page's
work is tiny and only the store traffic is measured.

Prints list calls, keys listed, gets and puts. The gatherer lists the page results once per
document (once more after a restart); before the table stage had its own gatherer, the
splitter listed them on each of the N page events and the page workers listed them again for
progress: 2·N list calls, about N² keys listed.

Run: ``.cache/venv/bin/python bench/table_listing.py [N]``. Takes a few seconds.
"""
from __future__ import annotations

import asyncio
import sys
from collections import Counter

import _common  # noqa: F401  (repo on sys.path)

from faststream.kafka import TestKafkaBroker

from services.splitter import main as splitter
from services.tables import main as tables
from services.tables.gather import GatherState
from services.tables.handle import ParsedPages
from services.tables.plumber_pool import PlumberPool
from shared import storage, topics
from shared.events import DocumentParsed
from shared.models import PageText, ParsedDocument
from shared.settings import Settings
from shared.storage import ObjectStore


class MemoryStore(ObjectStore):
    """``ObjectStore`` on a dict, counting calls by kind (``list``, ``keys_listed``, ``get``,
    ``put``, ``exists``)."""

    def __init__(self) -> None:  # no MinIO client
        self.objects: dict[str, bytes] = {}
        self.calls: Counter[str] = Counter()

    def put_bytes(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        self.calls["put"] += 1
        self.objects[key] = bytes(data)

    def get_bytes(self, key: str) -> bytes:
        self.calls["get"] += 1
        try:
            return self.objects[key]
        except KeyError:
            raise KeyError(key) from None

    def exists(self, key: str) -> bool:
        self.calls["exists"] += 1
        return key in self.objects

    def list_keys(self, prefix: str, recursive: bool = True):
        self.calls["list"] += 1
        keys = sorted(k for k in self.objects if k.startswith(prefix))
        self.calls["keys_listed"] += len(keys)
        return iter(keys)


def parsed_document(store: MemoryStore, n_pages: int) -> DocumentParsed:
    """A stored N-page PDF document (manifest, page texts), every page scanned."""
    doc_id = "0" * 32
    store.objects[storage.manifest_key(doc_id)] = b"{}"
    pages = ParsedDocument(document_id=doc_id, filename="long.pdf", file_type="pdf", page_count=n_pages,
                           pages=[PageText(page_number=n, text="", scanned=True) for n in range(1, n_pages + 1)])
    store.objects[storage.pages_key(doc_id)] = pages.model_dump_json().encode()
    return DocumentParsed(document_id=doc_id, filename="long.pdf", strategy="token", file_type="pdf",
                          page_count=n_pages, pages_key=storage.pages_key(doc_id),
                          page_pdf_prefix=storage.page_pdf_prefix(doc_id),
                          scanned_pages=list(range(1, n_pages + 1)))


async def run(n_pages: int) -> tuple[Counter[str], Counter[str]]:
    """Publish one parsed N-page PDF to the table stage, then its ``DocumentTablesDone`` to
    the splitter; returns the store's call counts (table stage, splitter)."""
    store = MemoryStore()
    settings = Settings(_env_file=None, vision_enabled=False)
    plumber = PlumberPool(settings.vision_plumber_timeout_s, settings.vision_plumber_memory_limit_bytes)
    tables.stage.provide(settings=settings, store=store, plumber=plumber, vision=None,
                         parsed_pages=ParsedPages(), gather=GatherState())
    splitter.stage.provide(settings=settings, store=store)
    try:
        parsed = parsed_document(store, n_pages)
        store.calls.clear()
        async with TestKafkaBroker(tables.stage.broker) as br:
            await br.publish(parsed, topics.PARSED)
            [call] = tables.stage.pubs.output.mock.call_args_list
        table_calls = store.calls.copy()
        store.calls.clear()
        async with TestKafkaBroker(splitter.stage.broker) as br:
            await br.publish(call.args[0], topics.TABLES)
            assert splitter.stage.pubs.output.mock.call_count == 1
    finally:
        plumber.close()
    return table_calls, store.calls


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    for stage, calls in zip(("table stage", "splitter"), asyncio.run(run(n)), strict=True):
        print(f"{n}-page PDF, {stage}: {calls['list']} list calls ({calls['keys_listed']} keys listed), "
              f"{calls['get']} gets, {calls['put']} puts, {calls['exists']} exists checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
