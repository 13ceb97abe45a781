"""What reaches pvc-protection and pv-protection, as upstream's handlers decide
(``pkg/controller/volume/pvcprotection``: ``pvcAddedUpdated`` only for a claim that needs the
finalizer added or is a deletion candidate, no ``DeleteFunc``; ``podAddedDeletedUpdated`` →
``enqueuePVCs`` only for a pod deleted, terminated or unscheduled; ``pkg/controller/volume/pvprotection``
``pvAddedUpdated`` likewise for volumes)."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.controllers.storage.protection_handlers import pod_terminated
from kbatch.runtime.controlplane import ControlPlane

CLAIM = {"metadata": {"name": "data", "namespace": "default"},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def _reconciles(cp: ControlPlane, name: str) -> int:
    cp.run_until_idle()
    return cp.manager.get(name).reconciles


def _pod(node: str | None = "n0") -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}],
                            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}
    if node:
        spec["nodeName"] = node
    return Pod.model_validate({"metadata": {"name": "user", "namespace": "default"}, "spec": spec})


def test_claim_updates_that_need_no_finalizer_work_are_not_reconciled() -> None:
    cp = ControlPlane(seed=0, controllers="pvc-protection")
    cp.client.create(PersistentVolumeClaim.model_validate(CLAIM))  # created with the finalizer
    before = _reconciles(cp, "pvc-protection")
    cp.client.patch(PersistentVolumeClaim, "data", {"metadata": {"labels": {"touch": "1"}}}, "default")
    assert _reconciles(cp, "pvc-protection") == before
    cp.client.delete(PersistentVolumeClaim, "data", "default")  # a deletion candidate: queued, removed
    assert _reconciles(cp, "pvc-protection") == before + 1
    assert not cp.client.list(PersistentVolumeClaim, "default").items  # and its delete queues nothing


def test_a_running_pods_updates_are_not_reconciled_a_finished_pods_are() -> None:
    cp = ControlPlane(seed=0, controllers="pvc-protection,serviceaccount")
    cp.run_until_idle()
    cp.client.create(PersistentVolumeClaim.model_validate(CLAIM))
    cp.client.create(_pod())
    before = _reconciles(cp, "pvc-protection")
    cp.client.patch_status(Pod, "user", {"status": {"phase": "Running"}}, "default")
    assert _reconciles(cp, "pvc-protection") == before
    cp.client.patch_status(Pod, "user", {"status": {"phase": "Succeeded"}}, "default")
    assert _reconciles(cp, "pvc-protection") == before + 1


def test_volume_updates_that_need_no_finalizer_work_are_not_reconciled() -> None:
    cp = ControlPlane(seed=0, controllers="pv-protection")
    cp.client.create(PersistentVolume.model_validate({"metadata": {"name": "pv"}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}}}))
    before = _reconciles(cp, "pv-protection")
    cp.client.patch(PersistentVolume, "pv", {"metadata": {"labels": {"touch": "1"}}})
    assert _reconciles(cp, "pv-protection") == before


def test_is_pod_terminated_as_upstream() -> None:
    running = {"state": {"running": {}}, "name": "c", "image": "i", "imageID": "", "ready": True,
               "restartCount": 0}
    done = {**running, "state": {"terminated": {"exitCode": 0}}}
    base = _pod().model_dump(by_alias=True, exclude_none=True)

    def with_(status: dict[str, Any], deleting: bool = False) -> Pod:
        meta = {**base["metadata"], **({"deletionTimestamp": "2025-01-01T00:00:30Z"} if deleting else {})}
        return Pod.model_validate({**base, "metadata": meta, "status": status})

    assert pod_terminated(with_({"phase": "Failed"}))
    assert not pod_terminated(with_({"phase": "Running", "containerStatuses": [running]}))
    assert not pod_terminated(with_({"phase": "Running", "containerStatuses": [running]}, deleting=True))
    assert pod_terminated(with_({"phase": "Running", "containerStatuses": [done]}, deleting=True))
