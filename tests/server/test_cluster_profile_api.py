"""The ClusterProfile kind (multicluster.x-k8s.io/v1alpha1) as kube-apiserver serves its CRD.

Source: kubernetes-sigs/cluster-inventory-api ``config/crd/bases/multicluster.x-k8s.io_clusterprofiles.yaml``:
namespaced, a status subresource, ``spec.clusterManager`` required and immutable, a provider's
``cluster.server`` required, the property lengths. kbatch serves it while Kueue's
``MultiKueueClusterProfile`` gate is on (docs/kueue.md, "ClusterProfiles").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.server.conftest import AppClient
from tests.server.test_crd_field_drift import published

GATE = "MultiKueueClusterProfile=true"
BASE = "/apis/multicluster.x-k8s.io/v1alpha1/namespaces/kueue-system/clusterprofiles"
LISTED = Path(__file__).resolve().parent / "data" / "clusterprofile_field_paths.txt"


@pytest.fixture
def gated() -> ControlPlaneBackend:
    return ControlPlaneBackend(new_control_plane(controllers="garbage-collector", feature_gates=GATE))


@pytest.fixture
def cp_api(gated: ControlPlaneBackend) -> AppClient:
    api = AppClient(KbatchApp(gated))
    api.post("/api/v1/namespaces", json={"metadata": {"name": "kueue-system"}})
    return api


def profile(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ClusterProfile",
            "metadata": {"name": "w1"}, "spec": {"clusterManager": {"name": "m"}, **spec}}


def test_the_published_schema_has_the_crds_fields(gated: ControlPlaneBackend) -> None:
    want = {line for line in LISTED.read_text().splitlines() if line and not line.startswith("#")}
    assert published(gated)["multicluster.x-k8s.io/v1alpha1/ClusterProfile"] == want


def test_served_only_with_the_gate(backend: ControlPlaneBackend, gated: ControlPlaneBackend) -> None:
    def groups(b: ControlPlaneBackend) -> set[str]:
        return {spec.info.group for spec in b.registry.served()}

    assert "multicluster.x-k8s.io" not in groups(backend)
    assert "multicluster.x-k8s.io" in groups(gated)


def test_spec_and_cluster_manager_required(cp_api: AppClient) -> None:
    no_spec = {**profile(), "spec": None}
    reply = cp_api.post(BASE, json=no_spec)
    assert reply.status_code == 422 and "spec: Required value" in reply.json()["message"]
    reply = cp_api.post(BASE, json={**profile(), "spec": {"displayName": "x"}})
    assert reply.status_code == 422 and "spec.clusterManager: Required value" in reply.json()["message"]


def test_cluster_manager_is_immutable(cp_api: AppClient) -> None:
    assert cp_api.post(BASE, json=profile()).status_code == 201
    patch = {"spec": {"clusterManager": {"name": "other"}}}
    reply = cp_api.patch(f"{BASE}/w1", json=patch, headers={"Content-Type": "application/merge-patch+json"})
    assert reply.status_code == 422
    want = 'spec.clusterManager: Invalid value: "object": ClusterManager is immutable'
    assert want in reply.json()["message"]
    reply = cp_api.patch(f"{BASE}/w1", json={"spec": {"displayName": "renamed"}},
                         headers={"Content-Type": "application/merge-patch+json"})
    assert reply.status_code == 200


def test_status_subresource_and_its_schema(cp_api: AppClient) -> None:
    created = cp_api.post(BASE, json={**profile(), "status": {"accessProviders": [{"name": "p"}]}})
    assert created.status_code == 201 and "status" not in created.json()  # the status is the subresource's
    merge = {"Content-Type": "application/merge-patch+json"}
    bad = {"status": {"accessProviders": [{"name": "p", "cluster": {"certificate-authority-data": "Y2E="}}]}}
    reply = cp_api.patch(f"{BASE}/w1/status", json=bad, headers=merge)
    assert reply.status_code == 422
    assert "status.accessProviders[0].cluster.server: Required value" in reply.json()["message"]
    good = {"status": {"accessProviders": [{"name": "p", "cluster": {"server": "https://w:6443"}}],
                       "properties": [{"name": "region", "value": "eu"}]}}
    reply = cp_api.patch(f"{BASE}/w1/status", json=good, headers=merge)
    assert reply.status_code == 200, reply.text
    assert reply.json()["status"]["accessProviders"] == [{"name": "p", "cluster": {"server": "https://w:6443"}}]
    long = {"status": {"properties": [{"name": "n" * 254, "value": "v"}]}}
    reply = cp_api.patch(f"{BASE}/w1/status", json=long, headers=merge)
    assert reply.status_code == 422 and "Too long" in reply.json()["message"]
