"""The smallest version of the fault matrix (``tests/faults.py``; the whole matrix is
``make chaos``): 10 short papers, one embedder kill -9 mid-ingest, against a fault-free reference
run of the same papers: 0 lost, 0 duplicated, 0 stuck, no dead letter, the keyword index holding
what Chroma holds. Chroma going down mid-ingest is ``test_outage_e2e.py`` (20 s, longer than this
matrix's 5 s restart, which stays in ``make chaos``), to keep ``make test`` under 30 minutes."""
from __future__ import annotations

import random

import pytest

from tests.faults import Fault, Reference, reference_run, run_fault, small_papers, table
from tests.infra import Stack


@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    return small_papers(tmp_path_factory.mktemp("faults"), "fault_matrix")


@pytest.fixture(scope="module")
def reference(stack: Stack, papers) -> Reference:
    return reference_run(stack, papers)


@pytest.mark.parametrize("fault", [Fault("kill", "embedder")],
                         ids=lambda f: f.label.replace(" ", "_"))
def test_a_fault_mid_ingest_loses_duplicates_and_strands_nothing(stack: Stack, papers, reference: Reference,
                                                                  fault: Fault):
    run = run_fault(stack, papers, fault, reference, random.Random(7))
    print("\n" + table([run]) + f"\n(reference run {reference.seconds:.1f} s; fault {run.injected_after_s:.1f} s "
          f"after the first upload; handler retries used {run.retries_used:.0f})")
    assert run.clean, run
