"""Lay out the JSON schemas the deployment validators read offline (``scripts/deps.sh deploy``).

Usage::

    python scripts/deploy_schemas.py --k8s-wheel WHEEL --k8s-version 1.33.0 \\
        --keda-dir KEDA_MODULE_DIR --compose-dir COMPOSE_GO_MODULE_DIR --out DIR

Writes under ``DIR``:

* ``kubernetes/v{VERSION}-local-strict/{kind}-{group}-{version}.json``: the strict schemas of
  Kubernetes ``VERSION`` from the ``kubernetes-validate`` wheel (PyPI), laid out the way
  kubeconform's ``-schema-location`` template names them. The wheel's files refer to their shared
  definitions as ``/api/_definitions.json`` under an ``https://kubernetes.io`` ``$id``; both are
  rewritten to the sibling file ``_definitions.json`` so the refs resolve on disk.
* ``crd/{group}/{kind}_{version}.json``: every CustomResourceDefinition version of KEDA's
  ``config/crd/bases/*.yaml`` (the Go module ``github.com/kedacore/keda/v2``) as a JSON schema,
  the way openapi2jsonschema converts CRDs: ``apiVersion`` and ``kind`` pinned, and in strict
  form every object with ``properties`` closed (``additionalProperties: false``) unless it says
  ``x-kubernetes-preserve-unknown-fields``; ``x-kubernetes-int-or-string`` becomes
  integer-or-string, ``nullable`` adds ``null``.
* ``keda/kafka_scaler.go``: KEDA's Kafka scaler source, whose ``keda:"name=..."`` struct tags are
  the trigger's metadata keys (the tests check the ScaledObjects' keys against them).
* ``compose-spec.json``: the Compose Specification schema that compose-go (the loader of
  ``docker compose``) validates with (the Go module ``github.com/compose-spec/compose-go/v2``).
* ``manifest.json``: ``{"k8s_version", "kubernetes", "crd", "kafka_scaler", "compose_spec"}`` (paths).

Errors: exits non-zero (an exception) when an input is missing or not of the expected form.
"""
from __future__ import annotations

import argparse
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import yaml

WHEEL_ROOT = "kubernetes_validate/kubernetes-json-schema"


def _local_refs(node: Any) -> Any:
    """``node`` with ``$ref`` strings pointing at ``_definitions.json`` beside the file and the
    schemas' ``$id`` strings dropped (a property that is *named* ``$ref`` or ``$id`` in
    JSONSchemaProps is a dict and is kept)."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$id" and isinstance(value, str):
                continue
            if key == "$ref" and isinstance(value, str):
                out[key] = value.replace("/api/_definitions.json", "_definitions.json")
            else:
                out[key] = _local_refs(value)
        return out
    if isinstance(node, list):
        return [_local_refs(v) for v in node]
    return node


def kubernetes_schemas(wheel: Path, version: str, out: Path) -> Path:
    """Extract and rewrite the strict schemas of ``version`` (e.g. ``1.33.0``); returns their folder."""
    folder = f"v{version}-local-strict"
    dest = out / "kubernetes" / folder
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    prefix = f"{WHEEL_ROOT}/{folder}/"
    n = 0
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(prefix) and name.endswith(".json"):
                schema = json.loads(z.read(name))
                (dest / name[len(prefix):]).write_text(json.dumps(_local_refs(schema)), encoding="utf-8")
                n += 1
    if n == 0:
        raise SystemExit(f"{wheel} has no schemas for Kubernetes {version} ({prefix})")
    return dest


def _strict(node: Any) -> Any:
    """openapi2jsonschema's strict form of a CRD's OpenAPI v3 schema (see the module docstring)."""
    if isinstance(node, list):
        return [_strict(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items()}
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.pop("nullable", False) is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    preserve = out.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    return out


def crd_schemas(crd_dir: Path, out: Path) -> Path:
    """Every served version of every CRD in ``crd_dir`` as ``crd/{group}/{kind}_{version}.json``."""
    dest = out / "crd"
    for crd_file in sorted(crd_dir.glob("*.yaml")):
        crd = yaml.safe_load(crd_file.read_text(encoding="utf-8"))
        spec = crd["spec"]
        group, kind = spec["group"], spec["names"]["kind"]
        for v in spec["versions"]:
            schema = _strict(v["schema"]["openAPIV3Schema"])
            props = schema.setdefault("properties", {})
            props["apiVersion"] = {"type": "string", "enum": [f"{group}/{v['name']}"]}
            props["kind"] = {"type": "string", "enum": [kind]}
            schema["$schema"] = "http://json-schema.org/draft-04/schema#"
            target = dest / group / f"{kind.lower()}_{v['name']}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(schema, indent=1), encoding="utf-8")
    if not any(dest.rglob("*.json")):
        raise SystemExit(f"no CustomResourceDefinitions in {crd_dir}")
    return dest


def main() -> None:
    """Entry point (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--k8s-wheel", type=Path, required=True)
    p.add_argument("--k8s-version", required=True)
    p.add_argument("--keda-dir", type=Path, required=True)
    p.add_argument("--compose-dir", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    k8s = kubernetes_schemas(a.k8s_wheel, a.k8s_version, a.out)
    crd = crd_schemas(a.keda_dir / "config" / "crd" / "bases", a.out)
    (a.out / "keda").mkdir(exist_ok=True)
    scaler = a.out / "keda" / "kafka_scaler.go"
    shutil.copyfile(a.keda_dir / "pkg" / "scalers" / "kafka_scaler.go", scaler)
    compose = a.out / "compose-spec.json"
    shutil.copyfile(a.compose_dir / "schema" / "compose-spec.json", compose)
    manifest = {"k8s_version": a.k8s_version, "kubernetes": str(k8s), "crd": str(crd),
                "kafka_scaler": str(scaler), "compose_spec": str(compose)}
    (a.out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
