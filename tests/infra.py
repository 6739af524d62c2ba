"""The real infrastructure for integration and end-to-end tests.

With a Docker engine, Kafka, MinIO and Chroma come from testcontainers and only our services
run as native processes; without one (this machine, CI here) everything runs natively through
``scripts/stack.sh`` on ports shifted by ``LEGCO_TEST_PORT_OFFSET`` (default 10000) and a fresh
``var/test-stack-<offset>``,
so a developer's running ``make up`` is never touched.
"""
from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from shared.settings import Settings, read_credentials
from tests.conftest import REPO

# Port offset of the test stack; parallel developers/CI jobs on one machine pick different ones.
# Keep every port below Linux's ephemeral range (32768+): use offsets up to ~22000, else a
# client's outgoing connection can hold the port the stack wants to listen on.
OFFSET = int(os.environ.get("LEGCO_TEST_PORT_OFFSET", "10000"))


@dataclass
class Stack:
    """Endpoints of a running test stack and the env that points clients at it."""

    gateway_url: str
    env: dict[str, str]
    var: Path
    containers: list = field(default_factory=list)

    @property
    def admin_key(self) -> str:
        """The admin key the stack's bootstrap wrote to ``var/admin.key``."""
        return (self.var / "admin.key").read_text(encoding="utf-8").strip()

    @property
    def prometheus_url(self) -> str:
        """The stack's Prometheus (``scripts/stack.sh``: port 9090 + offset)."""
        return f"http://127.0.0.1:{9090 + int(self.env['PORT_OFFSET'])}"

    def settings(self, **overrides: Any) -> Settings:
        """``Settings`` on this stack's Kafka, MinIO (with its credentials) and Chroma."""
        return Settings(kafka_bootstrap=self.env["KAFKA_BOOTSTRAP"], minio_endpoint=self.env["MINIO_ENDPOINT"],
                        minio_access_key=self.env["MINIO_ACCESS_KEY"], minio_secret_key=self.env["MINIO_SECRET_KEY"],
                        chroma_host=self.env["CHROMA_HOST"], chroma_port=int(self.env["CHROMA_PORT"]),
                        **overrides)

    def auth(self, key: str | None = None) -> dict[str, str]:
        """``Authorization`` header of ``key`` (default: the admin key)."""
        return {"Authorization": f"Bearer {key or self.admin_key}"}

    def client(self, timeout_s: float = 60.0) -> httpx.Client:
        """An HTTP client on this stack's gateway with the admin key (close it, e.g. ``with``)."""
        return httpx.Client(base_url=self.gateway_url, timeout=timeout_s, headers=self.auth())

    def reconfigure(self, extra_env: dict[str, str]) -> None:
        """Re-run ``scripts/stack.sh up`` with ``extra_env`` added to this stack's env (e.g.
        ``VISION_ENABLED``/``VISION_BASE_URL``): supervisord restarts the services whose
        environment changed; Kafka, MinIO and Chroma keep running with their data."""
        self.env.update(extra_env)
        subprocess.run([str(REPO / "scripts" / "stack.sh"), "up"], env={**os.environ, **self.env},
                       check=True, capture_output=True)

    def ports(self, stage: str) -> list[int]:
        """The ``/metrics`` and ``/healthz`` ports of every replica of a worker stage (``parser``,
        ``tables``, ``splitter``, ``embedder``; ``scripts/stack.sh ports``, from the replica
        counts in this stack's env)."""
        return [int(p) for p in self.ctl("ports", stage).split()]

    def ctl(self, *args: str) -> str:
        """Run ``scripts/stack.sh ARGS`` against this stack; returns stdout."""
        return subprocess.run([str(REPO / "scripts" / "stack.sh"), *args], env={**os.environ, **self.env},
                              check=True, capture_output=True, text=True).stdout


def docker_engine() -> bool:
    """True when a Docker engine answers (not just a docker client)."""
    if not shutil.which("docker"):
        return False
    return subprocess.run(["docker", "info"], capture_output=True).returncode == 0


def start_containers(env: dict[str, str]) -> list:
    """Kafka, MinIO and Chroma from testcontainers; fills ``env`` with their endpoints."""
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs
    from testcontainers.kafka import KafkaContainer
    from testcontainers.minio import MinioContainer

    kafka = KafkaContainer("apache/kafka:3.9.1").with_kraft().start()
    user, password = f"legco-{secrets.token_hex(6)}", secrets.token_hex(20)  # never MinIO's defaults
    minio = MinioContainer("minio/minio:RELEASE.2025-02-07T23-21-09Z", access_key=user, secret_key=password).start()
    chroma = DockerContainer("chromadb/chroma:1.0.20").with_exposed_ports(8000).start()
    wait_for_logs(chroma, "Listening on", timeout=60)
    env.update(LEGCO_INFRA="external", KAFKA_BOOTSTRAP=kafka.get_bootstrap_server(),
               MINIO_ENDPOINT=f"{minio.get_container_host_ip()}:{minio.get_exposed_port(9000)}",
               MINIO_ACCESS_KEY=user, MINIO_SECRET_KEY=password,
               CHROMA_HOST=chroma.get_container_host_ip(), CHROMA_PORT=str(chroma.get_exposed_port(8000)))
    return [kafka, minio, chroma]


def kafka_bootstrap(offset: int, brokers: int) -> str:
    """The bootstrap list of a native stack's ``brokers`` Kafka nodes (``scripts/stack.sh``
    ports: node n on 9092 + 2(n-1) + offset)."""
    return ",".join(f"127.0.0.1:{9092 + offset + 2 * n}" for n in range(brokers))


def start_stack(extra_env: dict[str, str] | None = None, offset: int = OFFSET, ups: int = 1) -> Stack:
    """Start a fresh test stack on ports shifted by ``offset`` (its data in
    ``var/test-stack-<offset>``) and wait until every service is healthy; ``extra_env`` e.g.
    ``{"KAFKA_BROKERS": "3"}``. ``ups``: times ``scripts/stack.sh up`` is run while a service is
    not healthy in time (a benchmark on a crowded machine: the services go on starting, and a
    second ``up`` waits for them again); the last failure raises ``CalledProcessError``."""
    var = REPO / "var" / f"test-stack-{offset}"
    env = {"PORT_OFFSET": str(offset), "LEGCO_VAR": str(var), "EMBEDDINGS_BATCH_SIZE": "8",
           "MAX_UPLOAD_BYTES": str(5 * 1024 * 1024),
           "LLM_BASE_URL": "", "LLM_MODEL": "", **(extra_env or {})}
    stop_stack_at(var, env)
    shutil.rmtree(var, ignore_errors=True)
    containers = start_containers(env) if docker_engine() else []
    for attempt in range(1, ups + 1):
        done = subprocess.run([str(REPO / "scripts" / "stack.sh"), "up"], env={**os.environ, **env},
                              check=attempt == ups)
        if done.returncode == 0:
            break
    env.setdefault("KAFKA_BOOTSTRAP", kafka_bootstrap(offset, int(env.get("KAFKA_BROKERS", "1"))))
    env.setdefault("MINIO_ENDPOINT", f"127.0.0.1:{9000 + offset}")
    for name, value in read_credentials(var / "minio.credentials").items():  # what the stack generated
        env.setdefault(name, value)
    env.setdefault("CHROMA_HOST", "127.0.0.1")
    env.setdefault("CHROMA_PORT", str(8000 + offset))
    env.setdefault("EMBEDDINGS_BASE_URL", f"http://127.0.0.1:{8200 + offset}/v1")
    env.setdefault("QUERY_EMBEDDINGS_BASE_URL", f"http://127.0.0.1:{8201 + offset}/v1")
    stack = Stack(gateway_url=f"http://127.0.0.1:{8080 + offset}", env=env, var=var, containers=containers)
    env["LEGCO_API_KEY"] = stack.admin_key  # CLI subprocesses of the tests act as the admin
    return stack


def stop_stack_at(var: Path, env: dict[str, str]) -> None:
    """Stop a test stack left running in ``var`` (e.g. by an interrupted run)."""
    if (var / "supervisor.sock").exists():
        subprocess.run([str(REPO / "scripts" / "stack.sh"), "down"], env={**os.environ, **env},
                       capture_output=True)


def stop_stack(stack: Stack) -> None:
    """Stop the services (and containers) of a test stack."""
    stop_stack_at(stack.var, stack.env)
    for c in stack.containers:
        c.stop()
