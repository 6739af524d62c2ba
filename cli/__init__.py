"""``legco``: command-line client of the gateway HTTP API (ingest, ask, docs) and an offline
``split`` that runs the parser and splitter code in-process. Entry point: ``cli.main``.
"""
