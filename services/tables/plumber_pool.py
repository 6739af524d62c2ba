"""pdfplumber in a separate worker process, with a time limit per page and a memory limit.

pdfplumber (pdfminer.six underneath) runs on untrusted page PDFs; a page with a pathological
content stream (hundreds of thousands of vector edges, a runaway form XObject) can take minutes
or gigabytes. The parser already reads whole files in a child process
(``services.parser.isolation``); here the per-page work is small and frequent, so a fresh
interpreter per page (~0.4 s of imports) would cost more than the work. Instead one long-lived
child process (``pebble.ProcessPool``, started with ``spawn`` so it never forks the threaded
asyncio worker) runs the pages one at a time: a page over ``timeout_s`` seconds is abandoned and
the child killed and replaced; the child's address space is capped with ``RLIMIT_AS``
(``MemoryError`` in the child). Either way the page gets no pdfplumber tables and a note,
and the document goes on (``page_result.build_page_result``).
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
from collections.abc import Callable
from typing import Any, TypeVar

import pebble

from services.tables.models import PageTable
from services.tables.plumber import extract_page_tables
from shared import logs

T = TypeVar("T")


class PageTimeout(Exception):
    """A page took longer than the time limit (its child process was killed)."""


class WorkerDied(Exception):
    """The child process died mid-page (killed by the OS, e.g. out of memory)."""


def _init_child(limit_bytes: int) -> None:
    """Child initialiser: log JSON lines like the worker (warnings and errors only: the page's
    document is not known here, so they name none), then cap the address space (``RLIMIT_AS``,
    bytes; 0 = no cap)."""
    logs.configure("tables", "WARNING")
    if limit_bytes:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))


class PlumberPool:
    """One child process running pdfplumber for this worker.

    Args:
        timeout_s: wall-clock limit per page, seconds (counted from when the child starts it).
        memory_limit_bytes: ``RLIMIT_AS`` of the child, bytes (0: none).
        max_tasks: pages per child before it is replaced (bounds slow leaks; 0: never).
    """

    def __init__(self, timeout_s: float, memory_limit_bytes: int, max_tasks: int = 500) -> None:
        self.timeout_s = timeout_s
        self._pool = pebble.ProcessPool(max_workers=1, max_tasks=max_tasks, initializer=_init_child,
                                        initargs=(int(memory_limit_bytes),),
                                        context=multiprocessing.get_context("spawn"))

    def call(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` in the child (both picklable), within the time limit. Blocks.

        Raises:
            PageTimeout: over ``timeout_s``; WorkerDied: the child died; whatever ``func``
            raised (``MemoryError`` past the memory limit included).
        """
        future = self._pool.submit(func, self.timeout_s, *args)
        try:
            return future.result()
        except concurrent.futures.TimeoutError:
            raise PageTimeout(f"pdfplumber took longer than {self.timeout_s:g} s on the page") from None
        except pebble.ProcessExpired as e:
            raise WorkerDied(f"pdfplumber's process died on the page (exit code {e.exitcode}); "
                             "the page is probably too complex") from None

    def extract(self, page_pdf: bytes, pdf_page: int, page_number: int) -> list[PageTable]:
        """``plumber.extract_page_tables`` in the child (same arguments and result)."""
        return self.call(extract_page_tables, page_pdf, pdf_page, page_number)

    def close(self) -> None:
        """Stop the child process (pending pages are cancelled)."""
        self._pool.stop()
        self._pool.join()
