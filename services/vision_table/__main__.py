"""``python -m services.vision_table``: run a vision-table worker (PORT, default 8106)."""
from shared.worker import run

run("services.vision_table.main:app", 8106)
