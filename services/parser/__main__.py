"""``python -m services.parser``: run the parser worker (PORT, default 8120: ``make up``'s replica 0)."""
from shared.worker import run

run("services.parser.main:app", 8120)
