"""``python -m services.splitter``: run the splitter worker (PORT, default 8130: ``make up``'s replica 0)."""
from shared.worker import run

run("services.splitter.main:app", 8130)
