"""The seed's LLM verification pass (issue 17) against the local fake OpenAI-compatible server:
each Step 4 trigger sends its pair, the reply is validated (pydantic), an invalid reply and a
boundary that would drop text are logged and ignored, without an LLM the document says the
pass was skipped."""
from __future__ import annotations

import json
import logging

import pytest

from services.splitter.llm_check import OpenAIBoundaryChecker
from services.splitter.split import split_document
from services.splitter.verification import triggers
from shared.models import PageText, ParsedDocument
from tests.fake_vision import FakeVisionServer

PAIRS = {
    "A1": "問 A1：洪水橋站何時通車？\n答 A1：預計於 2030 年通車。\n",
    "A2": "問 A2：會否增設巴士路線？\n答 A2：運輸署會逐步增設。\n[如被追問：路線何時公布？]\n明年公布。\n",
    "A3": "問 A3：工程費用為何？\n答 A3：約 42 億元。\n[內部參考：費用仍在覆核，不宜公開。]\n",
    "A4": "問 A4：各區設施數目？\n答 A4：數目如下：\n| 地區 | 數目 |\n| --- | --- |\n| 元朗 | 5 |\n| 屯門 | 3 |\n",
    "A5": "問 A5：收地安排為何？\n答 A5：" + "政府會按既定程序收回私人土地，並向受影響人士發放特惠補償。" * 8 + "\n",
    "A6": "問 A6：何時諮詢區議會？\n答 A6：明年第一季。\n",
}
EXPECTED = {"A2": "followup", "A3": "internal_ref", "A4": "table_rows", "A5": "long"}


def doc() -> ParsedDocument:
    text = "備用問答\n" + "".join(PAIRS.values())
    return ParsedDocument(document_id="d", filename="d.txt", file_type="txt", page_count=1,
                          pages=[PageText(page_number=1, text=text)])


@pytest.fixture()
def fake():
    server = FakeVisionServer().start()
    yield server
    server.stop()


def settings_for(settings, fake):
    return settings.model_copy(update={"llm_base_url": fake.base_url, "llm_model": "chat-model",
                                       "qa_verification_model": "verify-model", "qa_verification_answer_tokens": 120})


def sent_pairs(fake) -> list[str]:
    """The ids of the pairs the fake was asked about (the first segment of each request)."""
    return [json.loads(r)["segments"][0].split("：", 1)[0].removeprefix("問 ") for r in fake.text_requests]


def test_the_triggers():
    assert triggers(PAIRS["A1"], 120) == []
    assert [triggers(PAIRS[k], 120) for k in EXPECTED] == [[v] for v in EXPECTED.values()]


def test_each_trigger_sends_its_pair_and_a_valid_reply_is_used(settings, fake):
    fake.text_answer = json.dumps({"correct_boundary": True, "tables_markdown": [], "nested_qa": [],
                                   "internal_refs": [], "clean_answer": "x"})
    s = settings_for(settings, fake)
    cs = split_document(doc(), "question", s, llm=OpenAIBoundaryChecker(s))
    assert sorted(sent_pairs(fake)) == sorted(EXPECTED)
    meta = {c.metadata["question_id"]: c.metadata for c in cs.chunks if c.metadata.get("chunk_kind") == "qa"}
    assert {k: m.get("verification_triggers") for k, m in meta.items() if m.get("verification_triggers")} == EXPECTED
    assert "verification: 4 pairs sent, 0 boundaries moved" in cs.notes


def test_an_invalid_reply_is_logged_and_ignored(settings, fake, caplog):
    fake.text_answer = "I think the boundary is fine."  # not the JSON asked for
    s = settings_for(settings, fake)
    plain = split_document(doc(), "question", settings)
    with caplog.at_level(logging.WARNING):
        cs = split_document(doc(), "question", s, llm=OpenAIBoundaryChecker(s))
    assert [c.text for c in cs.chunks] == [c.text for c in plain.chunks]
    assert any("not the JSON asked for" in r.getMessage() for r in caplog.records)
    assert any("4 invalid replies ignored" in n for n in cs.notes)


def test_a_boundary_that_would_drop_text_is_logged_and_ignored(settings, fake, caplog):
    a2 = PAIRS["A2"]
    fake.text_answer = json.dumps({"correct_boundary": False, "segments": [a2[:20], PAIRS["A3"]]})  # A2's end lost
    s = settings_for(settings, fake)
    plain = split_document(doc(), "question", settings)
    with caplog.at_level(logging.WARNING):
        cs = split_document(doc(), "question", s, llm=OpenAIBoundaryChecker(s))
    assert [c.text for c in cs.chunks] == [c.text for c in plain.chunks]
    assert any("text not preserved" in r.getMessage() for r in caplog.records)


def test_the_verification_model_is_used(settings, fake):
    fake.text_answer = json.dumps({"correct_boundary": True})
    s = settings_for(settings, fake)
    checker = OpenAIBoundaryChecker(s)
    assert checker.model == "verify-model"
    assert OpenAIBoundaryChecker(s.model_copy(update={"qa_verification_model": ""})).model == "chat-model"


def test_replies_are_cached_by_pair(settings, fake):
    fake.text_answer = json.dumps({"correct_boundary": True})
    s = settings_for(settings, fake)
    checker = OpenAIBoundaryChecker(s)
    split_document(doc(), "question", s, llm=checker)
    first = checker.calls
    split_document(doc(), "question", s, llm=checker)
    assert first == 4 and checker.calls == 4  # the second pass: every reply from the cache


def test_without_an_llm_the_document_says_verification_was_skipped(settings):
    cs = split_document(doc(), "question", settings.model_copy(update={"qa_verification_answer_tokens": 120}))
    assert "verification skipped: no LLM configured (4 pairs would have been checked)" in cs.notes
    # the default limit (2,000 tokens) leaves A5 out
    assert "verification skipped: no LLM configured (3 pairs would have been checked)" in split_document(
        doc(), "question", settings).notes


def test_a_pair_before_an_annex_is_sent_without_the_annex(settings, fake):
    """The last marked pair before a transcript annex is sent alone: the annex's heading and
    opening remark lie between it and the next pair, so no boundary between them can move."""
    fake.text_answer = json.dumps({"correct_boundary": True})
    text = ("備用問答\n" + PAIRS["A1"] + PAIRS["A2"] + PAIRS["A3"] + "附件：局長談話內容\n以下是局長談話的內容：\n"
            "記者：收地何時完成？\n發展局局長：明年年中完成。\n記者：津貼會否檢討？\n發展局局長：現時並無計劃。\n")
    d = ParsedDocument(document_id="d", filename="d.txt", file_type="txt", page_count=1,
                       pages=[PageText(page_number=1, text=text)])
    s = settings_for(settings, fake)
    cs = split_document(d, "question", s, llm=OpenAIBoundaryChecker(s))
    sent = {json.loads(r)["segments"][0].split("：", 1)[0].removeprefix("問 "): json.loads(r)["segments"]
            for r in fake.text_requests}
    assert sorted(sent) == ["A2", "A3"]
    assert len(sent["A2"]) == 2 and len(sent["A3"]) == 1 and "附件" not in sent["A3"][0]
    assert any(c.metadata.get("qa_style") == "transcript" for c in cs.chunks)
