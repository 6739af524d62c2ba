"""``python -m services.embedder``: run the embedder worker (PORT, default 8103)."""
from shared.worker import run

run("services.embedder.main:app", 8103)
