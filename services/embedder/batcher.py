"""One stream of embeddings requests for every document the embedder is working on, shared fairly.

The embedder works on several documents at once (its subscriber's ``WorkQueue`` concurrency).
Each of them hands its texts to the ``FairBatcher`` a slice at a time; the batcher forms each
request to the embeddings endpoint from the waiting slices, up to ``max_texts`` texts and
``max_tokens`` e5 tokens (a longer text goes alone), one text at a time from the department
that has been served the fewest tokens lately (least attained service: the tokens each
department was given, halved every ``half_life_s`` seconds; ties in turn), the department's
oldest slice first. So a department that arrives while another's bulk upload is being embedded
gets the next requests to itself until it has caught up, instead of waiting behind the bulk or
getting every other text; two departments uploading alike share alike; and a department served
a lot is not starved for long, since what it was given fades. The endpoint always has a full
request when there is work.

``in_flight`` requests are outstanding at once (``EMBEDDINGS_IN_FLIGHT``, 2): the local e5
server computes one request at a time, and with a second one already waiting there it goes from
one to the next without waiting for an answer to travel back and the next request to arrive
(with one, it idled for that hop after every request); a short queue there still means an
abandoned request costs little. The requests are formed when they are sent, so the second
request is the next in fair order at that moment. A caller that is cancelled takes its texts
not yet sent out of the queue.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from shared.settings import Settings

log = logging.getLogger("legco.embedder.batcher")



class EmbedFn(Protocol):
    """Embeds a list of passages, one vector per text in order; ``tokens`` are their e5 token
    counts when known (``EmbeddingClient.embed_passages``)."""

    async def __call__(self, texts: list[str], tokens: Sequence[int] | None = None) -> list[list[float]]: ...


@dataclass
class _Slice:
    """One caller's texts, the vectors computed so far and the future it waits on."""

    texts: list[str]
    tokens: list[int]
    done: asyncio.Future[list[list[float]]]
    vectors: list[list[float] | None] = field(default_factory=list)
    next: int = 0          # next text to put into a request
    filled: int = 0        # vectors received

    def __post_init__(self) -> None:
        self.vectors = [None] * len(self.texts)


class FairBatcher:
    """Fair, shared request batching in front of an embeddings endpoint (see the module doc).

    Args:
        embed: the endpoint call (one request per call, ``len(texts) <= max_texts``).
        max_texts: texts per request (``EMBEDDINGS_BATCH_SIZE``).
        in_flight: requests outstanding at once.
        max_tokens: e5 tokens per request (``EMBEDDINGS_BATCH_TOKENS``; ``None``: no bound).
        half_life_s: seconds after which the tokens a department was served count half.
    """

    def __init__(self, embed: EmbedFn, max_texts: int, in_flight: int = 1, max_tokens: int | None = None,
                 half_life_s: float = 60.0) -> None:
        self._embed = embed
        self.max_texts = max(1, max_texts)
        self.max_tokens = max_tokens
        self.half_life_s = max(1e-3, half_life_s)
        self._served: dict[Hashable, tuple[float, float]] = {}  # key -> (tokens, at time.monotonic())
        self._sem = asyncio.Semaphore(max(1, in_flight))
        self._queues: dict[Hashable, deque[_Slice]] = {}
        self._turn: deque[Hashable] = deque()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self.requests = 0

    @classmethod
    def from_settings(cls, embed: EmbedFn, settings: Settings) -> FairBatcher:
        """The request stream the ``embeddings_*`` settings describe: ``embeddings_batch_size``
        texts and ``embeddings_batch_tokens`` e5 tokens per request, ``embeddings_in_flight``
        requests outstanding."""
        return cls(embed, settings.embeddings_batch_size, in_flight=settings.embeddings_in_flight,
                   max_tokens=settings.embeddings_batch_tokens)

    async def embed_passages(self, texts: list[str], tokens: Sequence[int] | None = None, *,
                             key: Hashable) -> list[list[float]]:
        """Vectors of ``texts`` (in order), computed in requests shared with other callers;
        ``key`` is the caller's fair-share key (the department), ``tokens`` the texts' e5 token
        counts (needed for ``max_tokens``; without them a text counts as one token).

        Raises:
            whatever the endpoint call raised for a request holding one of these texts.
            asyncio.CancelledError: the caller was cancelled (its texts not yet in a request
                leave the queue; a request already sent is answered and its vectors dropped).
        """
        if not texts:
            return []
        counts = list(tokens) if tokens is not None else [1] * len(texts)
        sl = _Slice(list(texts), counts, asyncio.get_running_loop().create_future())
        if key not in self._queues:
            self._queues[key] = deque()
            self._turn.append(key)
        self._queues[key].append(sl)
        self._ensure_loop()
        self._wake.set()
        try:
            return await sl.done
        except asyncio.CancelledError:
            self._drop({id(sl)})  # its texts not sent yet are not sent
            raise

    def _ensure_loop(self) -> None:
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.get_running_loop().create_task(self._run(), name="fair-batcher")

    def attained(self, key: Hashable, now: float | None = None) -> float:
        """Tokens served to ``key`` lately (each halved every ``half_life_s`` seconds since)."""
        now = time.monotonic() if now is None else now
        tokens, at = self._served.get(key, (0.0, now))
        return float(tokens * 0.5 ** ((now - at) / self.half_life_s))

    def _charge(self, key: Hashable, tokens: int, now: float) -> None:
        self._served[key] = (self.attained(key, now) + tokens, now)

    def _next_request(self) -> list[tuple[_Slice, int]]:
        """(slice, text index) pairs of the next request: one text at a time from the waiting
        department served the fewest tokens lately (ties: in turn), its oldest slice with texts
        left first, until the request is full (texts or tokens: the request ends before the
        first chosen text that does not fit)."""
        picks: list[tuple[_Slice, int]] = []
        total = 0
        now = time.monotonic()
        while len(picks) < self.max_texts and self._turn:
            key = min(self._turn, key=lambda k: self.attained(k, now))  # the first of equals in turn
            sl = self._queues[key][0]
            n = sl.tokens[sl.next]
            if picks and self.max_tokens is not None and total + n > self.max_tokens:
                break
            self._turn.remove(key)
            self._turn.append(key)
            self._charge(key, n, now)
            q = self._queues[key]
            total += n
            picks.append((sl, sl.next))
            sl.next += 1
            if sl.next >= len(sl.texts):  # every text of this slice is in a request now
                q.popleft()
                if not q:
                    del self._queues[key]
                    self._turn.remove(key)
        for key in [k for k in self._served if k not in self._queues and self.attained(k, now) < 1.0]:
            del self._served[key]  # long idle: forgotten
        return picks

    async def _run(self) -> None:
        while True:
            if not self._turn:
                self._wake.clear()
                await self._wake.wait()
                continue
            await self._sem.acquire()
            picks = self._next_request()
            if not picks:
                self._sem.release()
                continue
            task = asyncio.get_running_loop().create_task(self._send(picks))
            task.add_done_callback(lambda _t: self._sem.release())

    async def _send(self, picks: list[tuple[_Slice, int]]) -> None:
        self.requests += 1
        try:
            vectors = await self._embed([sl.texts[i] for sl, i in picks], [sl.tokens[i] for sl, i in picks])
        except Exception as e:  # noqa: BLE001 - every slice with a text in this request fails with the error
            failed = {id(s): s for s, _ in picks}
            for sl in failed.values():
                if not sl.done.done():
                    sl.done.set_exception(e)
            self._drop(set(failed))
            return
        for (sl, i), vec in zip(picks, vectors, strict=True):
            sl.vectors[i] = vec
            sl.filled += 1
            if sl.filled == len(sl.texts) and not sl.done.done():
                sl.done.set_result([v for v in sl.vectors if v is not None])

    def _drop(self, slice_ids: set[int]) -> None:
        """Take failed slices out of the queues (their texts left are not sent)."""
        for key in list(self._queues):
            q = deque(sl for sl in self._queues[key] if id(sl) not in slice_ids)
            if q:
                self._queues[key] = q
            else:
                del self._queues[key]
                self._turn.remove(key)

    async def close(self) -> None:
        """Stop the request loop (waiting callers are not answered)."""
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
