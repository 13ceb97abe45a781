"""MultiKueue's adapter for plain Pods and pod groups, case by case on fake clusters.

Translated from kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_multikueue_adapter_test.go``
(``TestMultiKueueAdapter``: every case, with ``WorkloadIdentifierAnnotations`` off and on). The manager
and the worker are dictionaries of pods, as upstream's fake clients are; the end-to-end behaviour is
in ``test_pods_through_multikueue.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod, PodCondition, PodStatus
from kbatch.api.errors import AlreadyExists
from kbatch.api.model_copy import copy_model
from kbatch.controllers.kueue.multikueue.pod_adapter import PodAdapter
from kbatch.controllers.kueue.podintegration.group import BY_GROUP

NS = "ns"
ORIGIN = "kueue.x-k8s.io/multikueue-origin"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
GROUP = "kueue.x-k8s.io/pod-group-name"
GATE = "kueue.x-k8s.io/admission"


class Pods:
    """One cluster's pods (upstream's fake client): the adapter's ``RemoteCluster`` for a worker, its
    getter, cache and client for the manager."""

    def __init__(self, *pods: Pod) -> None:
        self.pods = {(p.metadata.namespace, p.metadata.name): copy_model(p) for p in pods}

    # RemoteCluster
    def get(self, kind: type, name: str, namespace: str | None) -> Pod | None:
        pod = self.pods.get((namespace, name))
        return copy_model(pod) if pod is not None else None

    def create(self, obj: Pod) -> Pod:
        key = (obj.metadata.namespace, obj.metadata.name)
        if key in self.pods:
            raise AlreadyExists(f'pods "{obj.metadata.name}" already exists')
        self.pods[key] = copy_model(obj)
        return obj

    def delete(self, kind: type, name: str, namespace: str | None) -> None:
        self.pods.pop((namespace, name), None)

    # the manager's getter, cache and client
    def __call__(self, kind: type, name: str, namespace: str | None) -> Pod | None:
        return self.get(kind, name, namespace)

    def list(self, kind: type, index: tuple[str, str]) -> list[Pod]:
        assert index[0] == BY_GROUP
        namespace, group = index[1].split("/", 1)
        return [
            copy_model(p)
            for (ns, _), p in self.pods.items()
            if ns == namespace and _group(p) == group
        ]

    def update_status(self, obj: Pod) -> Pod:
        stored = self.pods[(obj.metadata.namespace, obj.metadata.name)]
        stored.status = copy_model(obj.status) if obj.status is not None else None
        return obj

    def dump(self) -> list[dict[str, Any]]:
        return [p.to_dict() for _, p in sorted(self.pods.items())]


def _group(pod: Pod) -> str:
    meta = pod.metadata
    return (meta.annotations or {}).get(GROUP) or (meta.labels or {}).get(GROUP) or ""


def make_pod(name: str = "test-pod", labels: dict[str, str] | None = None,
             annotations: dict[str, str] | None = None, gated: bool = False,
             phase: str | None = None, *conditions: PodCondition) -> Pod:
    """``utiltestingpod.MakePod``: one container, ``pause``."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause"}]}
    if gated:
        spec["schedulingGates"] = [{"name": GATE}]
    pod = Pod.from_dict({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": name, "namespace": NS}, "spec": spec})
    pod.metadata.labels = dict(labels or {}) or None
    pod.metadata.annotations = dict(annotations or {}) or None
    if phase is not None or conditions:
        pod.status = PodStatus(phase=phase, conditions=list(conditions) or None)
    return pod


def group_pods(ids: bool, worker: bool = False, size: int = 3) -> list[Pod]:
    """``MakePodGroupWrappers`` / ``…WithWorkloadAnnotations``: ``test-pod-0..`` of group
    ``test-pod``; the worker's copies also carry the origin and the prebuilt name."""
    out = []
    for i in range(size):
        labels: dict[str, str] = {}
        annotations = {"kueue.x-k8s.io/pod-group-total-count": str(size)}
        (annotations if ids else labels)[GROUP] = "test-pod"
        if worker:
            labels[ORIGIN] = "origin1"
            (annotations if ids else labels)[PREBUILT] = "wl1"
        out.append(make_pod(f"test-pod-{i}", labels, annotations))
    return out


def on_worker(pod: Pod, ids: bool) -> Pod:
    """The copy ``SetMultiKueueMeta`` makes of a manager pod."""
    pod = copy_model(pod)
    pod.metadata.labels = {**(pod.metadata.labels or {}), ORIGIN: "origin1"}
    if ids:
        pod.metadata.annotations = {**(pod.metadata.annotations or {}), PREBUILT: "wl1"}
    else:
        pod.metadata.labels = {**pod.metadata.labels, PREBUILT: "wl1"}
    return pod


def with_status(pod: Pod, phase: str, *conditions: PodCondition) -> Pod:
    pod = copy_model(pod)
    pod.status = PodStatus(phase=phase, conditions=list(conditions))
    return pod


READY = PodCondition(type="Ready", status="True")
SCHEDULED = PodCondition(type="PodScheduled", status="True")
GATED = PodCondition(type="PodScheduled", status="False", reason="SchedulingGated")
UNSCHEDULABLE = PodCondition(type="PodScheduled", status="False", reason="Unschedulable")


def _sync(manager: Pods, worker: Pods, ids: bool, name: str = "test-pod") -> bool:
    adapter = PodAdapter(manager, manager, ids)
    return adapter.sync_job(manager, worker, NS, name, "wl1", "origin1")


@pytest.mark.parametrize("ids", [False, True], ids=["labels", "WorkloadIdentifierAnnotations"])
def test_sync_creates_missing_remote_pod(ids: bool) -> None:
    base = make_pod()
    manager, worker = Pods(base), Pods()
    assert _sync(manager, worker, ids) is False  # never deferred
    assert manager.dump() == Pods(base).dump()
    assert worker.dump() == Pods(on_worker(base, ids)).dump()


def test_sync_status_from_remote_pod() -> None:
    base = make_pod()
    remote = with_status(on_worker(base, False), "Running", READY)
    manager, worker = Pods(base), Pods(remote)
    _sync(manager, worker, False)
    assert manager.dump() == Pods(with_status(base, "Running", READY)).dump()
    assert worker.dump() == Pods(remote).dump()


def test_keeps_scheduling_gated_condition_on_gated_manager_pod() -> None:
    """"keeps SchedulingGated condition on gated manager pod (avoids spurious autoscaler scale-up)":
    the phase is synced, the remote Unschedulable condition is not."""
    base = make_pod(gated=True)
    local = with_status(base, "", GATED)
    local.status.phase = None
    remote = with_status(on_worker(make_pod(), False), "Pending", UNSCHEDULABLE)
    manager, worker = Pods(local), Pods(remote)
    _sync(manager, worker, False)
    assert manager.dump() == Pods(with_status(base, "Pending", GATED)).dump()
    assert worker.dump() == Pods(remote).dump()


def test_overwrites_scheduling_gated_once_the_remote_pod_is_scheduled() -> None:
    base = make_pod(gated=True)
    local = with_status(base, "", GATED)
    local.status.phase = None
    remote = with_status(on_worker(make_pod(), False), "Running", SCHEDULED, READY)
    manager, worker = Pods(local), Pods(remote)
    _sync(manager, worker, False)
    assert manager.dump() == Pods(with_status(base, "Running", SCHEDULED, READY)).dump()  # still gated


def test_a_terminating_local_pod_is_not_synced() -> None:
    """``syncLocalPodWithRemote``: "Skipping sync since the local pod is terminating"."""
    local = make_pod()
    local.metadata.deletion_timestamp = datetime(2026, 1, 1, tzinfo=UTC)
    remote = with_status(on_worker(make_pod(), False), "Running", READY)
    manager, worker = Pods(local), Pods(remote)
    _sync(manager, worker, False)
    assert manager.dump() == Pods(local).dump()


def test_remote_pod_is_deleted() -> None:
    worker = Pods(on_worker(make_pod(), False))
    PodAdapter(Pods(), Pods(), False).delete_remote(worker, NS, "test-pod")
    assert worker.dump() == []


def test_a_pod_is_always_managed_by_multikueue() -> None:
    """"pod managedBy multikueue": a Pod has no ``managedBy``; ``IsJobManagedByKueue`` is true."""
    manager = Pods(make_pod())
    assert PodAdapter(manager, manager, False).is_managed(manager, NS, "test-pod") == (True, "")


@pytest.mark.parametrize("ids", [False, True], ids=["labels", "WorkloadIdentifierAnnotations"])
def test_sync_creates_missing_remote_pods_of_the_group(ids: bool) -> None:
    local = group_pods(ids)
    manager, worker = Pods(*local), Pods()
    _sync(manager, worker, ids, "test-pod-0")
    assert manager.dump() == Pods(*local).dump()
    assert worker.dump() == Pods(*group_pods(ids, worker=True)).dump()


def test_sync_status_from_remote_pod_group() -> None:
    local = group_pods(False)
    remote = group_pods(False, worker=True)
    remote[2] = with_status(remote[2], "Running", READY)
    manager, worker = Pods(*local), Pods(*remote)
    _sync(manager, worker, False, "test-pod-0")
    want = [*local[:2], with_status(local[2], "Running", READY)]
    assert manager.dump() == Pods(*want).dump()
    assert worker.dump() == Pods(*remote).dump()


def test_remote_pod_group_is_deleted() -> None:
    """Every remote member named by a local member goes, whichever member is the key."""
    local = group_pods(False)
    manager, worker = Pods(*local), Pods(*group_pods(False, worker=True))
    PodAdapter(manager, manager, False).delete_remote(worker, NS, "test-pod-0")
    assert worker.dump() == []
    assert manager.dump() == Pods(*local).dump()


def test_workload_keys_for_a_remote_pod() -> None:
    """``WorkloadKeysFor``: the prebuilt Workload the remote pod names (annotation or label)."""
    adapter = PodAdapter(Pods(), Pods(), True)
    assert adapter.workload_key(on_worker(make_pod(), True)) == (NS, "wl1")
    assert adapter.workload_key(on_worker(make_pod(), False)) == (NS, "wl1")
    assert adapter.workload_key(make_pod()) is None
