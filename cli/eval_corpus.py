"""Finding what ``legco eval`` needs in evaluation folders: the documents to ingest and the
queries with their expected Q&A pair.

Query files: ``*.truth.json`` (corpus fixtures: ``file``, optional ``docx``/``txt``, ``lang``,
``queries``) and ``*.queries.json`` (``file``, ``queries``). Each query has ``query``,
``expected_qa_id`` and optionally ``lang``, ``style`` (how the query is written: ``cantonese``,
``written``, ``simplified``, ``english``) and ``split`` (``calibration``/``test``, as in
``bench/unseen/papers``). The expected document is the file named by ``file``; its
``docx``/``txt`` renditions (same paper, other format) count as the same paper.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from shared.models import ACCEPTED_EXTENSIONS


@dataclass
class EvalQuery:
    """One evaluation query. ``files``: names of the expected paper's renditions; ``style`` and
    ``split``: the query file's labels, ``None`` when it has none."""

    query: str
    expected_qa_id: str
    lang: str | None
    source: str
    kind: str
    files: list[str] = field(default_factory=list)
    doc_lang: str | None = None
    style: str | None = None
    split: str | None = None


def document_files(dirs: list[Path]) -> list[Path]:
    """Every PDF/DOCX/TXT file directly inside ``dirs``, sorted by name within each folder."""
    out: list[Path] = []
    for d in dirs:
        out += sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() in ACCEPTED_EXTENSIONS)
    return out


def evaluation_files(dirs: list[Path], distractors: list[Path]) -> list[Path]:
    """The documents to ingest: those of ``dirs`` and of ``distractors`` (folders whose papers only
    compete in the collection), each folder once.

    Raises:
        ValueError: two files share a name (the evaluation keys documents by file name).
    """
    folders = list({d.resolve(): d for d in dirs + distractors}.values())
    files = document_files(folders)
    clash = sorted(n for n, c in Counter(f.name for f in files).items() if c > 1)
    if clash:
        raise ValueError(f"the same file name in two folders: {', '.join(clash)}")
    return files


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of the file's bytes (the gateway stores the same hash as ``sha256``)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_queries(dirs: list[Path], split: str | None = None) -> list[EvalQuery]:
    """Queries of every ``*.truth.json`` and ``*.queries.json`` in ``dirs``; with ``split``, only
    those whose ``split`` label is that name (queries without a label are left out then).

    Raises:
        ValueError: a query file is not valid JSON or lacks ``file``.
    """
    out: list[EvalQuery] = []
    for d in dirs:
        for f in sorted(d.glob("*.truth.json")) + sorted(d.glob("*.queries.json")):
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
                files = [data["file"]] + [data[k] for k in ("docx", "txt") if data.get(k)]
            except (ValueError, KeyError) as e:
                raise ValueError(f"{f}: not a query file ({e})") from None
            kind = "truth" if f.name.endswith(".truth.json") else "queries"
            for q in data.get("queries", []):
                if split is not None and q.get("split") != split:
                    continue
                out.append(EvalQuery(query=q["query"], expected_qa_id=str(q["expected_qa_id"]),
                                     lang=q.get("lang"), source=f.name, kind=kind, files=files,
                                     doc_lang=data.get("lang"), style=q.get("style"), split=q.get("split")))
    return out
