"""Kafka topic names. One topic per stage transition, keyed by ``document_id``.

The ``.v1`` suffix is the event schema version carried by the topic; a breaking change to an
event gets a new topic so old and new consumers can run side by side during a rollout.
"""

UPLOADED = "legco.documents.uploaded.v1"
"""gateway → parser: a file is stored in MinIO and waits to be parsed."""

PARSED = "legco.documents.parsed.v1"
"""parser → tables fan-out (→ splitter directly when ``splitter_input_topic`` is this topic)."""

TABLE_PAGES = "legco.tables.pages.v1"
"""tables fan-out → tables page workers: one ``PageWork`` per PDF page, keyed
``{document_id}:{page}`` so the pages of one document spread over the partitions and hence
over the page workers (consumer group ``tables``)."""

TABLE_PAGE_DONE = "legco.tables.page-done.v1"
"""tables page worker → tables gatherer: one small ``PageTablesDone`` per page, keyed by
``document_id`` so one gatherer (consumer group ``tables-gather``) sees all pages of a
document and can keep their set in memory."""

TABLES = "legco.documents.tables.v1"
"""tables → splitter: one ``DocumentTablesDone`` per document, when all its pages are done
(DOCX/TXT: at once, they have no page PDFs)."""

CHUNKED = "legco.documents.chunked.v1"
"""splitter → embedder: the document's chunks are stored in MinIO."""

CHUNK_RANGES = "legco.embedder.ranges.v1"
"""embedder fan-out → embedder range workers (consumer group ``embedder-ranges``): a document of
more than ``EMBEDDER_RANGE_CHUNKS`` chunks as one ``ChunkRangeWork`` per range of that many
chunks, keyed ``{document_id}:{range_number}`` so the ranges spread over the partitions and
hence over the embedder replicas."""

CHUNK_RANGE_DONE = "legco.embedder.range-done.v1"
"""embedder range worker → embedder gatherer (consumer group ``embedder-gather``): one small
``ChunkRangeEmbedded`` per range, keyed by ``document_id`` so one gatherer sees every range of a
document; once all are in it writes the document's statistics and emits ``documents.indexed``."""

INDEXED = "legco.documents.indexed.v1"
"""embedder → query: a document's chunk vectors, question lines and language statistics are in
Chroma (emitted after they were written, so a consumer that reads Chroma on it sees them)."""

DELETED = "legco.documents.deleted.v1"
"""gateway → query: a document (or some of its chunks) was deleted from Chroma and MinIO
(emitted after the deletion; a replaced document is deleted too)."""

PROGRESS = "legco.documents.progress.v1"
"""every stage → gateway: stage, units done / total, status, error (streamed over SSE)."""

DEAD_LETTER = "legco.deadletter.v1"
"""events a consumer gave up on after its bounded retries, with the reason."""

AUDIT = "legco.audit.v1"
"""gateway → the admin audit route: one ``AuditEvent`` per upload, delete, replacement, chunk
delete, key creation or revocation and per denied request (401/403). One partition (the log
reads in order), keyed by department, kept forever (``retention.ms=-1``, see ``TOPIC_CONFIGS``)."""

INDEX_REBUILD = "legco.index.rebuild.v1"
"""gateway (a reindex job) → embedder (group ``embedder-rebuild``): one ``RebuildDocument`` per
indexed document, to embed its stored chunk set into the generation the job builds."""

INDEX_REBUILT = "legco.index.rebuilt.v1"
"""embedder → gateway (the reindex job that asked): ``DocumentRebuilt``, one per rebuild event."""

INDEX_SWITCHED = "legco.index.switched.v1"
"""gateway (a reindex job) → query services: ``IndexSwitched``, after the generation pointer in
Chroma names the rebuilt generation; each query service rebuilds its keyword index from it."""

GATEWAY_REGISTRY = "legco.gateway.registry.v1"
"""gateway → every gateway replica: ``RegistryChange`` (``services/gateway/changelog.py``), one per
change of the document registry (a record written, a document forgotten) or of the API keys (a
key created or revoked), keyed by document id (``key:{prefix}`` for a key). One partition, so
every replica folds the changes in one order. Each replica reads it
outside any consumer group from the end offsets it found at start (the manifests in MinIO are
the state before that), so records older than that are never read again: kept one day."""

ALL_TOPICS: tuple[str, ...] = (UPLOADED, PARSED, TABLE_PAGES, TABLE_PAGE_DONE, TABLES, CHUNKED, CHUNK_RANGES,
                               CHUNK_RANGE_DONE, INDEXED, DELETED,
                               PROGRESS, DEAD_LETTER, AUDIT, INDEX_REBUILD, INDEX_REBUILT, INDEX_SWITCHED,
                               GATEWAY_REGISTRY)

TOPIC_PARTITIONS: dict[str, int] = {AUDIT: 1, GATEWAY_REGISTRY: 1}
"""Topics whose partition count is fixed (the others get ``KAFKA_TOPIC_PARTITIONS``)."""

TOPIC_CONFIGS: dict[str, dict[str, str]] = {AUDIT: {"retention.ms": "-1", "retention.bytes": "-1"},
                                             GATEWAY_REGISTRY: {"retention.ms": str(24 * 3600 * 1000)}}
"""Topic-level Kafka configs that differ from the broker's defaults (the audit log is never
deleted by age or size; the gateways' registry changes are, after a day). ``shared.admin`` sets
them on creation and re-applies them to an existing topic."""
