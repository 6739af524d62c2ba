"""``legco dlq``: arguments, the listing table and the replay summary."""
from __future__ import annotations

import argparse

import pytest

from cli import dlq_cmd
from cli.main import parse_args


def test_dlq_arguments() -> None:
    a = parse_args(["dlq", "list"])
    assert (a.func, a.all, a.json) == (dlq_cmd.run_list, False, False)
    r = parse_args(["dlq", "replay", "a" * 32, "--stage", "embedding"])
    assert (r.func, r.documents, r.all, r.stage) == (dlq_cmd.run_replay, ["a" * 32], False, "embedding")
    assert parse_args(["dlq", "replay", "--all"]).all is True


def test_replay_needs_documents_or_all(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(all=False, documents=[], url="http://x", client=None, stage=None, json=False)
    assert dlq_cmd.run_replay(args) == 2
    assert "--all" in capsys.readouterr().err


def test_listing_and_replay_output(capsys: pytest.CaptureFixture[str]) -> None:
    dlq_cmd.print_letters({"deadletters": [{
        "document_id": "a" * 32, "department": "default", "filename": "paper.pdf", "status": "failed",
        "stage": "tables", "page_number": 4, "attempts": 3, "reason": "RuntimeError: boom",
        "ts": "2026-12-01T10:00:00+00:00"}]})
    out = capsys.readouterr().out
    for text in ("paper.pdf", "tables p.4", "RuntimeError: boom", "2026-12-01 10:00:00", "1 dead letters"):
        assert text in out
    assert dlq_cmd.print_replay({"documents": [{"document_id": "a" * 32, "filename": "paper.pdf",
                                                "stage": "embedding", "replayed": 1}]}) == 0
    assert "replayed paper.pdf: 1 event(s) to embedding" in capsys.readouterr().out
    assert dlq_cmd.print_replay({"documents": [{"document_id": "b" * 32, "skipped": "the document is indexed, "
                                                "not failed"}]}) == 1
