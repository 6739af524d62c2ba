"""Prometheus' configuration and alert rules, checked by Prometheus' own ``promtool``
(Debian's package, installed by ``scripts/deps.sh prometheus``)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

PROM = REPO / "deploy" / "prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"


def promtool(*args: str, cwd: Path = PROM) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_rules_pass_promtool_check():
    r = promtool("check", "rules", "rules.yml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS: 4 rules found" in r.stdout


def test_alert_rules_unit_tests():
    """rules.test.yml: each alert fires on its condition and stays quiet on the near misses."""
    r = promtool("test", "rules", "rules.test.yml")
    assert r.returncode == 0, r.stdout + r.stderr


def test_check_rejects_a_broken_rule(tmp_path):
    """The check is a real one: a rule with bad PromQL fails it."""
    bad = (PROM / "rules.yml").read_text(encoding="utf-8").replace("expr: up == 0", "expr: up == == 0")
    (tmp_path / "rules.yml").write_text(bad, encoding="utf-8")
    r = promtool("check", "rules", "rules.yml", cwd=tmp_path)
    assert r.returncode != 0
    assert "parse error" in (r.stdout + r.stderr)


def test_rule_tests_catch_a_wrong_threshold(tmp_path):
    """The unit tests fail when a rule no longer does what they expect (lag threshold raised)."""
    changed = (PROM / "rules.yml").read_text(encoding="utf-8").replace("> 1000", "> 5000")
    (tmp_path / "rules.yml").write_text(changed, encoding="utf-8")
    shutil.copy(PROM / "rules.test.yml", tmp_path / "rules.test.yml")
    r = promtool("test", "rules", "rules.test.yml", cwd=tmp_path)
    assert r.returncode != 0
    assert "LegcoConsumerLagHigh" in r.stdout + r.stderr


@pytest.mark.parametrize("workers", [1, 3])
def test_stack_config_passes_promtool_check_config(tmp_path, workers):
    """The configuration ``scripts/stack.sh`` generates (its targets for every replica) is valid."""
    env = {"PATH": "/usr/bin:/bin", "LEGCO_VAR": str(tmp_path / "var"), "PORT_OFFSET": "23000",
           "VISION_WORKERS": str(workers), "EMBEDDER_WORKERS": str(workers), "LEGCO_CACHE": str(tmp_path / "cache")}
    out = subprocess.run(["bash", str(REPO / "scripts" / "stack.sh"), "prometheus-conf"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    conf = tmp_path / "var" / "prometheus" / "prometheus.yml"
    r = promtool("check", "config", str(conf))
    assert r.returncode == 0, r.stdout + r.stderr
    tables = (tmp_path / "var" / "prometheus" / "targets" / "tables.json").read_text()
    assert tables.count("127.0.0.1:") == workers
    embedder = (tmp_path / "var" / "prometheus" / "targets" / "embedder.json").read_text()
    assert embedder.count("127.0.0.1:") == workers
    jobs = sorted(p.stem for p in (tmp_path / "var" / "prometheus" / "targets").glob("*.json"))
    assert jobs == ["e5", "embedder", "gateway", "lagexporter", "parser", "prometheus", "query", "splitter",
                    "tables"]
