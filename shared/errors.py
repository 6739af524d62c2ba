"""Errors that carry a human-readable reason for the user.

A ``DocumentError`` means the input itself is bad (corrupt, encrypted, empty, mislabelled,
too large): retrying cannot help, so consumers fail the document at once with ``reason``.
Any other exception is treated as transient and retried a bounded number of times.
"""


class DocumentError(Exception):
    """The document cannot be processed; ``reason`` is shown to the user as is.

    Args:
        reason: one or two plain sentences, no stack trace, e.g.
            "The PDF is password-protected; upload a copy without a password."
        code: a short machine-readable label used for the failure metric, e.g. "encrypted".
    """

    def __init__(self, reason: str, code: str = "unreadable") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class DependencyError(Exception):
    """A dependency (MinIO, Chroma, the embeddings endpoint, Kafka) could not be used: an outage,
    not bad input. Stages wait for it and try again (``shared.outage``).

    Args:
        dependency: its name for the user, e.g. ``"Chroma"``.
        detail: what went wrong, one line.
    """

    def __init__(self, dependency: str, detail: str = "") -> None:
        super().__init__(f"{dependency} is not reachable{': ' + detail if detail else ''}")
        self.dependency = dependency
        self.detail = detail


class DocumentGone(Exception):
    """The document was deleted (or replaced) while a stage worked on it: not a failure. The
    stage stops at once and writes nothing more (``shared.stage.Stage.run`` returns ``None``
    quietly); what it wrote before noticing is removed by the stage and by the gateway's
    reconciler.

    Args:
        document_id: the document that is gone.
    """

    def __init__(self, document_id: str) -> None:
        super().__init__(f"document {document_id} was deleted")
        self.document_id = document_id
