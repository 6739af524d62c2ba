"""The event model each Kafka topic carries, for publishers' payload schemas and the AsyncAPI
document (a module of its own: ``RegistryChange`` builds on ``shared.api``, which imports
``shared.events``)."""
from __future__ import annotations

from pydantic import BaseModel

from shared import topics
from shared.events import (
    AuditEvent,
    ChunkRangeEmbedded,
    ChunkRangeWork,
    DeadLetter,
    DocumentChunked,
    DocumentDeleted,
    DocumentIndexed,
    DocumentParsed,
    DocumentRebuilt,
    DocumentTablesDone,
    DocumentUploaded,
    IndexSwitched,
    PageTablesDone,
    PageWork,
    ProgressEvent,
    RebuildDocument,
)
from shared.registry_change import RegistryChange

TOPIC_EVENTS: dict[str, type[BaseModel]] = {
    topics.UPLOADED: DocumentUploaded,
    topics.PARSED: DocumentParsed,
    topics.TABLE_PAGES: PageWork,
    topics.TABLE_PAGE_DONE: PageTablesDone,
    topics.TABLES: DocumentTablesDone,
    topics.CHUNKED: DocumentChunked,
    topics.CHUNK_RANGES: ChunkRangeWork,
    topics.CHUNK_RANGE_DONE: ChunkRangeEmbedded,
    topics.INDEXED: DocumentIndexed,
    topics.DELETED: DocumentDeleted,
    topics.PROGRESS: ProgressEvent,
    topics.DEAD_LETTER: DeadLetter,
    topics.AUDIT: AuditEvent,
    topics.INDEX_REBUILD: RebuildDocument,
    topics.INDEX_REBUILT: DocumentRebuilt,
    topics.INDEX_SWITCHED: IndexSwitched,
    topics.GATEWAY_REGISTRY: RegistryChange,
}
"""The event model each topic of ``shared.topics`` carries (one model per topic; a consumer
configured to read ``documents.parsed`` as its input, the splitter without the table stage, reads
those events as ``DocumentTablesDone``, a subset of ``DocumentParsed``). Publishers declare it as
their payload schema (``shared.kafka.event_publisher``) and the AsyncAPI document is built from
it (``shared.asyncapi``)."""
