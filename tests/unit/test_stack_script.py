"""``scripts/stack.sh``'s replica counts: ``stage_ports`` (``stack.sh ports STAGE``) lists every
replica's port, and counts it cannot serve are refused before anything starts."""
from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import REPO

STACK = str(REPO / "scripts" / "stack.sh")


def clean_env(**env: str) -> dict[str, str]:
    """This process's environment without replica counts or an offset, plus ``env``."""
    base = {k: v for k, v in os.environ.items()
            if not k.endswith("_WORKERS") and k not in ("PORT_OFFSET", "KAFKA_TOPIC_PARTITIONS")}
    return {**base, **env}


@pytest.mark.parametrize(("env", "message"), [
    ({"EMBEDDER_WORKERS": "11"}, "EMBEDDER_WORKERS must be 1..10"),
    ({"PARSER_WORKERS": "0"}, "PARSER_WORKERS must be 1..10"),
    ({"SPLITTER_WORKERS": "8", "KAFKA_TOPIC_PARTITIONS": "6"}, "more than the topics' 6 partitions"),
    ({"VISION_WORKERS": "2", "TABLES_WORKERS": "3"}, "differ"),
])
def test_stack_refuses_replica_counts_it_cannot_serve(env: dict[str, str], message: str) -> None:
    r = subprocess.run(["bash", STACK, "ports", "parser"], env=clean_env(**env),
                       capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr, (r.returncode, r.stderr)


def test_stage_ports_lists_every_replica() -> None:
    env = clean_env(PORT_OFFSET="1000", VISION_WORKERS="3", EMBEDDER_WORKERS="2")
    ports = {stage: subprocess.run(["bash", STACK, "ports", stage], env=env,
                                   capture_output=True, text=True, check=True).stdout.split()
             for stage in ("parser", "tables", "vision", "splitter", "embedder", "gateway", "query")}
    assert ports == {"parser": ["9120"], "tables": ["9110", "9111", "9112"], "vision": ["9110", "9111", "9112"],
                     "splitter": ["9130"], "embedder": ["9140", "9141"], "gateway": ["9080"], "query": ["9104"]}
