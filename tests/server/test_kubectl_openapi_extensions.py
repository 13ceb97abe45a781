"""The ``x-kubernetes-*`` list, map and patch extensions of the served OpenAPI v3 documents, and what
the real kubectl does with them.

Where upstream puts them: kubernetes ``api/openapi-spec/v3/apis__batch__v1_openapi.json`` (and the
core, meta documents) carries each on the property of the field whose Go type has the marker or tag
(kube-openapi ``pkg/generators/extension.go``), a struct's ``+structType`` on its own schema. What
kubectl does: ``kubectl apply`` computes its strategic merge patch from the v3 document when the
kind's PATCH operation accepts ``application/strategic-merge-patch+json`` (k8s.io/kubectl
``pkg/cmd/apply/patcher.go`` ``gvkSupportsPatchOpenAPIV3``; a real kube-apiserver's documents list
it for every built-in kind), reading ``x-kubernetes-patch-strategy``/``-patch-merge-key``
(apimachinery ``strategicpatch.PatchMetaFromOpenAPIV3``); for a custom resource (no strategic merge
listed, as a CRD's document) it logs that V3 does not support it and sends a JSON merge patch.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.apiserver.strategic import MERGE_KEYS
from kbatch.server.app import KbatchApp
from kbatch.server.crd_openapi import DECLARED, node_at
from kbatch.server.facade import ControlPlaneBackend
from kbatch.server.openapi import OpenAPI
from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

SMP = "application/strategic-merge-patch+json"
ROOT = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror")

# (document, schema, property, the extensions upstream's v3 document gives it): read from kubernetes
# api/openapi-spec/v3/apis__batch__v1_openapi.json and api__v1_openapi.json
UPSTREAM = [
    ("apis/batch/v1", "JobStatus", "conditions", {
        "x-kubernetes-list-type": "atomic", "x-kubernetes-patch-merge-key": "type",
        "x-kubernetes-patch-strategy": "merge"}),
    ("apis/batch/v1", "CronJobStatus", "active", {"x-kubernetes-list-type": "atomic"}),
    ("apis/batch/v1", "PodSpec", "containers", {
        "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}),
    ("apis/batch/v1", "PodSpec", "volumes", {
        "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge,retainKeys"}),
    ("apis/batch/v1", "PodSpec", "tolerations", {"x-kubernetes-list-type": "atomic"}),
    ("apis/batch/v1", "PodSpec", "nodeSelector", {"x-kubernetes-map-type": "atomic"}),
    ("apis/batch/v1", "Container", "ports", {
        "x-kubernetes-list-map-keys": ["containerPort", "protocol"], "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "containerPort", "x-kubernetes-patch-strategy": "merge"}),
    ("apis/batch/v1", "ObjectMeta", "ownerReferences", {
        "x-kubernetes-list-map-keys": ["uid"], "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "uid", "x-kubernetes-patch-strategy": "merge"}),
    ("apis/batch/v1", "ObjectMeta", "finalizers", {
        "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge"}),
    ("apis/batch/v1", "Capabilities", "drop", {"x-kubernetes-list-type": "atomic"}),
    ("api/v1", "NodeSpec", "podCIDRs", {
        "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge"}),
]


@pytest.fixture(scope="module")
def documents(backend: ControlPlaneBackend) -> dict[str, dict[str, Any]]:
    openapi = OpenAPI(KbatchApp(backend).backend.registry)
    return {gv: json.loads(openapi.v3_document(gv) or b"{}") for gv in ("api/v1", "apis/batch/v1",
                                                                       "apis/kueue.x-k8s.io/v1beta2")}


@pytest.fixture(scope="module")
def backend() -> ControlPlaneBackend:
    from kbatch.server.facade import new_control_plane
    return ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))


@pytest.mark.parametrize(("gv", "schema", "prop", "expected"), UPSTREAM,
                         ids=[f"{s}.{p}" for _, s, p, _ in UPSTREAM])
def test_extensions_sit_where_upstream_puts_them(documents: dict[str, Any], gv: str, schema: str,
                                                 prop: str, expected: dict[str, Any]) -> None:
    node = documents[gv]["components"]["schemas"][schema]["properties"][prop]
    assert {k: v for k, v in node.items() if k.startswith("x-kubernetes-")} == expected


def test_a_struct_type_atomic_sits_on_the_struct(documents: dict[str, Any]) -> None:
    schemas = documents["apis/batch/v1"]["components"]["schemas"]
    assert schemas["LocalObjectReference"]["x-kubernetes-map-type"] == "atomic"
    assert schemas["ConfigMapKeySelector"]["x-kubernetes-map-type"] == "atomic"
    assert "x-kubernetes-map-type" not in schemas["PodSpec"]


def _merge_keys(node: Any, out: dict[str, str]) -> None:
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if isinstance(prop, dict) and "x-kubernetes-patch-merge-key" in prop:
                out[name] = prop["x-kubernetes-patch-merge-key"]
        for value in node.values():
            _merge_keys(value, out)
    elif isinstance(node, list):
        for value in node:
            _merge_keys(value, out)


def test_merge_keys_agree_with_the_strategic_merge_table(documents: dict[str, Any]) -> None:
    """One source of truth: every merge key the documents advertise is the one the server merges on."""
    found: dict[str, str] = {}
    _merge_keys(documents["api/v1"], found)
    _merge_keys(documents["apis/batch/v1"], found)
    table = {(field, key) for (_, field), key in MERGE_KEYS.items()}
    assert found and not {item for item in found.items() if item not in table}


def test_patch_content_types(documents: dict[str, Any]) -> None:
    def patch_types(gv: str, plural: str) -> set[str]:
        path = next(p for p in documents[gv]["paths"] if p.endswith(f"/{plural}/{{name}}"))
        return set(documents[gv]["paths"][path]["patch"]["requestBody"]["content"])
    assert SMP in patch_types("apis/batch/v1", "jobs")
    assert SMP not in patch_types("apis/kueue.x-k8s.io/v1beta2", "localqueues")
    assert "application/apply-patch+yaml" in patch_types("apis/kueue.x-k8s.io/v1beta2", "localqueues")


TEMPLATE = """apiVersion: v1
kind: PodTemplate
metadata: {name: ext-template}
template:
  spec:
    containers:
    - {name: a, image: busybox, env: [{name: X, value: "%s"}, {name: Z, value: "1"}]}
    - {name: b, image: busybox}
"""
_NO_V3 = "OpenAPI V3 path does not support strategic merge patch"


def _patch_request(stderr: str) -> tuple[str, str]:
    """(content type, body) of the PATCH kubectl -v=8 logged."""
    body = re.findall(r'helper.go:\d+\] "Request Body" body="(.*)"$', stderr, re.M)
    types = re.findall(r"Content-Type: (application/[\w+-]+)", stderr)
    patched = [t for t in types if "patch" in t]
    return (patched[-1] if patched else ""), (body[-1].encode().decode("unicode_escape") if body else "")


def test_kubectl_apply_computes_its_patch_from_the_v3_extensions(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=TEMPLATE % "1")
    out = kubectl(served, "apply", "-f", "-", "-v=8", input_=TEMPLATE % "2")
    assert _NO_V3 not in out.stderr and "error calculating patch" not in out.stderr
    content_type, body = _patch_request(out.stderr)
    assert content_type == SMP
    # merged on the keys the document gives (x-kubernetes-patch-merge-key): the order directives
    # kubectl writes only for a list it merges on a key
    assert '"$setElementOrder/containers":[{"name":"a"},{"name":"b"}]' in body, body
    assert '"$setElementOrder/env":[{"name":"X"},{"name":"Z"}]' in body, body
    template = json.loads(kubectl(served, "get", "podtemplate", "ext-template", "-o", "json").stdout)
    env = template["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "X", "value": "2"}, {"name": "Z", "value": "1"}]


def test_kubectl_apply_of_a_custom_resource_sends_a_json_merge_patch(served: Any) -> None:
    flavor = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
              "metadata: {name: ext-flavor, labels: {a: '%s'}}\n")
    kubectl(served, "apply", "-f", "-", input_=flavor % "1")
    out = kubectl(served, "apply", "-f", "-", "-v=8", input_=flavor % "2")
    assert _NO_V3 in out.stderr
    assert _patch_request(out.stderr)[0] == "application/merge-patch+json"


def test_kubectl_server_side_apply_is_unaffected(served: Any) -> None:
    text = TEMPLATE.replace("ext-template", "ext-ssa")
    kubectl(served, "apply", "--server-side", "-f", "-", input_=text % "1")
    out = kubectl(served, "apply", "--server-side", "-f", "-", input_=text % "3")
    assert out.stdout.strip() == "podtemplate/ext-ssa serverside-applied"
    template = json.loads(kubectl(served, "get", "podtemplate", "ext-ssa", "-o", "json").stdout)
    assert template["template"]["spec"]["containers"][0]["env"][0] == {"name": "X", "value": "3"}


# ---- custom resources: the extensions their CRDs declare (kbatch/server/crd_extensions.json) ----

def test_a_crds_declared_extensions_are_published(documents: dict[str, Any]) -> None:
    """kueue v0.19.2 config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml."""
    schemas = documents["apis/kueue.x-k8s.io/v1beta2"]["components"]["schemas"]
    schema = schemas["io.x-k8s.kueue.v1beta2.ClusterQueue"]
    flavors = node_at(schema, "spec.resourceGroups[].flavors")
    assert flavors is not None and flavors["x-kubernetes-list-type"] == "map"
    assert flavors["x-kubernetes-list-map-keys"] == ["name"]
    assert node_at(schema, "spec.resourceGroups")["x-kubernetes-list-type"] == "atomic"  # type: ignore[index]
    assert node_at(schema, "spec.namespaceSelector")["x-kubernetes-map-type"] == "atomic"  # type: ignore[index]
    assert not any(k.startswith("x-kubernetes-patch") for k in json.dumps(schema).split('"'))


def test_every_declared_extension_kbatch_has_the_field_for(backend: ControlPlaneBackend) -> None:
    """Each path a CRD declares extensions on carries them, unless kbatch's model lacks the field:
    only volume sources kbatch does not model (cephfs, cinder, ...) in embedded pod templates."""
    openapi = OpenAPI(backend.registry)
    served = {f"{s.info.group}/{s.info.version}/{s.info.kind}" for s in backend.registry.served()}
    lacking = []
    for gvk, paths in DECLARED.items():
        if gvk not in served:
            continue
        group, version, kind = gvk.split("/")
        doc = json.loads(openapi.v3_document(f"apis/{group}/{version}") or b"{}")
        schema = doc["components"]["schemas"][".".join([*reversed(group.split(".")), version, kind])]
        for path, extensions in paths.items():
            node = node_at(schema, path)
            if node is None:
                lacking.append(path)
            else:
                assert {k: node[k] for k in extensions if k in node} == extensions, (gvk, path)
    assert lacking and not [p for p in lacking if ".volumes[]." not in p]


def test_no_component_without_a_name(documents: dict[str, Any]) -> None:
    """The kind's schema was also published under the key "" (a dict built before its pop)."""
    assert "" not in documents["apis/kueue.x-k8s.io/v1beta2"]["components"]["schemas"]


def test_generated_crd_extensions_are_current() -> None:
    """Regenerating the table from the upstream CRDs gives the stored one (where the mirrors are here:
    a clean machine has none, or only some, so the check skips rather than fails on a missing tag)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_crd_extensions import OUT, generate, missing
    finally:
        sys.path.pop(0)
    absent = missing(MIRROR)
    if absent:
        pytest.skip(f"no mirror of {', '.join(absent)}")
    fresh = generate(MIRROR)
    stored = json.loads(OUT.read_text())
    if fresh["source"] != stored["source"]:
        pytest.skip("a mirror moved since the table was generated")
    assert fresh == stored
