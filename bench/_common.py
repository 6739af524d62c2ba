"""Small helpers shared by the bench scripts: corpus paths, percentiles, table printing."""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def floats(text: str) -> list[float]:
    """``"0,0.5,1"`` → ``[0.0, 0.5, 1.0]``."""
    return [float(x) for x in text.split(",")]


def percentile(values: list[float], p: float) -> float:
    """``p``-th percentile (0-100) with linear interpolation; ``nan`` for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def median(values: list[float]) -> float:
    """Median; ``nan`` for no values."""
    return statistics.median(values) if values else float("nan")


def fixture_queries() -> list[str]:
    """Every ``queries[].query`` of the fixture truth files and the real corpus query files."""
    out: list[str] = []
    for f in sorted(CORPUS.glob("fixtures/*.truth.json")) + sorted(CORPUS.glob("real/*.queries.json")):
        out += [q["query"] for q in json.loads(f.read_text(encoding="utf-8")).get("queries", [])]
    return out


def distinct_questions() -> list[str]:
    """Every distinct question the repository holds, in a fixed mixed order (several hundred):
    the fixture truth and real corpus queries (``fixture_queries``), the unseen set's
    (``bench/unseen/papers``) and the calibration set's (``bench/calibration``: Q&A, passage and
    unanswerable questions). ``bench/query.py`` asks each once, so no answer comes from a cache."""
    import random

    out = fixture_queries()
    for f in sorted((ROOT / "bench" / "unseen" / "papers").glob("*.queries.json")) + sorted(
            (ROOT / "bench" / "calibration").glob("*.json")):
        out += [q["query"] for q in json.loads(f.read_text(encoding="utf-8")).get("queries", [])]
    unique = list(dict.fromkeys(out))
    random.Random(16).shuffle(unique)  # languages and lengths mixed evenly over the run
    return unique


def _numeric(c: object) -> bool:
    if isinstance(c, (int, float)):
        return True
    try:
        float(str(c))
        return True
    except ValueError:
        return str(c) == "-"


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A plain left/right aligned text table (numbers right-aligned)."""
    cells = [[str(h) for h in headers]] + [[f"{c:.2f}" if isinstance(c, float) else str(c) for c in r]
                                           for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    numeric = [all(_numeric(r[i]) for r in rows) for i in range(len(headers))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if numeric[i] else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=False))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def load_note() -> str:
    """``"load average 1/5/15 min: a, b, c on N cores"`` (benchmarks share the machine)."""
    import os

    one, five, fifteen = os.getloadavg()
    return f"load average 1/5/15 min: {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


async def indexed_ids_by_file(url: str) -> dict[str, set[str]]:
    """Filename → ids of indexed documents with that name (from the gateway's listing)."""
    from cli import api

    async with api.make_client(url) as client:
        listing = await api.list_documents(client)
    out: dict[str, set[str]] = {}
    for d in listing.get("documents", []):
        if d.get("status") == "indexed":
            out.setdefault(d.get("filename", ""), set()).add(d["document_id"])
    return out
