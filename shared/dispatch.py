"""Glue between a FastStream Kafka subscriber and a ``WorkQueue`` (``shared/workqueue.py``).

``fair_handler(fn, queue)`` wraps a stage's handler: the wrapper FastStream calls receives the
event, the clients (FastStream's context, as declared by ``fn``'s signature) and the message; it
hands ``fn(event, clients...)`` to the queue and returns at once, so the consumer goes on reading
while the work runs — department by department in turn. The subscriber is registered with
``AckPolicy.MANUAL``: FastStream commits nothing, the queue commits each partition's offset once
every record before it is done. Under FastStream's ``TestKafkaBroker`` (no real consumer) the
wrapper runs ``fn`` at once, so handler tests see its effects when ``publish`` returns.
"""
from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
from faststream.kafka.annotations import KafkaMessage

from shared.workqueue import Job, Partition, WorkQueue

log = logging.getLogger("legco.dispatch")
MSG_PARAM = "legco_message__"


class KafkaCommitter:
    """The ``Committer`` of a ``WorkQueue`` over an aiokafka consumer."""

    def __init__(self, consumer: AIOKafkaConsumer) -> None:
        self.consumer = consumer

    async def commit(self, offsets: dict[Partition, int]) -> None:
        await self.consumer.commit({TopicPartition(t, p): o for (t, p), o in offsets.items()})

    def pause(self, partitions: list[Partition]) -> None:
        self.consumer.pause(*[TopicPartition(t, p) for t, p in partitions])

    def resume(self, partitions: list[Partition]) -> None:
        assigned = self.consumer.assignment()
        self.consumer.resume(*[tp for t, p in partitions if (tp := TopicPartition(t, p)) in assigned])


class QueueRebalance(ConsumerRebalanceListener):  # type: ignore[misc]  # aiokafka has no type hints
    """Drops a queue's records of revoked partitions, then calls ``then`` (another listener)."""

    def __init__(self, queue: WorkQueue, then: ConsumerRebalanceListener | None = None) -> None:
        self.queue = queue
        self.then = then

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.queue.revoke({(tp.topic, tp.partition) for tp in revoked})
        if self.then is not None:
            await _maybe_await(self.then.on_partitions_revoked(revoked))

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        if self.then is not None:
            await _maybe_await(self.then.on_partitions_assigned(assigned))


async def _maybe_await(value: Any) -> None:
    if inspect.isawaitable(value):
        await value


def fair_handler(fn: Callable[..., Awaitable[None]], queue: WorkQueue,
                 key: Callable[[Any], Hashable], serial: Callable[[Any], Hashable | None] | None = None,
                 ) -> Callable[..., Awaitable[None]]:
    """A FastStream handler that queues ``fn`` instead of running it.

    Args:
        fn: the stage's handler (first parameter the event; further parameters FastStream's
            context, e.g. ``store: StoreDep``).
        queue: the subscriber's work queue.
        key: the event's fair-share key (its department).
        serial: the event's serialisation key (jobs with the same key never run at once), or
            ``None`` for none.

    The wrapper has ``fn``'s signature plus the message, so FastStream decodes the event and
    resolves the clients exactly as for ``fn``.
    """
    sig = inspect.signature(fn, eval_str=True)
    params = list(sig.parameters.values())
    msg_param = inspect.Parameter(MSG_PARAM, inspect.Parameter.KEYWORD_ONLY, annotation=KafkaMessage)

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> None:
        msg = kwargs.pop(MSG_PARAM)
        bound = sig.bind(*args, **kwargs)
        event = next(iter(bound.arguments.values()))
        consumer = getattr(msg, "consumer", None)
        record = msg.raw_message
        if not isinstance(consumer, AIOKafkaConsumer) or isinstance(record, tuple):
            await fn(*bound.args, **bound.kwargs)  # TestKafkaBroker: run now
            return
        queue.attach(KafkaCommitter(consumer))
        await queue.submit(Job((record.topic, record.partition), record.offset, key(event),
                               lambda: fn(*bound.args, **bound.kwargs),
                               serial=serial(event) if serial else None))

    wrapper.__signature__ = sig.replace(parameters=[*params, msg_param])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{p.name: p.annotation for p in params}, MSG_PARAM: KafkaMessage,
                               "return": None}
    return wrapper
