"""The papers of the unseen set, in file order (each module holds one ``PAPER``)."""
from bench.unseen.content import (
    p01_hsk,
    p02_yls,
    p03_ntn,
    p04_tcnte,
    p05_tko137,
    p06_university,
    p07_santin,
    p08_northern_link,
    p09_public_housing,
    p10_sewerage,
    p11_rehousing,
    p12_costs,
    p13_lkt,
)
from bench.unseen.model import Paper

PAPERS: list[Paper] = [m.PAPER for m in (p01_hsk, p02_yls, p03_ntn, p04_tcnte, p05_tko137, p06_university,
                                          p07_santin, p08_northern_link, p09_public_housing, p10_sewerage,
                                          p11_rehousing, p12_costs, p13_lkt)]
