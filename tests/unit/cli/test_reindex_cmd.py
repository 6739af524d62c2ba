"""``legco reindex``: arguments and the job's one-line summary."""
from __future__ import annotations

from cli import reindex_cmd
from cli.main import parse_args


def test_reindex_arguments() -> None:
    a = parse_args(["reindex"])
    assert (a.func, a.department, a.model, a.no_wait) == (reindex_cmd.run, None, None, False)
    b = parse_args(["reindex", "--department", "dept-a", "--no-wait"])
    assert (b.department, b.no_wait) == ("dept-a", True)


def test_describe() -> None:
    job = {"job_id": "0123456789abcdef", "in_place": False, "generation": 2, "model": "e5", "state": "done",
           "documents_done": 3, "documents_total": 3, "chunks": 40}
    assert reindex_cmd.describe(job) == "reindex 01234567 (generation 2, e5): done, 3/3 documents, 40 chunks"
    assert "department dept-a in place" in reindex_cmd.describe({**job, "in_place": True, "department": "dept-a"})
