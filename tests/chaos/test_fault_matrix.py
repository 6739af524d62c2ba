"""The fault matrix of the reliability issue (``tests/faults.py``): kill -9 of every worker type
at a random moment of a 10-document ingest, 3 times each; restarts of Kafka, MinIO, Chroma and
e5 (a few seconds each); outages of 60 s and 2 minutes of e5, Chroma and MinIO. Every run must
lose, duplicate and strand nothing; the table (fault | runs | lost | duplicated | stuck |
recovery seconds) is printed at the end. ``CHAOS_ONLY=chroma,embedder`` runs the faults whose
program is named; ``CHAOS_SEED`` fixes the moments."""
from __future__ import annotations

import os
import random

import pytest

from tests.conftest import FIXTURES
from tests.faults import Fault, FaultRun, Reference, reference_run, run_fault, small_papers, table
from tests.infra import Stack, start_stack, stop_stack

WORKERS = ("parser", "tables:tables-0", "splitter", "embedder", "gateway", "query")
FAULTS = ([Fault("kill", w) for w in WORKERS for _ in range(3)]
          + [Fault("restart", d, down_s=5) for d in ("kafka", "minio", "chroma", "e5")]
          + [Fault("outage", d, down_s=s) for s in (60, 120) for d in ("e5", "chroma", "minio")])
ONLY = {p for p in os.environ.get("CHAOS_ONLY", "").split(",") if p}
SELECTED = [f for f in FAULTS if not ONLY or f.program in ONLY]
RUNS: list[FaultRun] = []


@pytest.fixture(scope="module")
def chaos_stack():
    """A stack of its own (ports: the test offset + 700), stopped afterwards."""
    from tests.infra import OFFSET
    s = start_stack(offset=OFFSET + 700)
    yield s
    stop_stack(s)
    print("\n" + table(RUNS))


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    """8 short TXT papers and 2 fixture PDFs with tables (so the parser and the table stage work)."""
    return (small_papers(tmp_path_factory.mktemp("chaos"), "chaos", count=8)
            + [(FIXTURES / "A_詳細數字一覽表.pdf", "token"), (FIXTURES / "E_基礎設施.pdf", "question")])


@pytest.fixture(scope="module")
def reference(chaos_stack: Stack, docs) -> Reference:
    return reference_run(chaos_stack, docs)


@pytest.mark.parametrize("fault", SELECTED, ids=[f"{f.label.replace(' ', '_')}-{i}" for i, f in enumerate(SELECTED)])
def test_fault(chaos_stack: Stack, docs, reference: Reference, fault: Fault):
    seed = os.environ.get("CHAOS_SEED")
    run = run_fault(chaos_stack, docs, fault, reference, random.Random(int(seed)) if seed else None)
    RUNS.append(run)
    print("\n" + table([run]) + f"\n(fault {run.injected_after_s:.1f} s after the first upload; "
          f"reference {reference.seconds:.1f} s; handler retries used {run.retries_used:.0f})")
    assert run.clean, run
    if fault.kind == "outage":
        assert run.retries_used == 0, "an outage used up handler attempts"
