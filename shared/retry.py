"""The one retry policy for calls to other services (embeddings endpoint, LLM, query service).

tenacity, configured from ``Settings``: up to ``client_retry_attempts`` tries of a call that
failed for a transient reason (connection refused or reset, timeout, HTTP 429 or 5xx), waiting
``client_retry_base_s`` seconds, doubling, with jitter, at most ``client_retry_max_s`` seconds
between tries. A call that failed for any other reason (4xx, bad input) is not retried. The
clients themselves are created with their own retries off (``max_retries=0``), so the attempts
are counted in one place.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx
import openai
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from shared.settings import Settings

T = TypeVar("T")


def is_transient(error: BaseException) -> bool:
    """True for errors worth retrying: transport failures, timeouts, HTTP 429 and 5xx."""
    if isinstance(error, (openai.APIConnectionError, openai.APITimeoutError, httpx.TransportError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code == 429 or error.status_code >= 500
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code == 429 or error.response.status_code >= 500
    return False


def retrying(settings: Settings, attempts: int | None = None) -> AsyncRetrying:
    """A tenacity ``AsyncRetrying`` for one call under the policy above (``attempts``
    overrides ``client_retry_attempts``); the last error is re-raised as is."""
    return AsyncRetrying(
        stop=stop_after_attempt(max(1, attempts if attempts is not None else settings.client_retry_attempts)),
        wait=wait_exponential_jitter(multiplier=settings.client_retry_base_s, max=settings.client_retry_max_s,
                                     jitter=settings.client_retry_base_s),
        retry=retry_if_exception(is_transient),
        reraise=True,
    )


async def call_with_retry(settings: Settings, call: Callable[[], Awaitable[T]], attempts: int | None = None) -> T:
    """Await ``call()`` under the retry policy; returns its result.

    Raises:
        the last error of ``call`` once the attempts are used up or the error is not transient.
    """
    async for attempt in retrying(settings, attempts):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity re-raises the last error")
