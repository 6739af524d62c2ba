"""``legco`` argument parsing: subcommands, defaults, URL resolution, usage errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli import ask_cmd, docs_cmd, ingest_cmd, split_cmd
from cli.main import main, parse_args


def test_url_default_env_and_flag(monkeypatch):
    monkeypatch.delenv("LEGCO_URL", raising=False)
    assert parse_args(["docs"]).url == "http://localhost:8080"
    monkeypatch.setenv("LEGCO_URL", "http://gw:9000/")
    assert parse_args(["docs"]).url == "http://gw:9000"
    assert parse_args(["--url", "http://other:1", "docs"]).url == "http://other:1"


def test_ingest_arguments():
    a = parse_args(["ingest", "a.pdf", "b.docx", "--strategy", "question", "--wait"])
    assert a.func is ingest_cmd.run
    assert a.files == [Path("a.pdf"), Path("b.docx")]
    assert (a.strategy, a.wait) == ("question", True)
    b = parse_args(["ingest", "a.pdf"])
    assert (b.strategy, b.wait) == ("token", False)


def test_ask_docs_split_arguments():
    a = parse_args(["ask", "what is it?", "--top-k", "3", "--json"])
    assert (a.func, a.question, a.top_k, a.json) == (ask_cmd.run, "what is it?", 3, True)
    assert parse_args(["ask", "q"]).top_k == 5
    assert parse_args(["docs", "--json"]).func is docs_cmd.run
    s = parse_args(["split", "x.pdf"])
    assert (s.func, s.file, s.strategy, s.json) == (split_cmd.run, Path("x.pdf"), "question", False)
    assert parse_args(["split", "x.pdf", "--strategy", "token"]).strategy == "token"


@pytest.mark.parametrize("argv", [[], ["ingest"], ["ingest", "a.pdf", "--strategy", "bogus"],
                                  ["ask"], ["ask", "q", "--top-k", "many"], ["nope"]])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: legco" in capsys.readouterr().err


def test_ingest_missing_file_exits_1_without_network(tmp_path, capsys):
    missing = tmp_path / "nope.pdf"
    assert main(["--url", "http://127.0.0.1:9", "ingest", str(missing)]) == 1
    assert "no such file" in capsys.readouterr().err


def test_unreachable_gateway_is_one_plain_line(capsys):
    assert main(["--url", "http://127.0.0.1:9", "docs"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: Cannot reach the gateway at http://127.0.0.1:9")
    assert "Traceback" not in err
