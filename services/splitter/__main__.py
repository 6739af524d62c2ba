"""``python -m services.splitter``: run the splitter worker (PORT, default 8102)."""
from shared.worker import run

run("services.splitter.main:app", 8102)
