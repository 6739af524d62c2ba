"""parse_document_isolated: same result as in-process, plus timeout and memory limits."""
from __future__ import annotations

import pytest

from services.parser.parse import parse_document, parse_document_isolated
from shared.errors import DocumentError
from shared.settings import Settings


def test_isolated_result_equals_in_process(corpus):
    data = (corpus / "fixtures" / "B_古洞北粉嶺北新發展區概覽.pdf").read_bytes()
    local = parse_document(data, "B.pdf", "doc-b", Settings())
    remote = parse_document_isolated(data, "B.pdf", "doc-b", Settings())
    assert remote.parsed == local.parsed
    assert remote.page_pdfs.keys() == local.page_pdfs.keys()
    assert all(remote.page_pdfs[n] == local.page_pdfs[n] for n in local.page_pdfs)


def test_isolated_document_errors_pass_through(corpus):
    data = (corpus / "bad" / "C08c_user_password_required.pdf").read_bytes()
    with pytest.raises(DocumentError) as err:
        parse_document_isolated(data, "c.pdf", "doc-c", Settings())
    assert err.value.code == "encrypted"


def test_timeout_kills_the_child(corpus):
    data = (corpus / "real" / "hk_ld_ec_ordinance_guide_faq_en.pdf").read_bytes()
    with pytest.raises(DocumentError) as err:
        parse_document_isolated(data, "faq.pdf", "doc-t", Settings(parse_timeout_s=0.2))
    assert err.value.code == "timeout"
    assert "took longer than 0.20 s" in err.value.reason


def test_memory_limit(corpus):
    data = (corpus / "fixtures" / "E_基礎設施.pdf").read_bytes()
    with pytest.raises(DocumentError) as err:
        parse_document_isolated(data, "e.pdf", "doc-m", Settings(parse_memory_limit_bytes=64 * 1024 * 1024))
    assert err.value.code == "too_large"
    assert "memory limit" in err.value.reason


def test_child_dying_without_result_is_a_crash():
    import os

    from services.parser.isolation import run_isolated

    with pytest.raises(DocumentError) as err:
        run_isolated(os._exit, (3,), timeout_s=30, memory_limit_bytes=None)
    assert err.value.code == "crash" and "exit code 3" in err.value.reason


def test_unexpected_child_exception_is_not_a_document_error():
    from services.parser.isolation import run_isolated

    with pytest.raises(RuntimeError, match="ValueError"):
        run_isolated(int, ("not a number",), timeout_s=30, memory_limit_bytes=None)
    assert run_isolated(int, ("42",), timeout_s=30, memory_limit_bytes=None) == 42
