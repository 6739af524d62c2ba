"""``python -m services.rasterizer``: run the rasterizer worker (PORT, default 8105)."""
from shared.worker import run

run("services.rasterizer.main:app", 8105)
