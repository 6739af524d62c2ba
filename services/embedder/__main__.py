"""``python -m services.embedder``: run the embedder worker (PORT, default 8140: ``make up``'s replica 0)."""
from shared.worker import run

run("services.embedder.main:app", 8140)
