"""``python -m services.parser``: run the parser worker (PORT, default 8101)."""
from shared.worker import run

run("services.parser.main:app", 8101)
