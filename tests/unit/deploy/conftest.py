"""Fixtures of the deployment tests: the validators and schemas of ``scripts/deps.sh deploy``
(installed on first use, cached under ``$LEGCO_CACHE/deploy``) and the rendered manifests.

Everything here works offline once the cache is laid: kustomize renders ``deploy/k8s``,
kubeconform validates against the vendored Kubernetes and KEDA schemas, and the Compose file is
checked against the Compose Specification schema with ``jsonschema``.
"""
from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from deploytools import Tools, deploy_copy, install_tools, kustomize_build


@pytest.fixture(scope="session")
def tools() -> Tools:
    """The deployment validators (``scripts/deps.sh deploy``; prints their versions)."""
    t = install_tools()
    print(t.versions())
    return t


@pytest.fixture(scope="session")
def rendered(tools: Tools, tmp_path_factory: pytest.TempPathFactory) -> str:
    """``kustomize build deploy/k8s`` with the example secrets, as one YAML string."""
    k8s = deploy_copy(tmp_path_factory.mktemp("render")) / "k8s"
    p = kustomize_build(tools, k8s)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="session")
def objects(rendered: str) -> list[dict[str, Any]]:
    """The rendered objects, parsed."""
    return [d for d in yaml.safe_load_all(rendered) if d]


@pytest.fixture(scope="session")
def compose_schema(tools: Tools) -> dict[str, Any]:
    """The Compose Specification JSON schema (compose-go's copy)."""
    return json.loads(tools.compose_spec.read_text(encoding="utf-8"))
