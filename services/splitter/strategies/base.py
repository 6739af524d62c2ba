"""The interface every chunking strategy implements."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from shared.models import Chunk, ParsedDocument


@dataclass
class StrategyResult:
    """What a strategy returns: chunks in document order (``chunk_index`` 0..n-1),
    human-readable notes (e.g. why a fallback happened) and the strategy that actually
    produced the chunks (``"question"`` may fall back to ``"token"``)."""

    chunks: list[Chunk]
    strategy_used: str
    notes: list[str] = field(default_factory=list)


@runtime_checkable
class ChunkingStrategy(Protocol):
    """A chunking strategy: ``name`` is the key used by ``split_document``."""

    name: str

    def chunk(self, doc: ParsedDocument) -> StrategyResult:
        """Split ``doc`` into chunks. Must not raise for empty documents (return no chunks)."""
        ...
