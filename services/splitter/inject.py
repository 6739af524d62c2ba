"""Put the table stage's markdown tables where their flattened text was (pure logic).

For every page, each ``PageText.tables`` entry (a ``shared.models.TableSpan``) with a
``span`` has ``text[start:end]`` replaced — by the whole markdown table on the table's first
page, by nothing on the pages it continues onto — so the flattened cell text does not remain
as noise. Entries without a span (not located) are appended after the page text; entries
``in_text`` are already in it. The markdown is put on lines of its own, so the table rows
start with ``|`` and stay intact through chunking.
"""
from __future__ import annotations

from shared.models import ParsedDocument, TableSpan


def _on_own_lines(before: str, md: str, after: str) -> str:
    lead = "" if not before or before.endswith("\n") else "\n"
    trail = "" if not after or after.startswith("\n") else "\n"
    return f"{lead}{md}{trail}"


def inject_page(text: str, entries: list[TableSpan]) -> str:
    """``text`` with the tables of ``entries`` swapped in (see the module doc).

    Overlapping spans: the later-starting one is ignored (its markdown is appended instead).
    """
    located = sorted(((e, e.span) for e in entries if e.span is not None and not e.in_text),
                     key=lambda pair: pair[1][0])
    kept: list[tuple[TableSpan, tuple[int, int]]] = []
    end_prev = -1
    appended = [e for e in entries if e.span is None and not e.in_text and e.markdown]
    for e, (s, t) in located:
        if s < end_prev:
            if e.markdown:
                appended.append(e)
            continue
        kept.append((e, (s, t)))
        end_prev = t
    for e, (s, t) in reversed(kept):
        before, after = text[:s], text[t:]
        md = e.markdown
        text = before + (_on_own_lines(before, md, after) if md else "") + after
    for e in appended:
        text = f"{text.rstrip()}\n\n{e.markdown}\n" if text.strip() else e.markdown + "\n"
    return text


def inject_tables(doc: ParsedDocument) -> ParsedDocument:
    """A copy of ``doc`` whose page texts hold the markdown tables (no-op copy when the
    table stage did not run or found nothing). ``tables`` entries stay on the pages."""
    if not any(p.tables for p in doc.pages):
        return doc
    out = doc.model_copy(deep=True)
    for p in out.pages:
        if p.tables:
            p.text = inject_page(p.text, p.tables)
    return out
