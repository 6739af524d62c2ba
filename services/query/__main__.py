"""``python -m services.query``: run the query service (PORT, default 8104)."""
from shared.worker import run

run("services.query.main:app", 8104)
