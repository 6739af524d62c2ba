"""A fast start of the query service: answer with dense search within seconds, while the keyword
side (the CC-CEDICT lexicon and the BM25 index of every chunk, the slow part of a start) is built
in the background.

Steps (the catch-up of ``follow.py``, split so the slow ones do not hold the HTTP port):

1. record the end offsets of the index-event topics;
2. load the language means from ``_stats`` (one record per document and language, fast) — the
   lifespan waits for this up to ``query_start_wait_s`` so the first answers are already
   de-biased;
3. load the lexicon and scan every chunk into the keyword index;
4. mark the keyword side ready (queries use it from then on) and start following the events
   from the offsets of step 1.

Until step 4 the route passes no keyword index to retrieval (dense and question-line search
only) and ``/healthz`` says ``keyword_index.ready: false``; step 4 drops the answers cached
until then (``answer_cache``: one computed while the flag turned is refused too).
"""
from __future__ import annotations

import asyncio
import logging
import time

from faststream.kafka import KafkaBroker

from services.query.follow import Follower, retry_until_done
from services.query.lexicon import load_lexicon
from services.query.state import QueryState
from shared.settings import Settings

log = logging.getLogger("legco.query.warmup")


async def warm_up(state: QueryState, follower: Follower, broker: KafkaBroker, settings: Settings) -> None:
    """Steps 1-4 above; each step retried until its dependency answers."""
    start = time.perf_counter()
    await retry_until_done(lambda: follower.record_positions(settings), "recording offsets")
    await retry_until_done(lambda: asyncio.to_thread(follower.load_means), "loading the language means")
    state.means_ready.set()
    state.keywords.lexicon = await asyncio.to_thread(load_lexicon)
    await retry_until_done(lambda: asyncio.to_thread(follower.load_keywords), "loading the keyword index")
    state.keywords_ready = True
    state.answers.invalidate()  # answers of the dense-only start were computed without the keyword side
    await broker.start()
    log.info("keyword side ready %.1f s after start; following index events", time.perf_counter() - start)
