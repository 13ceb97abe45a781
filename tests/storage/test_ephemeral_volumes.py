"""The ``ephemeral-volume`` controller (upstream ``pkg/controller/volume/ephemeral/controller.go``,
cases after ``controller_test.go`` ``TestSyncHandler``: "create", "no-such-pod", "pod-deleted",
"no-volumes", "found-volumes" (the claim exists and is the pod's), "not-owned" (a claim of that name
the pod does not control: FailedBinding), and VolumeBinding's side: the pod schedules once the
created claim is bound."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, PersistentVolumeClaim, Pod
from kbatch.api.errors import NotFound
from kbatch.sim import NodeTemplate, create_nodes
from tests.storage.binder_writes import bind_claim, volume

TEMPLATE = {"metadata": {"labels": {"app": "scratch"}, "annotations": {"note": "x"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                     "resources": {"requests": {"storage": "1Gi"}}}}


def pod(volumes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                               "command": ["sleep", "30"]}],
                     "volumes": volumes if volumes is not None else [
                         {"name": "scratch", "ephemeral": {"volumeClaimTemplate": TEMPLATE}}]}}


def plane() -> ControlPlane:
    cp = ControlPlane(seed=1)
    create_nodes(cp, 1, NodeTemplate())
    return cp


def claim(cp: ControlPlane, name: str = "p-scratch") -> PersistentVolumeClaim | None:
    try:
        return cp.client.get(PersistentVolumeClaim, name, "default")
    except NotFound:
        return None


def test_create_the_claim_owned_by_the_pod() -> None:
    """TestSyncHandler "create"."""
    cp = plane()
    created = cp.apply([pod()])[0]
    cp.advance(1)
    found = claim(cp)
    assert found is not None
    ref = found.metadata.owner_references[0]
    assert (ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == (
        "Pod", "p", created.metadata.uid, True, True)
    assert found.metadata.labels == {"app": "scratch"} and found.metadata.annotations["note"] == "x"
    assert str(found.spec.resources.requests["storage"]) == "1Gi"


def test_no_volumes_no_claim() -> None:
    """TestSyncHandler "no-volumes"."""
    cp = plane()
    cp.apply([pod([{"name": "e", "emptyDir": {}}])])
    cp.advance(1)
    assert not cp.client.list(PersistentVolumeClaim, "default").items


def test_a_deleted_claim_is_created_again_for_a_live_pod() -> None:
    cp = plane()
    cp.apply([pod()])
    cp.advance(1)
    cp.client.patch(PersistentVolumeClaim, "p-scratch", {"metadata": {"finalizers": None}}, "default")
    cp.client.delete(PersistentVolumeClaim, "p-scratch", "default")
    cp.advance(1)
    assert claim(cp) is not None


def test_a_claim_the_pod_does_not_own_is_reported() -> None:
    """TestSyncHandler "not-owned"."""
    cp = plane()
    cp.apply([{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "p-scratch", "namespace": "default"}, "spec": TEMPLATE["spec"]}])
    cp.apply([pod()])
    cp.advance(2)
    # the pod's events (the binder reports the classless claim's FailedBinding on the claim)
    messages = [e.message for e in cp.client.list(Event, "default").items
                if e.reason == "FailedBinding" and e.involved_object.kind == "Pod"]
    assert messages == ["ephemeral volume scratch: PVC default/p-scratch was not created for pod default/p "
                        "(pod is not owner)"]
    assert not (claim(cp).metadata.owner_references or ())
    scheduled = cp.client.get(Pod, "p", "default")
    assert not scheduled.spec.node_name  # VolumeBinding: not the pod's claim


def test_the_pod_runs_once_its_ephemeral_claim_is_bound() -> None:
    cp = plane()
    cp.apply([pod(), volume("pv")])
    cp.advance(2)
    assert not cp.client.get(Pod, "p", "default").spec.node_name  # created, not bound yet
    bind_claim(cp, "p-scratch", "default", "pv")
    cp.advance(3)
    assert cp.client.get(Pod, "p", "default").status.phase == "Running"
    cp.client.delete(Pod, "p", "default")
    cp.advance(60)
    assert claim(cp) is None  # the garbage collector follows the pod's ownership
