"""kbatch's published schema of each custom resource has exactly the fields of the CRD it stands in
for: ``data/crd_field_paths.txt`` lists the CRDs' field paths (derived from the upstream YAMLs named
in its header), and the schemas ``/openapi/v3`` publishes are walked the same way. A field kbatch's
model adds (as the 1.37 Job ``spec.scheduling`` in a JobSet template was) or lacks (as Kueue v1beta1
Cohort's ``status.fairSharing.admissionFairSharingStatus`` was) fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kbatch.server.crd_openapi import is_custom_resource_group
from kbatch.server.facade import ControlPlaneBackend
from kbatch.server.openapi import OpenAPI

LISTED = Path(__file__).resolve().parent / "data" / "crd_field_paths.txt"
# embedded built-in types follow the Kubernetes release the CRD was generated with: not compared
EMBEDDED = re.compile(r"(\.template\.spec\.template\.|podSets\[\]\.template\.|\.metadata\.|"
                      r"templates\[\]\.(spec|status)\.)")


def walk(node: Any, prefix: str, out: set[str]) -> None:
    if not isinstance(node, dict):
        return
    for key in ("allOf", "anyOf", "oneOf"):
        for option in node.get(key) or ():
            walk(option, prefix, out)
    for name, child in (node.get("properties") or {}).items():
        out.add(f"{prefix}.{name}")
        walk(child, f"{prefix}.{name}", out)
    if isinstance(node.get("items"), dict):
        walk(node["items"], prefix + "[]", out)
    if isinstance(node.get("additionalProperties"), dict):
        walk(node["additionalProperties"], prefix + "{}", out)


def listed() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in LISTED.read_text().splitlines():
        if line and not line.startswith("#"):
            gvk, path = line.split(" ", 1)
            out.setdefault(gvk, set()).add(path)
    return out


def published(backend: ControlPlaneBackend) -> dict[str, set[str]]:
    openapi, out = OpenAPI(backend.registry), {}
    for spec in backend.registry.served():
        info = spec.info
        if not is_custom_resource_group(info.group):
            continue
        doc = json.loads(openapi.v3_document(f"apis/{info.group}/{info.version}") or b"{}")
        name = ".".join([*reversed(info.group.split(".")), info.version, info.kind])
        paths: set[str] = set()
        walk(doc["components"]["schemas"][name], "", paths)
        out[f"{info.group}/{info.version}/{info.kind}"] = {
            p[1:] for p in paths if not EMBEDDED.search(p) and not p.startswith(".metadata")}
    return out


def test_every_custom_resource_has_its_crds_fields(backend: ControlPlaneBackend) -> None:
    want, have = listed(), published(backend)
    assert sorted(have) == sorted(want)
    drift = {gvk: {"kbatch only": sorted(have[gvk] - want[gvk]), "crd only": sorted(want[gvk] - have[gvk])}
             for gvk in want if have[gvk] != want[gvk]}
    assert drift == {}
