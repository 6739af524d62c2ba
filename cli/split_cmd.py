"""``legco split FILE [--strategy question|token] [--json]``: parse, read tables and chunk a file
in this process through :func:`cli.pipeline.split_file` (the code the parser, table and splitter
services run, with vision off); no service needed."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shared.errors import DocumentError
from shared.models import ACCEPTED_EXTENSIONS, Chunk, ChunkSet
from shared.settings import Settings

PREVIEW_LINES = 3


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``split`` subcommand."""
    p = sub.add_parser("split", help="show how a file would be chunked (offline)")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--strategy", choices=("question", "token"), default="question",
                   help="chunking strategy (default: question)")
    p.add_argument("--json", action="store_true", help="print the ChunkSet as JSON")
    p.add_argument("--document-id", default="local", help="id stamped on the chunks (default: local)")
    p.set_defaults(func=run)


def chunk_header(chunk: Chunk) -> str:
    """One line: index, page or page range, question id, topic, token count."""
    m = chunk.metadata
    parts = [f"#{chunk.chunk_index}"]
    start, end = m.get("page_start"), m.get("page_end")
    if isinstance(start, int) and isinstance(end, int) and start != end:
        parts.append(f"pages {start}-{end}")
    elif chunk.page_number is not None:
        parts.append(f"page {chunk.page_number}")
    if m.get("question_id"):
        parts.append(f"question {m['question_id']}")
    elif m.get("chunk_kind"):
        parts.append(str(m["chunk_kind"]))
    if m.get("topic_section"):
        parts.append(f"topic {m['topic_section']}")
    if m.get("part") and m.get("parts", 1) > 1:
        parts.append(f"part {m['part']}/{m['parts']}")
    if "token_count" in m:
        parts.append(f"{m['token_count']} tokens")
    return " | ".join(parts)


def print_chunks(cs: ChunkSet, warnings: list[str]) -> None:
    """Print one block per chunk (header, question text, first lines of text), then a summary."""
    for chunk in cs.chunks:
        print(chunk_header(chunk))
        if chunk.metadata.get("question_text"):
            print(f"  Q: {chunk.metadata['question_text']}")
        lines = [ln for ln in chunk.text.splitlines() if ln.strip()]
        for ln in lines[:PREVIEW_LINES]:
            print(f"  {ln}")
        if len(lines) > PREVIEW_LINES:
            print(f"  … ({len(lines) - PREVIEW_LINES} more lines)")
        print()
    used = cs.strategy_used if cs.strategy_used == cs.strategy else f"{cs.strategy}→{cs.strategy_used}"
    print(f"{cs.filename}: {len(cs.chunks)} chunks, {cs.file_type}, strategy {used}")
    for note in cs.notes:
        print(f"note: {note}")
    for w in warnings:
        print(f"warning: {w}")


def run(args: argparse.Namespace) -> int:
    """Run the command; exit code 1 when the file is missing or unusable."""
    if args.file.suffix.lower() not in ACCEPTED_EXTENSIONS:
        print(f"error: {args.file.name}: unsupported file type {args.file.suffix or '(none)'}; "
              "use a PDF, DOCX or TXT file", file=sys.stderr)
        return 1
    from cli.pipeline import split_file  # imports the parser and splitter: only for this command

    try:
        cs, warnings = split_file(args.file, args.strategy, Settings(), args.document_id)
    except DocumentError as e:
        print(f"error: {args.file.name}: {e.reason}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {args.file}: {e.strerror or e}", file=sys.stderr)
        return 1
    if args.json:
        print(cs.model_dump_json(indent=2))
    else:
        print_chunks(cs, warnings)
    return 0
