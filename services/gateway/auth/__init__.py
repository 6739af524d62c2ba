"""API keys: who is calling, in which department, with which role (``keys.py`` stores them,
``principal.py`` turns a request's ``Authorization`` header into a ``Caller``)."""
