"""Collapsing renditions of one passage (PDF/DOCX of a paper) in a result list."""
from __future__ import annotations

from services.query.renditions import Ranked, bigram_set, collapse, jaccard

PAIR = ("Q8. 棕地作業者如何物色替代用地？\n"
        "政府正規劃在洪水橋及元朗南興建多層樓宇，以容納物流、貯物及車輛維修等棕地作業。")


def test_jaccard_ignores_whitespace_and_width():
    assert jaccard(bigram_set(PAIR), bigram_set(PAIR.replace("\n", " ").replace("，", " ，"))) == 1.0
    assert jaccard(bigram_set("ＡＢ１"), bigram_set("AB1")) == 1.0  # NFKC
    assert jaccard(bigram_set("私人土地業主"), bigram_set("务农人士")) == 0.0


def test_renditions_in_other_documents_collapse_into_the_best():
    ranked = [Ranked("pdf-q8", "pdf", PAIR, "pdf-q8"),
              Ranked("docx-q8", "docx", PAIR.replace("\n", ""), "docx-q8"),
              Ranked("pdf-q9", "pdf", "Q9. 特惠津貼以甚麼日期作為計算基準？"
                                      "業務經營者的資格以清拆前登記為準。", "pdf-q9"),
              Ranked("txt-q8", "txt", PAIR + " ", "txt-q8")]
    kept = collapse(ranked, k=2)
    assert [r.chunk_id for r in kept] == ["pdf-q8", "pdf-q9"]
    assert kept[0].duplicates == ["docx-q8", "txt-q8"]  # found even beyond the k kept


def test_chunks_of_one_document_are_never_merged():
    ranked = [Ranked("p1", "doc", PAIR, 1), Ranked("p2", "doc", PAIR, 2)]
    assert [r.chunk_id for r in collapse(ranked, k=5)] == ["p1", "p2"]


def test_threshold_above_one_disables_collapsing():
    ranked = [Ranked("a", "d1", PAIR, 1), Ranked("b", "d2", PAIR, 2)]
    assert len(collapse(ranked, k=5, threshold=1.01)) == 2


def test_a_page_chunk_inside_a_longer_rendition_collapses():
    page = ("古洞北及粉嶺北新發展區的規劃人口約為二十萬，區內會提供約七萬二千個住宅單位，其中公營房屋佔七成。"
            "政府會在新發展區興建公共圖書館、警署、消防局、體育館、社區會堂及街市等設施，並預留土地作學校用途。"
            "交通方面，北環線古洞站預計於二零二七年落成，另設主幹道及單車徑連接上水及粉嶺市中心。"
            "就業方面，新發展區預計可提供約六萬個就業機會，包括商業、研究及發展和專門工業用途。")
    longer = page + "另外，政府會在區內興建社區會堂及街市，以配合人口增長。" * 3
    ranked = [Ranked("docx", "d1", longer, "docx"), Ranked("pdf-p4", "d2", page, "pdf-p4"),
              Ranked("short", "d3", "新發展區的公共設施", "short")]
    kept = collapse(ranked, k=5)
    assert [r.chunk_id for r in kept] == ["docx", "short"]  # short text: never by containment
    assert kept[0].duplicates == ["pdf-p4"]


def test_the_copy_with_a_page_pdf_takes_the_place_of_a_docx_copy():
    ranked = [Ranked("docx-q8", "docx", PAIR, "docx-q8"),
              Ranked("pdf-q8", "pdf", PAIR, "pdf-q8", has_page=True),
              Ranked("txt-q8", "txt", PAIR, "txt-q8")]
    kept = collapse(ranked, k=3)
    assert [r.chunk_id for r in kept] == ["pdf-q8"]
    assert kept[0].duplicates == ["docx-q8", "txt-q8"] and kept[0].best == "docx-q8"
