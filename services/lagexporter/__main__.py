"""``python -m services.lagexporter``: run the consumer-lag exporter (PORT, default 8105)."""
from shared.worker import run

run("services.lagexporter.main:app", 8105)
