"""Common code of the LegCo briefing assistant: event models, topic names, settings,
clients for Kafka, MinIO, ChromaDB and the embeddings endpoint, and metrics helpers.

Every service under ``services/`` imports from here; nothing here imports a service.
"""
