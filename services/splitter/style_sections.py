"""Topic sections of a body, and the runs of them that hold no 問/答 or ``Q1.`` marker.

One document may mix styles section by section: a briefing paper whose parts hold 問/答 pairs,
``Q1./A1.`` pairs and a Q-only list, with a press transcript or a Hansard extract as an annex.
The marker styles are found line by line over the whole body (each pair has its own markers);
the turn styles (Hansard questions, reporters' questions) have none, so they are looked for
only in the topic sections where no marker pair starts — never inside a marked pair's answer,
where a quoted exchange belongs to that answer.

A topic section starts at a section heading (``detect.is_section_heading``: a Q&A region header
or a topic line — numbered, lettered, an appendix's title or a short unnumbered heading) and
runs to the next one; the first section starts at the top of the body.
"""
from __future__ import annotations

from services.splitter.detect import Line, is_section_heading


def section_starts(lines: list[Line]) -> list[int]:
    """Indexes of the lines that start a topic section, ascending; always ``0`` first (``[0]``
    for a body of one line)."""
    return [0, *(i for i in range(1, len(lines)) if is_section_heading(lines, i))]


def unmarked_runs(lines: list[Line], marker_lines: set[int]) -> list[range]:
    """Maximal runs of consecutive topic sections in which no line of ``marker_lines`` (the
    line indexes of the 問/答 and ``Q1.`` items' question markers) lies, as ranges of line
    indexes, in document order. Without markers: one run, the whole body."""
    if not marker_lines:
        return [range(len(lines))]
    starts = section_starts(lines)
    bounds = [*starts, len(lines)]
    runs: list[range] = []
    run_start: int | None = None
    for a, b in zip(bounds, bounds[1:], strict=False):
        marked = any(a <= m < b for m in marker_lines)
        if marked:
            if run_start is not None:
                runs.append(range(run_start, a))
                run_start = None
        elif run_start is None:
            run_start = a
    if run_start is not None:
        runs.append(range(run_start, len(lines)))
    return runs
