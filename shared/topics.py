"""Kafka topic names. One topic per stage transition, keyed by ``document_id``.

The ``.v1`` suffix is the event schema version carried by the topic; a breaking change to an
event gets a new topic so old and new consumers can run side by side during a rollout.
"""

UPLOADED = "legco.documents.uploaded.v1"
"""gateway → parser: a file is stored in MinIO and waits to be parsed."""

PARSED = "legco.documents.parsed.v1"
"""parser → splitter (and, when the table stage is deployed, → rasterizer)."""

CHUNKED = "legco.documents.chunked.v1"
"""splitter → embedder: the document's chunks are stored in MinIO."""

PROGRESS = "legco.documents.progress.v1"
"""every stage → gateway: stage, units done / total, status, error (streamed over SSE)."""

DEAD_LETTER = "legco.deadletter.v1"
"""events a consumer gave up on after its bounded retries, with the reason."""

ALL_TOPICS: tuple[str, ...] = (UPLOADED, PARSED, CHUNKED, PROGRESS, DEAD_LETTER)
