"""deploy/k8s: rendered by kustomize and validated by kubeconform -strict against the Kubernetes
schemas (kubernetes-validate's, of ``K8S_SCHEMA_VERSION`` in scripts/deps.sh) and KEDA's CRD
schemas, offline; then the properties a schema cannot see (every stage has resources, probes and
a PodDisruptionBudget; autoscaling stays within the topics' partitions; no credential is inlined)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared import topics

from deploytools import REPO, Tools, deploy_copy, kubeconform, kustomize_build

STAGES = ("gateway", "query", "parser", "tables", "splitter", "embedder", "e5", "e5-query", "lagexporter")
# metrics-contract job names (deploy/prometheus/k8s.yml takes the job label from prometheus.io/job)
JOBS = {"gateway", "query", "parser", "tables", "splitter", "embedder", "e5", "lagexporter", "minio"}
SCALED = {"tables": (topics.TABLE_PAGES, "tables"), "embedder": (topics.CHUNKED, "embedder")}
CREDENTIAL = re.compile(r"KEY|SECRET|PASSWORD|TOKEN", re.I)


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def workloads(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] in ("Deployment", "StatefulSet")}


def containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj["spec"]["jobTemplate"]["spec"] if obj["kind"] == "CronJob" else obj["spec"]
    return list(spec["template"]["spec"]["containers"])


def test_every_object_passes_kubeconform_strict(tools: Tools, rendered: str, objects: list[dict[str, Any]]) -> None:
    rc, report = kubeconform(tools, rendered)
    print(f"{tools.versions()}: {report['summary']}")
    assert rc == 0, report["resources"]
    s = report["summary"]
    assert (s["invalid"], s["errors"], s["skipped"]) == (0, 0, 0)
    assert s["valid"] == len(objects) >= 50
    kinds = {o["kind"] for o in objects}
    assert {"Deployment", "StatefulSet", "PodDisruptionBudget", "HorizontalPodAutoscaler", "ScaledObject",
            "Secret", "Job"} <= kinds


def _break(objects: list[dict[str, Any]], kind: str, name: str, edit: Any) -> str:
    """The rendered object ``kind``/``name`` after ``edit`` (a copy), as YAML."""
    target = next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)
    broken = yaml.safe_load(yaml.safe_dump(target))
    edit(broken)
    return str(yaml.safe_dump(broken))


def _typo_probe(d: dict[str, Any]) -> None:
    c = d["spec"]["template"]["spec"]["containers"][0]
    c["readinesProbe"] = c.pop("readinessProbe")


def _typo_scaledobject(d: dict[str, Any]) -> None:
    d["spec"]["maxReplicasCount"] = d["spec"].pop("maxReplicaCount")


def _number_as_lag_threshold(d: dict[str, Any]) -> None:
    d["spec"]["triggers"][0]["metadata"]["lagThreshold"] = 20   # KEDA's metadata is a map of strings


def _string_replicas(d: dict[str, Any]) -> None:
    d["spec"]["minReplicas"] = "two"


@pytest.mark.parametrize(("kind", "name", "edit", "path", "message"), [
    ("Deployment", "gateway", _typo_probe, "/spec/template/spec/containers/0", "readinesProbe"),
    ("ScaledObject", "tables", _typo_scaledobject, "/spec", "maxReplicasCount"),
    ("ScaledObject", "embedder", _number_as_lag_threshold, "/spec/triggers/0/metadata/lagThreshold", "string"),
    ("HorizontalPodAutoscaler", "query", _string_replicas, "/spec/minReplicas", "integer"),
])
def test_kubeconform_rejects_a_broken_manifest(tools: Tools, objects: list[dict[str, Any]], kind: str, name: str,
                                                edit: Any, path: str, message: str) -> None:
    rc, report = kubeconform(tools, _break(objects, kind, name, edit))
    assert rc != 0
    assert report["summary"]["invalid"] == 1
    [bad] = report["resources"]
    assert (bad["kind"], bad["name"]) == (kind, name)
    # kubeconform's msg names every failing location ("at '/spec': additional properties 'x' ...")
    assert re.search(rf"at '{re.escape(path)}': [^-]*{message}", bad["msg"]), bad["msg"]


def test_kubeconform_rejects_a_duplicated_key(tools: Tools, objects: list[dict[str, Any]]) -> None:
    """-strict also refuses a key given twice (YAML parsers keep the last one silently)."""
    text = _break(objects, "Deployment", "parser", lambda d: None)
    assert kubeconform(tools, text)[0] == 0
    broken = text.replace("  revisionHistoryLimit: 3\n", "  revisionHistoryLimit: 3\n  revisionHistoryLimit: 4\n", 1)
    assert broken != text
    rc, report = kubeconform(tools, broken)
    assert rc != 0 and report["summary"]["errors"] + report["summary"]["invalid"] == 1


def test_every_stage_has_resources_probes_and_a_disruption_budget(objects: list[dict[str, Any]]) -> None:
    w = workloads(objects)
    assert set(STAGES) <= set(w)
    pdbs = by_kind(objects, "PodDisruptionBudget")
    for name, obj in w.items():
        labels = obj["spec"]["template"]["metadata"]["labels"]
        assert obj["spec"]["selector"]["matchLabels"].items() <= labels.items(), name
        assert obj["spec"]["template"]["spec"]["enableServiceLinks"] is False, name   # no GATEWAY_PORT=tcp://...
        for c in containers(obj):
            for kind in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(c["resources"][kind]), (name, kind)
            assert "readinessProbe" in c and "livenessProbe" in c, name
        covering = [p for p in pdbs.values() if p["spec"]["selector"]["matchLabels"].items() <= labels.items()]
        assert len(covering) == 1, (name, [p["metadata"]["name"] for p in covering])
        assert covering[0]["spec"].get("maxUnavailable") == 1, name


def test_stage_probes_use_the_service_endpoints(objects: list[dict[str, Any]]) -> None:
    """Readiness on /healthz (/health for the e5 servers), liveness on an endpoint the process
    answers itself, both on the port Prometheus scrapes."""
    w = workloads(objects)
    for name in STAGES:
        pod = w[name]["spec"]["template"]
        c = containers(w[name])[0]
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        ready = c["readinessProbe"]["httpGet"]
        assert ready["path"] == ("/health" if name.startswith("e5") else "/healthz"), name
        assert ports[ready["port"]] == int(pod["metadata"]["annotations"]["prometheus.io/port"]), name
        assert c["livenessProbe"]["httpGet"]["path"] in ("/metrics", "/health"), name


def test_gateway_replicas_have_their_own_instance(objects: list[dict[str, Any]]) -> None:
    """GATEWAY_INSTANCE is the pod's name (downward API): never one value shared by replicas."""
    [gw] = containers(workloads(objects)["gateway"])
    env = {e["name"]: e for e in gw["env"]}
    assert env["GATEWAY_INSTANCE"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert "value" not in env["GATEWAY_INSTANCE"]


def _config(objects: list[dict[str, Any]]) -> dict[str, str]:
    return dict(by_kind(objects, "ConfigMap")["legco-config"]["data"])


def _kafka_scaler_keys(scaler_go: Path) -> tuple[set[str], set[str]]:
    """The Kafka scaler's trigger metadata keys (``keda:"name=...,order=triggerMetadata..."``) and
    those of them that may come from the target's environment (``resolvedEnv``: ``<key>FromEnv``)."""
    keys, from_env = set(), set()
    for name, order in re.findall(r'keda:"name=(\w+),order=([\w;]+)', scaler_go.read_text(encoding="utf-8")):
        if "triggerMetadata" in order.split(";"):
            keys.add(name)
            if "resolvedEnv" in order.split(";"):
                from_env.add(name)
    return keys, from_env


def test_tables_and_embedder_scale_on_their_consumer_lag(tools: Tools, objects: list[dict[str, Any]]) -> None:
    cfg = _config(objects)
    keys, from_env = _kafka_scaler_keys(tools.kafka_scaler)
    assert {"bootstrapServers", "consumerGroup", "topic", "lagThreshold"} <= keys   # the parse found the tags
    w = workloads(objects)
    scaled = by_kind(objects, "ScaledObject")
    assert set(scaled) == set(SCALED)
    for name, (topic, group) in SCALED.items():
        so = scaled[name]["spec"]
        assert so["scaleTargetRef"]["name"] == name and "replicas" not in w[name]["spec"]
        partitions = topics.TOPIC_PARTITIONS.get(topic, int(cfg["KAFKA_TOPIC_PARTITIONS"]))
        assert 1 <= so["minReplicaCount"] < so["maxReplicaCount"] <= partitions, name
        [trigger] = so["triggers"]
        meta = trigger["metadata"]
        assert trigger["type"] == "kafka"
        assert (meta["topic"], meta["consumerGroup"]) == (topic, group)
        assert int(meta["lagThreshold"]) >= 1 and meta.get("allowIdleConsumers") == "false"
        allowed = keys | {f"{k}FromEnv" for k in from_env}
        assert set(meta) <= allowed, set(meta) - allowed
        env_name = meta.get("bootstrapServersFromEnv")
        assert env_name in cfg and containers(w[name])[0]["envFrom"] == [{"configMapRef": {"name": "legco-config"}}]


def test_gateway_and_query_scale_on_cpu(objects: list[dict[str, Any]]) -> None:
    hpas = by_kind(objects, "HorizontalPodAutoscaler")
    w = workloads(objects)
    for name in ("gateway", "query"):
        spec = hpas[name]["spec"]
        assert spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}
        assert 2 <= spec["minReplicas"] < spec["maxReplicas"]
        [metric] = spec["metrics"]
        assert metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization"
        assert "replicas" not in w[name]["spec"]   # the HPA owns the count; apply must not reset it
        assert "cpu" in containers(w[name])[0]["resources"]["requests"]


def test_infrastructure_is_stateful_with_volumes(objects: list[dict[str, Any]]) -> None:
    sts = by_kind(objects, "StatefulSet")
    images = {n: containers(s)[0]["image"] for n, s in sts.items()}
    assert images["kafka"] == "apache/kafka:3.9.1"
    assert images["minio"].startswith("minio/minio:") and images["chroma"].startswith("chromadb/chroma:")
    assert images["prometheus"].startswith("prom/prometheus:")
    for name, s in sts.items():
        [claim] = s["spec"]["volumeClaimTemplates"]
        mounts = {m["name"] for m in containers(s)[0]["volumeMounts"]}
        assert claim["metadata"]["name"] in mounts, name
    kafka = sts["kafka"]["spec"]
    env = {e["name"]: e.get("value") for e in containers(sts["kafka"])[0]["env"]}
    voters = env["KAFKA_CONTROLLER_QUORUM_VOTERS"].split(",")
    assert len(voters) == kafka["replicas"] == 3
    assert [v.split("@")[0] for v in voters] == ["0", "1", "2"]   # node id = the pod's ordinal
    assert _config(objects)["KAFKA_BOOTSTRAP"].count("kafka-headless:9092") == 3


def test_no_credential_is_inlined(objects: list[dict[str, Any]]) -> None:
    """Every credential-like variable comes from the generated Secret; its keys are the example's."""
    [secret] = by_kind(objects, "Secret").values()
    assert re.fullmatch(r"legco-secrets-[a-z0-9]{10}", secret["metadata"]["name"])   # kustomize's hash suffix
    example = (REPO / "deploy" / "k8s" / "secrets.env.example").read_text(encoding="utf-8")
    keys = {line.split("=", 1)[0] for line in example.splitlines() if "=" in line and not line.startswith("#")}
    assert set(secret["data"]) == keys
    assert not any(CREDENTIAL.search(k) for k in _config(objects)), "a credential in the ConfigMap"
    referenced: set[str] = set()
    for obj in objects:
        if obj["kind"] not in ("Deployment", "StatefulSet", "Job"):
            continue
        for c in containers(obj):
            for e in c.get("env", []):
                if CREDENTIAL.search(e["name"]):
                    ref = e.get("valueFrom", {}).get("secretKeyRef")
                    assert ref and "value" not in e, (obj["metadata"]["name"], e["name"])
                    assert ref["name"] == secret["metadata"]["name"]   # renamed to the generated Secret
                    referenced.add(ref["key"])
    assert referenced == keys


def test_secrets_file_is_required_and_ignored_by_git(tools: Tools, tmp_path: Path) -> None:
    """Without deploy/k8s/secrets.env the build fails (no fallback credentials), and git ignores it."""
    p = kustomize_build(tools, deploy_copy(tmp_path, secrets=False) / "k8s")
    assert p.returncode != 0 and "secrets.env" in p.stderr
    ignored = subprocess.run(["git", "check-ignore", "-q", "deploy/k8s/secrets.env"], cwd=REPO)
    assert ignored.returncode == 0


def test_prometheus_scrapes_every_stage_by_annotation(objects: list[dict[str, Any]]) -> None:
    """Every stage pod carries the annotations deploy/prometheus/k8s.yml keeps, on a port it serves."""
    w = workloads(objects)
    for name in STAGES:
        pod = w[name]["spec"]["template"]
        ann = pod["metadata"]["annotations"]
        assert ann["prometheus.io/scrape"] == "true" and ann["prometheus.io/path"] == "/metrics"
        assert ann["prometheus.io/job"] in JOBS
        assert int(ann["prometheus.io/port"]) in {p["containerPort"] for p in containers(w[name])[0]["ports"]}
    cm = by_kind(objects, "ConfigMap")
    [prom] = [c for n, c in cm.items() if n.startswith("prometheus-config-")]
    config = yaml.safe_load(prom["data"]["prometheus.yml"])
    assert config["rule_files"] == ["/etc/prometheus/rules.yml"] and "rules.yml" in prom["data"]
    [pods] = [j for j in config["scrape_configs"] if "kubernetes_sd_configs" in j]
    relabel = {tuple(r["source_labels"]): r for r in pods["relabel_configs"]}
    assert relabel[("__meta_kubernetes_pod_annotation_prometheus_io_scrape",)]["action"] == "keep"
    assert relabel[("__meta_kubernetes_pod_annotation_prometheus_io_job",)]["target_label"] == "job"


def test_services_select_pods(objects: list[dict[str, Any]]) -> None:
    labels = [o["spec"]["template"]["metadata"]["labels"] for o in workloads(objects).values()]
    for name, svc in by_kind(objects, "Service").items():
        sel = svc["spec"]["selector"]
        assert any(sel.items() <= lab.items() for lab in labels), name


def _promtool_check(tmp_path: Path, config: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """``promtool check config --syntax-only`` of ``config`` with its ``kubernetes_sd_configs``
    swapped for an empty ``static_configs``: Debian's promtool is built without Kubernetes
    discovery, but it still checks everything else, the relabelling rules included."""
    for job in config["scrape_configs"]:
        if job.pop("kubernetes_sd_configs", None) is not None:
            job["static_configs"] = []
    path = tmp_path / "prometheus.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return subprocess.run(["promtool", "check", "config", "--syntax-only", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_promtool_accepts_the_k8s_prometheus_config(tmp_path: Path) -> None:
    config = yaml.safe_load((REPO / "deploy/prometheus/k8s.yml").read_text(encoding="utf-8"))
    p = _promtool_check(tmp_path, config)
    assert p.returncode == 0, p.stdout + p.stderr
    config["scrape_configs"][1]["relabel_configs"][0]["action"] = "kep"   # must be refused
    assert _promtool_check(tmp_path, config).returncode != 0


def test_only_the_gateway_and_grafana_take_outside_connections(objects: list[dict[str, Any]]) -> None:
    """NetworkPolicies: every pod answers its own namespace; a rule without ``from`` (anyone)
    selects only the gateway and Grafana; Kafka also answers KEDA's namespace."""
    policies = by_kind(objects, "NetworkPolicy")
    assert {"podSelector": {}} in policies["namespace-only"]["spec"]["ingress"][0]["from"]
    assert policies["namespace-only"]["spec"]["podSelector"] == {}
    for name, pol in policies.items():
        for rule in pol["spec"]["ingress"]:
            if "from" not in rule:
                [expr] = pol["spec"]["podSelector"]["matchExpressions"]
                assert (expr["key"], expr["operator"], sorted(expr["values"])) == ("component", "In",
                                                                                   ["gateway", "grafana"]), name
    keda = policies["kafka-from-keda"]["spec"]["ingress"][0]["from"][0]["namespaceSelector"]
    assert keda == {"matchLabels": {"kubernetes.io/metadata.name": "keda"}}
