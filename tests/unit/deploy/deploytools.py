"""Helpers of the deployment tests: the validators of ``scripts/deps.sh deploy`` (``Tools``),
rendering and validating ``deploy/k8s``, and the Compose file's variable interpolation."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]
DEPLOY = REPO / "deploy"
CACHE = Path(os.environ.get("LEGCO_CACHE", REPO / ".cache"))


@dataclass(frozen=True)
class Tools:
    """Paths of the validators and schemas (``manifest.json`` of ``scripts/deploy_schemas.py``)."""

    kubeconform: Path
    kustomize: Path
    k8s_version: str
    kubernetes_schemas: Path
    crd_schemas: Path
    kafka_scaler: Path
    compose_spec: Path

    def versions(self) -> str:
        """What ``scripts/deps.sh deploy`` installed (its stamp: ``kubeconform=v0.8.0 kustomize=...``)."""
        return (CACHE / "deploy" / ".stamp").read_text(encoding="utf-8").strip()


def install_tools() -> Tools:
    """The deployment validators, installed by ``scripts/deps.sh deploy`` (a no-op when cached)."""
    subprocess.run(["bash", str(REPO / "scripts" / "deps.sh"), "deploy"], check=True,
                   env={**os.environ, "LEGCO_CACHE": str(CACHE)}, timeout=1800)
    m = json.loads((CACHE / "deploy" / "schemas" / "manifest.json").read_text(encoding="utf-8"))
    bin_dir = CACHE / "deploy" / "bin"
    return Tools(kubeconform=bin_dir / "kubeconform", kustomize=bin_dir / "kustomize", k8s_version=m["k8s_version"],
                 kubernetes_schemas=Path(m["kubernetes"]), crd_schemas=Path(m["crd"]),
                 kafka_scaler=Path(m["kafka_scaler"]), compose_spec=Path(m["compose_spec"]))


def deploy_copy(tmp: Path, *, secrets: bool = True) -> Path:
    """A copy of ``deploy/`` under ``tmp`` (so a test may break it) with ``k8s/secrets.env`` made
    from the committed ``secrets.env.example`` (``secrets=False``: without it); returns the copy."""
    dest = tmp / "deploy"
    shutil.copytree(DEPLOY, dest, ignore=shutil.ignore_patterns("secrets.env"))
    if secrets:
        shutil.copyfile(dest / "k8s" / "secrets.env.example", dest / "k8s" / "secrets.env")
    return dest


def kustomize_build(tools: Tools, k8s_dir: Path) -> subprocess.CompletedProcess[str]:
    """``kustomize build k8s_dir`` (not checked: callers look at ``returncode``)."""
    return subprocess.run([tools.kustomize, "build", str(k8s_dir)], capture_output=True, text=True, timeout=300)


def kubeconform(tools: Tools, manifests: str) -> tuple[int, dict[str, Any]]:
    """Validate a multi-document YAML string with ``kubeconform -strict`` against the vendored
    schemas (Kubernetes first, then the CRDs). Returns kubeconform's exit code and its JSON report:
    ``{"resources": [{"kind", "name", "status", "msg", "validationErrors": [{"path", "msg"}]}, ...]
    (the invalid and errored ones), "summary": {"valid", "invalid", "errors", "skipped"}}``."""
    k8s = (f"{tools.kubernetes_schemas.parent}/{{{{ .NormalizedKubernetesVersion }}}}-local{{{{ .StrictSuffix }}}}/"
           "{{ .ResourceKind }}{{ .KindSuffix }}.json")
    crd = f"{tools.crd_schemas}/{{{{ .Group }}}}/{{{{ .ResourceKind }}}}_{{{{ .ResourceAPIVersion }}}}.json"
    p = subprocess.run([tools.kubeconform, "-strict", "-summary", "-output", "json", "-kubernetes-version",
                        tools.k8s_version, "-schema-location", k8s, "-schema-location", crd, "-"],
                       input=manifests, capture_output=True, text=True, timeout=300)
    return p.returncode, json.loads(p.stdout)


# --- Compose variable interpolation -----------------------------------------------------------

class InterpolationError(ValueError):
    """A ``${VAR:?message}`` / ``${VAR?message}`` whose variable is unset (or empty, with ``:``),
    or an unterminated ``${``: ``docker compose`` refuses the file the same way."""


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _closing_brace(s: str, start: int) -> int:
    """Index of the ``}`` closing the ``${`` whose body starts at ``start`` (nested ``${}`` allowed)."""
    depth = 1
    i = start
    while i < len(s):
        if s.startswith("${", i):
            depth, i = depth + 1, i + 2
            continue
        if s[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise InterpolationError(f"unterminated ${{ in {s!r}")


def _substitute(body: str, env: dict[str, str]) -> str:
    """The value of one ``${body}``: ``NAME``, ``NAME:-default``, ``NAME-default``, ``NAME:?err``,
    ``NAME?err``, ``NAME:+alt``, ``NAME+alt`` (the compose-spec's forms; the word is interpolated too)."""
    m = _NAME.match(body)
    if not m:
        raise InterpolationError(f"invalid variable name in ${{{body}}}")
    name, rest = m.group(), body[m.end():]
    value = env.get(name)
    if not rest:
        return value or ""
    for op in (":-", ":?", ":+", "-", "?", "+"):
        if rest.startswith(op):
            word = interpolate_str(rest[len(op):], env)
            unset = value is None or (op.startswith(":") and value == "")
            if op.endswith("-"):
                return word if unset else str(value)
            if op.endswith("?"):
                if unset:
                    raise InterpolationError(f"{name}: {word}")
                return str(value)
            return "" if unset else word
    raise InterpolationError(f"invalid substitution ${{{body}}}")


def interpolate_str(s: str, env: dict[str, str]) -> str:
    """``s`` with ``$$``, ``$NAME`` and ``${...}`` replaced the way ``docker compose`` does."""
    out: list[str] = []
    i = 0
    while i < len(s):
        if s[i] != "$":
            out.append(s[i])
            i += 1
        elif s.startswith("$$", i):
            out.append("$")
            i += 2
        elif s.startswith("${", i):
            end = _closing_brace(s, i + 2)
            out.append(_substitute(s[i + 2:end], env))
            i = end + 1
        elif m := _NAME.match(s, i + 1):
            out.append(env.get(m.group(), ""))
            i = m.end()
        else:
            out.append("$")
            i += 1
    return "".join(out)


def interpolate(node: Any, env: dict[str, str]) -> Any:
    """Every string value of a loaded Compose file interpolated (keys are not, as in compose)."""
    if isinstance(node, dict):
        return {k: interpolate(v, env) for k, v in node.items()}
    if isinstance(node, list):
        return [interpolate(v, env) for v in node]
    if isinstance(node, str):
        return interpolate_str(node, env)
    return node


COMPOSE_ENV = {"MINIO_ROOT_USER": "legco-test", "MINIO_ROOT_PASSWORD": "x" * 40, "GRAFANA_ADMIN_PASSWORD": "y" * 32}
"""The variables docker-compose.yml requires (``:?``); every other one takes its default."""


def load_compose(env: dict[str, str] | None = None, text: str | None = None) -> dict[str, Any]:
    """``docker-compose.yml`` (or ``text``) loaded (YAML merge keys resolved) and interpolated."""
    raw = yaml.safe_load(text if text is not None else (REPO / "docker-compose.yml").read_text(encoding="utf-8"))
    return dict(interpolate(raw, COMPOSE_ENV if env is None else env))


