"""Run a function in a child process with a wall-clock timeout and a memory limit.

Untrusted PDFs/DOCX can make parsing libraries hang, recurse or eat memory (self-referencing
xref tables or forms, decompression bombs). The child is a fresh interpreter (``subprocess``,
not ``multiprocessing``: it does not re-import the caller's ``__main__`` and is safe to start
from a threaded asyncio service). It sets ``RLIMIT_AS`` (address space) before importing anything, reads the pickled
``(func, args)`` from stdin and writes one pickled result message to its original stdout
(library output on stdout is redirected to stderr so it cannot corrupt the result). The
parent waits at most ``timeout_s`` seconds and kills the child otherwise. Pickle protocol 5
copies ``bytes`` (page PDFs) without re-encoding, so transfer costs about one memcpy.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from shared.errors import DocumentError

T = TypeVar("T")
_CANCEL_POLL_S = 0.25  # how often a cancellable run looks at its cancel event


TimeLimit = Callable[[], tuple[float, str]]
"""Asked while the child runs: ``(seconds allowed from the child's start, a note for the reason)``."""


class Cancelled(Exception):
    """``run_isolated`` was cancelled (its ``cancel`` event set); the child was killed."""

_REPO_ROOT = str(Path(__file__).resolve().parents[2])
_STDERR_TAIL_BYTES = 64 * 1024
# The repo root comes first on the child's path (argv[2]), so it imports this checkout's code.
_CHILD_CODE = ("import sys; sys.path.insert(0, sys.argv[2]); "
               "from services.parser.isolation import child_main; child_main(int(sys.argv[1]))")


def child_main(memory_limit_bytes: int) -> None:
    """Entry point of the child interpreter (not for direct use).

    Args:
        memory_limit_bytes: RLIMIT_AS to apply, bytes (0: none).
    """
    if memory_limit_bytes:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
    out_fd = os.dup(1)
    os.dup2(2, 1)  # anything printed by libraries goes to stderr
    memory_msg = pickle.dumps(("memory",), protocol=pickle.HIGHEST_PROTOCOL)
    with os.fdopen(out_fd, "wb") as out:
        try:
            try:
                func, args = pickle.loads(sys.stdin.buffer.read())
                message: tuple[Any, ...] = ("ok", func(*args))
            except DocumentError as exc:
                message = ("document_error", exc.reason, exc.code)
            except MemoryError:
                message = ("memory",)
            except RecursionError:
                message = ("document_error", "The file is too deeply nested to read; it is probably corrupt.",
                           "corrupt")
            except Exception as exc:  # noqa: BLE001 - reported to the parent as a transient error
                message = ("error", f"{type(exc).__name__}: {exc}")
            payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
            del message
            out.write(payload)
        except MemoryError:
            out.write(memory_msg)


def _limit_text(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.2f} s"


def run_isolated(
    func: Callable[..., T],
    args: tuple[Any, ...],
    timeout_s: float,
    memory_limit_bytes: int | None,
    cancel: threading.Event | None = None,
    time_limit: TimeLimit | None = None,
) -> T:
    """Run ``func(*args)`` in a child process and return its result.

    Args:
        func: a module-level (picklable) function; ``args`` must be picklable too.
        timeout_s: wall-clock limit in seconds, counted from the child's start.
        memory_limit_bytes: ``RLIMIT_AS`` for the child in bytes (None/0: no limit).
        cancel: when set while the child runs (looked at every 0.25 s), the child is killed
            and ``Cancelled`` raised (the document was deleted meanwhile).
        time_limit: when given, asked every 0.25 s for the current limit, ``(seconds, note)``,
            which replaces ``timeout_s`` (the parser's grows once the child has counted the
            pages); ``note`` (e.g. ``"the limit for its 1200 pages"``) goes into the reason.

    Raises:
        DocumentError: re-raised from the child; code ``timeout`` when the limit is hit (the
            child is killed); ``too_large`` when the child ran out of memory; ``crash`` when
            it died without a result.
        RuntimeError: the child raised any other exception (message included).
        Cancelled: ``cancel`` was set.
    """
    # stderr goes to a temporary file, not a pipe: a library that logs without end cannot
    # fill the parent's memory; only its tail is read back (to recognise MemoryError). The
    # request is read from a temporary file too: nothing is left to send when a cancellable run
    # waits for the child in short slices (a retried ``communicate`` does not resume sending).
    with tempfile.TemporaryFile() as err_file, tempfile.TemporaryFile() as in_file:
        in_file.write(pickle.dumps((func, args), protocol=pickle.HIGHEST_PROTOCOL))
        in_file.flush()
        in_file.seek(0)
        proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD_CODE, str(int(memory_limit_bytes or 0)), _REPO_ROOT],
            stdin=in_file,
            stdout=subprocess.PIPE,
            stderr=err_file,
        )
        out = _communicate(proc, timeout_s, cancel, time_limit)
        err_file.seek(max(0, err_file.seek(0, os.SEEK_END) - _STDERR_TAIL_BYTES))
        err = err_file.read()
    try:
        message = pickle.loads(out)
    except Exception:  # noqa: BLE001 - no (complete) result: the child died
        if b"MemoryError" in err:
            message = ("memory",)
        else:
            raise DocumentError(
                f"Reading the file crashed the reader (exit code {proc.returncode}); "
                "the file is probably corrupt.",
                code="crash",
            ) from None
    kind = message[0]
    if kind == "ok":
        result: T = message[1]
        return result
    if kind == "document_error":
        raise DocumentError(message[1], code=message[2])
    if kind == "memory":
        limit_mb = (memory_limit_bytes or 0) / 2**20
        raise DocumentError(
            f"Reading the file needed more than the {limit_mb:.0f} MB memory limit; the file is "
            "probably corrupt or far too large.",
            code="too_large",
        )
    raise RuntimeError(f"parser child failed: {message[1]}")


def _communicate(proc: subprocess.Popen[bytes], timeout_s: float, cancel: threading.Event | None = None,
                 time_limit: TimeLimit | None = None) -> bytes:
    """Return the child's stdout; kill it after ``timeout_s`` seconds (or the limit
    ``time_limit`` gives at that moment), or as soon as ``cancel`` is set (``Cancelled``).
    ``communicate`` may be called again after its own timeout without losing output, so a
    cancellable or growing run waits in short slices."""
    start = time.monotonic()
    limit, note = timeout_s, ""
    try:
        out: bytes
        if cancel is None and time_limit is None:
            out, _ = proc.communicate(timeout=timeout_s)
            return out
        while True:
            if time_limit is not None:
                limit, note = time_limit()
            left = start + limit - time.monotonic()
            try:
                out, _ = proc.communicate(timeout=max(0.0, min(_CANCEL_POLL_S, left)))
                return out
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.is_set():
                    raise Cancelled from None
                if time_limit is not None:
                    limit, note = time_limit()
                if time.monotonic() >= start + limit:
                    raise
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        which = f" ({note})" if note else ""
        raise DocumentError(
            f"Reading the file took longer than {_limit_text(limit)}{which}; the file is probably "
            "corrupt or far too complex. Try saving it again (e.g. print to PDF) and re-upload.",
            code="timeout",
        ) from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
