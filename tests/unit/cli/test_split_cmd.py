"""``legco split`` runs the real parser and splitter in-process (no services)."""
from __future__ import annotations

import json
from pathlib import Path

from cli.main import main

FIXTURES = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus" / "fixtures"
E_PDF = FIXTURES / "E_基礎設施.pdf"


def test_split_json_gives_question_chunks_matching_truth(capsys):
    assert main(["split", str(E_PDF), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["filename"] == "E_基礎設施.pdf"
    assert (out["strategy"], out["strategy_used"], out["file_type"]) == ("question", "question", "pdf")
    chunks = out["chunks"]
    assert [c["chunk_index"] for c in chunks] == list(range(len(chunks)))
    qa = {c["metadata"]["question_id"]: c for c in chunks if c["metadata"].get("question_id")}
    truth = json.loads((FIXTURES / "E_基礎設施.truth.json").read_text(encoding="utf-8"))
    pairs = truth["qa_pairs"] + truth["others"]
    assert set(qa) == {p["qa_id"] for p in pairs}
    for pair in pairs:
        c = qa[pair["qa_id"]]
        assert c["page_number"] == pair["question_page"]
        assert c["metadata"]["question_text"] == pair["question"]


def test_split_human_output_blocks(capsys):
    assert main(["split", str(E_PDF)]) == 0
    out = capsys.readouterr().out
    assert "#2 | pages 2-3 | question A1 | topic (A) 排水系統 |" in out
    assert "  Q: 新發展區大量土地由農地變為已鋪築地面，會否增加上水及粉嶺一帶的水浸風險？" in out
    assert "E_基礎設施.pdf: 18 chunks, pdf, strategy question" in out.splitlines()


def test_split_token_strategy(capsys):
    assert main(["split", str(E_PDF), "--strategy", "token", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["strategy_used"] == "token"
    assert out["chunks"] and not any(c["metadata"].get("question_id") for c in out["chunks"])


def test_split_corrupt_pdf_prints_reason(tmp_path, capsys):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    assert main(["split", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: broken.pdf: ")
    assert "Traceback" not in captured.err


def test_split_empty_and_unsupported_files(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert main(["split", str(empty)]) == 1
    assert capsys.readouterr().err.startswith("error: empty.txt: ")
    other = tmp_path / "notes.json"
    other.write_text("{}")
    assert main(["split", str(other)]) == 1
    assert "unsupported file type .json" in capsys.readouterr().err


def test_split_txt_file_without_qa_falls_back_to_token(tmp_path, capsys):
    f = tmp_path / "plain.txt"
    f.write_text("第一段。\n\n" + "這是一段沒有問答的文字。" * 40, encoding="utf-8")
    assert main(["split", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["file_type"], out["strategy_used"]) == ("txt", "token")
    assert out["chunks"][0]["page_number"] is None
