"""``python -m services.tables``: run a table-stage worker (PORT, default 8110)."""
from shared.worker import run

run("services.tables.main:app", 8110)
