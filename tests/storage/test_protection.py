"""StorageObjectInUseProtection and the pvc-protection / pv-protection controllers, in virtual time.

Upstream: ``plugin/pkg/admission/storage/storageobjectinuseprotection`` (finalizers on create) and
``pkg/controller/volume/pvcprotection`` (``podUsesPVC``: a *scheduled* pod naming the claim uses it,
whatever its phase; an ephemeral claim is released once its pod is shut down),
``pkg/controller/volume/pvprotection`` (``isBeingUsed``: phase Bound). Cases after
``pvc_protection_controller_test.go`` ``TestPVCProtectionController`` ("deleted PVC with finalizer +
pod with the PVC exists -> finalizer is not removed", "... + pod with the PVC finished but is not
deleted -> finalizer is not removed", "... + unscheduled pod -> finalizer is removed", "PVC without
finalizer -> finalizer is added") and ``pv_protection_controller_test.go``."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import NotFound
from kbatch.controllers.storage.protection import finalizers_after
from kbatch.sim import NodeTemplate, create_nodes

PVC = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
       "metadata": {"name": "data", "namespace": "default"},
       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
PV = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
      "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}}}


def pod(command: str = "sleep 300", node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", command],
         "resources": {"requests": {"cpu": "100m"}}}],
        "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}
    if node:
        spec["nodeSelector"] = {"kubernetes.io/hostname": node}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user", "namespace": "default"},
            "spec": spec}


def plane() -> ControlPlane:
    cp = ControlPlane(seed=1)
    create_nodes(cp, 1, NodeTemplate())
    return cp


def claim(cp: ControlPlane) -> PersistentVolumeClaim | None:
    try:
        return cp.client.get(PersistentVolumeClaim, "data", "default")
    except NotFound:
        return None


def test_created_objects_carry_the_finalizers() -> None:
    cp = plane()
    cp.apply([PVC, PV])
    assert claim(cp).metadata.finalizers == ["kubernetes.io/pvc-protection"]
    assert cp.client.get(PersistentVolume, "pv").metadata.finalizers == ["kubernetes.io/pv-protection"]


def test_a_claim_used_by_a_scheduled_pod_waits_for_the_pod() -> None:
    cp = plane()
    cp.apply([PVC, pod()])
    cp.advance(5)
    assert cp.client.get(Pod, "user", "default").spec.node_name
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(30)
    kept = claim(cp)
    assert kept is not None and kept.metadata.deletion_timestamp is not None  # Terminating
    cp.client.delete(Pod, "user", "default")
    cp.advance(60)
    assert claim(cp) is None


def test_a_finished_pod_still_holds_its_claim_until_deleted() -> None:
    """"deleted PVC with finalizer + pod with the PVC finished but is not deleted"."""
    cp = plane()
    cp.apply([PVC, pod("exit 0")])
    cp.advance(30)
    assert cp.client.get(Pod, "user", "default").status.phase == "Succeeded"
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(30)
    assert claim(cp) is not None
    cp.client.delete(Pod, "user", "default")
    cp.advance(30)
    assert claim(cp) is None


def test_an_unscheduled_pod_does_not_hold_the_claim() -> None:
    cp = plane()
    cp.apply([PVC, pod(node="nowhere")])
    cp.advance(5)
    assert not cp.client.get(Pod, "user", "default").spec.node_name
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    assert claim(cp) is None


def test_a_claim_without_the_finalizer_gets_it_back() -> None:
    cp = plane()
    cp.apply([PVC])
    cp.client.patch(PersistentVolumeClaim, "data", {"metadata": {"finalizers": None}}, "default")
    cp.advance(1)
    assert claim(cp).metadata.finalizers == ["kubernetes.io/pvc-protection"]


@pytest.mark.parametrize(("phase", "kept"), [("Bound", True), ("Available", False), ("Released", False)])
def test_a_volume_is_kept_while_bound(phase: str, kept: bool) -> None:
    cp = plane()
    cp.apply([PV])
    cp.client.patch_status(PersistentVolume, "pv", {"status": {"phase": phase}})
    cp.client.delete(PersistentVolume, "pv")
    cp.advance(1)
    try:
        cp.client.get(PersistentVolume, "pv")
        present = True
    except NotFound:
        present = False
    assert present is kept


def test_disabled_plugin_and_controllers() -> None:
    cp = ControlPlane(seed=1, controllers="", disable_admission_plugins="StorageObjectInUseProtection")
    cp.apply([PVC])
    assert claim(cp).metadata.finalizers is None


@pytest.mark.parametrize(("finalizers", "deleting", "in_use", "after"), [
    (["kubernetes.io/pvc-protection"], True, False, []),
    (["kubernetes.io/pvc-protection"], True, True, None),
    (["other", "kubernetes.io/pvc-protection"], True, False, ["other"]),
    ([], False, False, ["kubernetes.io/pvc-protection"]),
    ([], True, False, None),
    (["kubernetes.io/pvc-protection"], False, True, None),
])
def test_the_decision(finalizers: list[str], deleting: bool, in_use: bool, after: list[str] | None) -> None:
    assert finalizers_after(finalizers, "kubernetes.io/pvc-protection", deleting, in_use) == after


def test_a_pod_in_another_namespace_does_not_hold_the_claim() -> None:
    """"deleted PVC with finalizer + pod with the same PVC name in a different namespace"."""
    cp = plane()
    other = pod()
    other["metadata"]["namespace"] = "team"
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, PVC, other])
    cp.advance(5)
    assert cp.client.get(Pod, "user", "team").spec.node_name
    cp.client.delete(PersistentVolumeClaim, "data", "default")
    cp.advance(5)
    assert claim(cp) is None
