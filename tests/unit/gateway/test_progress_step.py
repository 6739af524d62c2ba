"""The gateway's fold of a stage's named step (``ProgressEvent.step``): the splitter's
verification pass is shown while it runs, kept while the stage only waits for a dependency, and
gone with the next event that names no step; events written before the field existed read as
no step."""
from __future__ import annotations

from services.gateway.registry import apply_progress
from shared.api import DocumentRecord
from shared.events import ProgressEvent

DOC = "0" * 32


def _record() -> DocumentRecord:
    return DocumentRecord(document_id=DOC, filename="a.pdf", strategy="question", status="processing",
                          stage="splitting", upload_date="2026-12-01")


def _splitting(**fields: object) -> ProgressEvent:
    return ProgressEvent(document_id=DOC, stage="splitting", status="processing", **fields)  # type: ignore[arg-type]


def test_the_step_is_folded_kept_while_waiting_and_cleared_by_the_next_event() -> None:
    verifying = apply_progress(_record(), _splitting(step="verifying", step_done=3, step_total=7))
    assert (verifying.step, verifying.step_done, verifying.step_total) == ("verifying", 3, 7)
    waiting = apply_progress(verifying, _splitting(waiting_for="MinIO"))
    assert waiting.waiting_for == "MinIO" and (waiting.step, waiting.step_done, waiting.step_total) == (
        "verifying", 3, 7)
    done = apply_progress(waiting, _splitting(pages_done=4, pages_total=4, chunk_count=12))
    assert (done.step, done.step_done, done.step_total) == (None, 0, 0)


def test_an_event_without_the_field_reads_as_no_step() -> None:
    old = {"event_version": 1, "document_id": DOC, "stage": "splitting", "status": "processing",
           "pages_done": 0, "pages_total": 0}
    event = ProgressEvent.model_validate(old)
    assert (event.step, event.step_done, event.step_total) == (None, 0, 0)
    record = DocumentRecord.model_validate(_record().model_dump(exclude={"step", "step_done", "step_total"}))
    assert record.step is None
