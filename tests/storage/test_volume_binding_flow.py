"""The VolumeBinding plugin and the kubelet's claim check, end to end in virtual time.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding`` (``volume_binding.go``: the queueing hints
``isSchedulableAfterPersistentVolumeClaimChange`` / ``isSchedulableAfterStorageClassChange``;
``binder.go``: ``BindPodVolumes`` polls ``checkBindings`` every second for ``bindTimeout``, a claim
whose ``volume.kubernetes.io/selected-node`` was removed fails the binding) and the kubelet's volume
manager (``desired_state_of_world_populator.go`` ``getPVCExtractPV``). Most tests play the binder
themselves, writing the objects as it does (:mod:`tests.storage.binder_writes`), on a plane without
the persistentvolume-binder and the simulated provisioner; the last ones run the real pair."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.sim import NodeTemplate, create_nodes
from tests.storage.binder_writes import bind_claim, volume

WFFC = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
        "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}
DYNAMIC = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "dynamic"},
           "provisioner": "example.com/sim", "volumeBindingMode": "WaitForFirstConsumer"}


def claim(name: str = "data", cls: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    if cls is not None:
        spec["storageClassName"] = cls
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def pod(node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 30"]}],
        "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user", "namespace": "default"},
            "spec": spec}


def plane(nodes: int = 2, binder: bool = False) -> ControlPlane:
    controllers = "*" if binder else "*,-persistentvolume-binder,-simulated-provisioner"
    cp = ControlPlane(seed=1, controllers=controllers)
    create_nodes(cp, nodes, NodeTemplate())
    return cp


def get_pod(cp: ControlPlane) -> Pod:
    return cp.client.get(Pod, "user", "default")


def events(cp: ControlPlane, reason: str) -> list[str]:
    return [e.message or "" for e in cp.client.list(Event, "default").items if e.reason == reason]


def message(p: Pod) -> str:
    return next((c.message or "" for c in p.status.conditions or () if c.type == "PodScheduled"), "")


def test_a_pod_waits_for_its_claim_then_schedules_once_it_is_bound() -> None:
    cp = plane()
    cp.apply([pod()])
    cp.advance(2)
    assert not get_pod(cp).spec.node_name
    assert 'persistentvolumeclaim "data" not found' in message(get_pod(cp))
    cp.apply([claim(cls=""), volume("pv")])  # "": no class, so not the default (WaitForFirstConsumer) one
    cp.advance(2)
    assert "pod has unbound immediate PersistentVolumeClaims" in message(get_pod(cp))
    bind_claim(cp, "data", "default", "pv")
    cp.advance(2)  # the claim update queues the pod (its queueing hint), well before the 5 min flush
    assert get_pod(cp).spec.node_name
    cp.advance(60)
    assert get_pod(cp).status.phase == "Succeeded"


def test_a_bound_volume_pins_the_pod_to_its_node() -> None:
    cp = plane(3)
    cp.apply([claim(), volume("pv", node="node-2")])
    bind_claim(cp, "data", "default", "pv")
    cp.apply([pod()])
    cp.advance(2)
    assert get_pod(cp).spec.node_name == "node-2"


def test_wait_for_first_consumer_prebinds_a_local_volume_and_waits_for_the_binder() -> None:
    cp = plane(3)
    cp.apply([WFFC, claim(cls="local"), volume("pv", cls="local", node="node-1")])
    cp.client.patch_status(PersistentVolume, "pv", {"status": {"phase": "Available"}})
    cp.apply([pod()])
    cp.advance(2)
    ref = cp.client.get(PersistentVolume, "pv").spec.claim_ref
    assert ref is not None and ref.name == "data"  # PreBind wrote claimRef (bindAPIUpdate)
    pv_annotations = cp.client.get(PersistentVolume, "pv").metadata.annotations or {}
    assert pv_annotations.get("pv.kubernetes.io/bound-by-controller") == "yes"
    assert not get_pod(cp).spec.node_name  # waiting in PreBind for the binder
    bind_claim(cp, "data", "default", "pv")
    cp.advance(2)
    assert get_pod(cp).spec.node_name == "node-1"


def test_wait_for_first_consumer_selects_a_node_for_the_provisioner() -> None:
    cp = plane(2)
    cp.apply([DYNAMIC, claim(cls="dynamic"), pod()])
    cp.advance(2)
    annotations = cp.client.get(PersistentVolumeClaim, "data", "default").metadata.annotations or {}
    node = annotations.get("volume.kubernetes.io/selected-node")
    assert node in ("node-0", "node-1")
    # the provisioner's answer: a volume for that node, bound to the claim
    cp.apply([volume("pvc-data", cls="dynamic", node=node)])
    bind_claim(cp, "data", "default", "pvc-data")
    cp.advance(2)
    assert get_pod(cp).spec.node_name == node


def test_a_provisioner_that_gives_up_fails_the_binding_and_the_pod_is_retried() -> None:
    cp = plane(1)
    cp.apply([DYNAMIC, claim(cls="dynamic"), pod()])
    cp.advance(2)
    cp.client.patch(PersistentVolumeClaim, "data", {"metadata": {"annotations": {
        "volume.kubernetes.io/selected-node": None}}}, "default")
    cp.advance(2)
    failed = events(cp, "FailedScheduling")
    assert any('binding volumes: provisioning failed for PVC "data"' in m for m in failed)
    cp.advance(30)  # retried after its back-off: the node is selected again
    annotations = cp.client.get(PersistentVolumeClaim, "data", "default").metadata.annotations or {}
    assert annotations.get("volume.kubernetes.io/selected-node") == "node-0"


def test_the_binding_times_out_after_bind_timeout_seconds() -> None:
    cp = plane(1)
    cp.apply([DYNAMIC, claim(cls="dynamic"), pod()])
    cp.advance(599)
    assert not events(cp, "FailedScheduling")
    cp.advance(3)
    failed = events(cp, "FailedScheduling")
    assert any("binding volumes: timed out waiting for the condition" in m for m in failed)


def test_the_kubelet_does_not_start_a_pod_whose_claim_is_not_bound() -> None:
    """A pod bound by ``nodeName`` (no scheduler) with an unbound claim: the volume manager refuses
    it (``getPVCExtractPV``), the containers wait; once bound, the pod runs."""
    cp = plane(1)
    cp.apply([claim(), volume("pv"), pod(node="node-0")])
    cp.advance(5)
    p = get_pod(cp)
    assert p.status.phase == "Pending"
    statuses = p.status.container_statuses or ()
    assert all(s.state is None or s.state.running is None for s in statuses)
    assert any('PVC default/data has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")' in m
               for m in events(cp, "FailedMount"))
    bind_claim(cp, "data", "default", "pv")
    cp.advance(10)  # the next try of the volume manager's back-off (0.5 s doubling)
    assert get_pod(cp).status.phase == "Running"


def test_the_kubelet_reports_a_missing_claim() -> None:
    cp = plane(1)
    cp.apply([pod(node="node-0")])
    cp.advance(3)
    missing = 'failed to fetch PVC from API server: persistentvolumeclaims "data" not found'
    assert any(missing in m for m in events(cp, "FailedMount"))
    assert get_pod(cp).status.phase == "Pending"


def test_a_pod_deleted_while_prebind_waits_releases_its_choice() -> None:
    """``checkBindings``: ``pod does not exist any more``; the binding fails at the next poll and the
    assumed volume is forgotten, so another pod can take it."""
    cp = plane(1)
    cp.apply([WFFC, claim(cls="local"), volume("pv", cls="local", node="node-0")])
    cp.client.patch_status(PersistentVolume, "pv", {"status": {"phase": "Available"}})
    cp.apply([pod()])
    cp.advance(2)
    cp.client.delete(Pod, "user", "default")
    cp.advance(2)
    failed = events(cp, "FailedScheduling")
    assert any('binding volumes: pod does not exist any more: pods "user" not found' in m for m in failed)


def test_a_volume_pinned_by_match_fields_fits_every_node_as_check_node_affinity_reads_it() -> None:
    """component-helpers ``CheckNodeAffinity`` matches a volume's terms against a node made of the
    labels alone, so a ``matchFields`` (``metadata.name``) requirement is skipped (nodeaffinity
    ``nodeSelectorTerm.match`` with no node fields): the scheduler binds such a volume on any node.
    The VolumeBinding plugin's own copy had matchFields never match: the pod was unschedulable.
    The real binder runs: it makes the volume Available and completes the binding PreBind starts."""
    cp = plane(2, binder=True)
    pinned = volume("pv", cls="local")
    pinned["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["elsewhere"]}]}]}}
    cp.apply([WFFC, claim(cls="local"), pinned])
    cp.advance(2)
    cp.apply([pod()])
    cp.advance(5)
    ref = cp.client.get(PersistentVolume, "pv").spec.claim_ref
    assert ref is not None and ref.name == "data", message(get_pod(cp))
    assert get_pod(cp).spec.node_name in ("node-0", "node-1")


SIMULATED = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sim"},
             "provisioner": "kbatch.io/simulated", "volumeBindingMode": "WaitForFirstConsumer"}


def test_with_the_real_binder_a_wait_for_first_consumer_claim_is_provisioned_on_the_pods_node() -> None:
    """Scheduler, binder and provisioner together: the scheduler selects a node, the provisioner
    makes a volume with affinity to it, the binder binds, PreBind sees the claim bound, the pod runs."""
    cp = plane(3, binder=True)
    cp.apply([SIMULATED, claim(cls="sim"), pod()])
    cp.advance(5)
    pvc = cp.client.get(PersistentVolumeClaim, "data", "default")
    node = (pvc.metadata.annotations or {}).get("volume.kubernetes.io/selected-node")
    assert pvc.status.phase == "Bound" and pvc.spec.volume_name
    assert get_pod(cp).spec.node_name == node
    affinity = cp.client.get(PersistentVolume, pvc.spec.volume_name).spec.node_affinity
    assert affinity is not None and node in str(affinity.model_dump())
    cp.advance(40)
    assert get_pod(cp).status.phase == "Succeeded"


def test_with_the_real_binder_a_local_volume_on_one_node_draws_the_pod_there() -> None:
    cp = plane(3, binder=True)
    cp.apply([WFFC, claim(cls="local"), volume("pv", cls="local", node="node-1")])
    cp.advance(1)
    cp.apply([pod()])
    cp.advance(5)
    assert cp.client.get(PersistentVolumeClaim, "data", "default").spec.volume_name == "pv"
    assert get_pod(cp).spec.node_name == "node-1"
