"""End-to-end tests use the session ``stack`` and ``api`` fixtures of ``tests/conftest.py``."""
