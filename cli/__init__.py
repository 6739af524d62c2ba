"""``legco``: the command-line application. An HTTP client of the gateway API (``ingest``,
``ask``, ``docs``, ``eval``) and an offline ``split`` that runs the in-process pipeline
(``cli.pipeline``: parser, table and splitter code). Entry point: ``cli.main``.

It sits above ``services/`` and ``shared/``: it may import both, and neither imports it.
"""
