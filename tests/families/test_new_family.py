"""A new family is one registration: its kind is served with its strategy, printer, describer and GC
policy; its create-only review is served from its declaration; its admission plugin runs whatever
controllers run; its controller and scheduler plugin run;
its feature gate is known to ``--feature-gates``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from example_family import EXAMPLE, GATE, Gizmo

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.features import FeatureGateError
from kbatch.families import BUILTIN_FAMILIES
from kbatch.server.table import build_table
from kbatch.sim import NodeTemplate, create_nodes

FAMILIES = (*BUILTIN_FAMILIES, EXAMPLE)
GIZMO = "{apiVersion: example.kbatch.io/v1, kind: Gizmo, metadata: {name: g}, spec: {avoidNode: node-0}}"


def test_the_kind_is_served_with_its_strategy_printer_and_gc_policy() -> None:
    cp = ControlPlane(families=FAMILIES, controllers="")
    cp.apply(GIZMO)
    spec = cp.registry.for_name("gz")
    assert spec.model is Gizmo and spec.gc_policy == "Foreground"
    obj = cp.client.get(Gizmo, "g", "default").to_dict()
    table = build_table([obj], spec.table_printer, cp.now())
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Avoid", "Age"]
    assert table["rows"][0]["cells"][:2] == ["g", "node-0"]
    assert spec.describe is not None and spec.describe(obj) == [("Avoid Node", "node-0")]
    with pytest.raises(Invalid, match=r"spec\.size: Invalid value: 0: must be positive"):
        cp.apply("{apiVersion: example.kbatch.io/v1, kind: Gizmo, metadata: {name: bad}, spec: {size: 0}}")


def test_its_admission_plugin_runs_without_its_controller_and_can_be_disabled() -> None:
    """Admission is the API server's: it runs with no controller at all (upstream webhooks run in the
    apiserver path whatever controller-manager runs), and --disable-admission-plugins turns it off."""
    cp = ControlPlane(families=FAMILIES, controllers="")
    cp.apply(GIZMO)
    assert cp.client.get(Gizmo, "g", "default").metadata.labels == {"example.kbatch.io/admitted": "true"}
    off = ControlPlane(families=FAMILIES, controllers="", disable_admission_plugins="GizmoLabels")
    off.apply(GIZMO)
    assert off.client.get(Gizmo, "g", "default").metadata.labels is None
    assert "GizmoLabels" in cp.server.admission_plugins and "GizmoLabels" not in off.server.admission_plugins


def test_its_controller_is_selected_by_name() -> None:
    cp = ControlPlane(families=FAMILIES, controllers="gizmo")
    cp.apply(GIZMO)
    assert cp.client.get(Gizmo, "g", "default").status.seen is True
    assert cp.enabled == ["gizmo"]


@pytest.mark.parametrize("gates", ["", f"{GATE}=true"])
def test_its_scheduler_plugin_joins_the_default_profile_behind_its_gate(gates: str) -> None:
    cp = ControlPlane(families=FAMILIES, controllers="scheduler", feature_gates=gates)
    create_nodes(cp, 1, NodeTemplate())
    cp.apply("{apiVersion: v1, kind: Pod, metadata: {name: p, labels: {avoid: node-0}}, "
             "spec: {containers: [{name: c, image: busybox}]}}")
    pod = cp.client.get(Pod, "p", "default")
    assert cp.features.enabled(GATE) is bool(gates)
    if not gates:  # the plugin is in the profile but its gate is off: it avoids nothing
        assert pod.spec.node_name == "node-0"
        return
    assert not pod.spec.node_name
    scheduled = next(c for c in pod.status.conditions if c.type == "PodScheduled")
    assert scheduled.message == "0/1 nodes are available: 1 node(s) avoided. preemption: 0/1 nodes are " \
        "available: 1 Preemption is not helpful for scheduling."


def test_an_unknown_or_locked_gate_is_refused() -> None:
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: NoSuchGate"):
        ControlPlane(families=FAMILIES, feature_gates="NoSuchGate=true")
    with pytest.raises(FeatureGateError, match="cannot set feature gate JobManagedBy to false, feature is "
                                               "locked to true"):
        ControlPlane(feature_gates="JobManagedBy=false")
    with pytest.raises(FeatureGateError, match=f"unrecognized feature gate: {GATE}"):
        ControlPlane(feature_gates=f"{GATE}=true")  # the family is not composed: its gate is unknown


def _http(cp: ControlPlane) -> Any:
    from kbatch.server.app import KbatchApp
    from kbatch.server.facade import ControlPlaneBackend

    app = KbatchApp(ControlPlaneBackend(cp))

    def call(method: str, path: str, **kwargs: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://k") as c:
                return await c.request(method, path, **kwargs)

        return asyncio.run(go())

    return call


REVIEWS = "/apis/example.kbatch.io/v1/namespaces/default/gizmoreviews"
ASK = {"apiVersion": "example.kbatch.io/v1", "kind": "GizmoReview", "spec": {"name": "g"}}


def test_its_create_only_review_is_served_from_the_declaration() -> None:
    """The virtual resource is in legacy and aggregated discovery and OpenAPI, routed as upstream's
    installer routes a ``Creater`` (POST only), decided by RBAC like any resource, answered by its
    handler and never stored."""
    from kbatch.server.aggregated_discovery import CONTENT_TYPE

    cp = ControlPlane(families=FAMILIES, controllers="")
    cp.apply(GIZMO)
    http = _http(cp)
    listed = {r["name"]: r for r in http("GET", "/apis/example.kbatch.io/v1").json()["resources"]}
    assert listed["gizmoreviews"] == {"name": "gizmoreviews", "singularName": "gizmoreview",
                                      "namespaced": True, "kind": "GizmoReview", "verbs": ["create"]}
    groups = http("GET", "/apis", headers={"accept": CONTENT_TYPE}).json()["items"]
    example = next(g for g in groups if g["metadata"]["name"] == "example.kbatch.io")
    assert [r["resource"] for r in example["versions"][0]["resources"]] == ["gizmos", "gizmoreviews"]
    paths = json.loads(http("GET", "/openapi/v3/apis/example.kbatch.io/v1").content)["paths"]
    assert list(paths[REVIEWS.replace("default", "{namespace}")]) == ["post"]
    revision = cp.store.revision
    out = http("POST", REVIEWS, json=ASK)
    assert (out.status_code, out.json()["status"]) == (201, {"exists": True, "askedBy": "kubernetes-admin"})
    assert http("POST", REVIEWS.replace("default", "other"), json=ASK).json()["status"]["exists"] is False
    assert cp.store.revision == revision  # answered, never stored
    assert http("GET", REVIEWS).status_code == 405
    assert http("GET", f"{REVIEWS}/x").status_code == 404
    assert http("POST", "/apis/example.kbatch.io/v1/gizmoreviews", json=ASK).status_code == 404
    denied = http("POST", REVIEWS, json=ASK, headers={"impersonate-user": "jane"})
    assert denied.status_code == 403 and denied.json()["message"] == (
        'gizmoreviews.example.kbatch.io is forbidden: User "jane" cannot create resource "gizmoreviews" in '
        'API group "example.kbatch.io" in the namespace "default"')
    bad = http("POST", REVIEWS, json={"spec": {}})
    assert (bad.status_code, bad.json()["message"]) == (400, "spec.name is required")
    without = _http(ControlPlane(controllers=""))
    assert without("POST", REVIEWS, json=ASK).text == "404 page not found\n"
