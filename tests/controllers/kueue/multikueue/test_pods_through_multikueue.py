"""Plain Pods and pod groups through MultiKueue, end to end on in-process workers (one clock).

Scenarios from kubernetes-sigs/kueue v0.19.2 ``test/integration/multikueue/jobs_test.go`` ("Should
run a pod on worker if admitted", "Should run a pod group on worker if admitted"),
``test/e2e/multikueue/e2e_test.go`` (the pod and pod-group cases) and the prebuilt-workload branch of
``pkg/controller/jobframework/reconciler.go`` (``ensureOneWorkload``) on the worker: the manager's
pods stay gated (``ShouldSkipLocalExecution``), copies run on the one worker that admitted the
Workload, their status comes back, and the finish and the deletions propagate.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.meta import Condition

from ..test_pod_groups import member
from ..test_pods import gates, pod
from .world import MKWorld, check_of, local_workload

ORIGIN = "kueue.x-k8s.io/multikueue-origin"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
WORKER_POD = "kueue.x-k8s.io/multikueue-worker-workload-pod"


def _cond(wl: Workload, kind: str) -> Condition | None:
    return next((c for c in (wl.status.conditions if wl.status else None) or () if c.type == kind), None)


def _pods(cp: Any) -> dict[str, Pod]:
    return {p.metadata.name: p for p in cp.client.list(Pod, "default").items}


def test_a_pod_runs_on_the_worker_and_its_status_comes_back() -> None:
    """"Should run a pod on worker if admitted": the manager's pod keeps its gates, the worker's copy
    carries the origin and the prebuilt Workload, the status and the finish come back."""
    world = MKWorld({"w1": "4"})
    world.manager.apply(pod("p1", script="sleep 10"))
    world.manager.run_until_idle()
    wl = local_workload(world)
    assert check_of(wl) == ("Ready", 'The workload was admitted on "w1"')
    local = _pods(world.manager)["p1"]
    assert "kueue.x-k8s.io/admission" in gates(local)  # never ungated on the manager
    assert local.spec.node_name is None
    remote = _pods(world.workers["w1"])["p1"]
    assert remote.metadata.labels[ORIGIN] == "multikueue"
    assert remote.metadata.annotations[PREBUILT] == wl.metadata.name
    assert remote.metadata.labels[WORKER_POD] == "true"  # getPodSetsInfoFromStatus on the worker
    assert gates(remote) == [] and remote.spec.node_name
    (copy,) = world.remote_workloads("w1")
    assert copy.metadata.controller_ref().uid == remote.metadata.uid  # adopted by the worker's pod
    assert local.status.phase == "Running" == remote.status.phase
    assert local.status.pod_ip == remote.status.pod_ip
    world.manager.advance(15)
    wl = local_workload(world)
    finished = _cond(wl, "Finished")
    assert finished is not None and (finished.status, finished.reason) == ("True", "Succeeded")
    assert _pods(world.manager)["p1"].status.phase == "Succeeded"
    assert world.remote_workloads("w1") == []  # 2.: a finished Workload's copies go
    assert _pods(world.workers["w1"]) == {}


def test_a_pod_group_is_dispatched_whole_to_the_worker_that_admits_it() -> None:
    """"Should run a pod group on worker if admitted": w1 cannot admit 2 cpu; every member runs on
    w2, none on w1, and the group finishes on the manager when all succeeded there."""
    world = MKWorld({"w1": "1", "w2": "4"})
    world.manager.apply([member("a", script="sleep 10"), member("b", script="sleep 10")])
    world.manager.run_until_idle()
    wl = local_workload(world)
    assert wl.metadata.name == "g"
    assert check_of(wl) == ("Ready", 'The workload was admitted on "w2"')
    assert _pods(world.workers["w1"]) == {} and world.remote_workloads("w1") == []
    remote = _pods(world.workers["w2"])
    assert sorted(remote) == ["a", "b"]
    assert all(p.metadata.annotations[PREBUILT] == "g" for p in remote.values())
    (copy,) = world.remote_workloads("w2")
    assert sorted(r.name for r in copy.metadata.owner_references) == ["a", "b"]  # every member owns it
    assert all(p.status.phase == "Running" for p in _pods(world.manager).values())
    assert all(gates(p) for p in _pods(world.manager).values())
    world.manager.advance(15)
    finished = _cond(local_workload(world), "Finished")
    assert finished is not None
    assert (finished.reason, finished.message) == ("Succeeded", "Pods succeeded: 2/2.")
    assert all(p.status.phase == "Succeeded" for p in _pods(world.manager).values())
    assert _pods(world.workers["w2"]) == {}


def test_deleting_the_pod_on_the_manager_removes_its_copies() -> None:
    """The manager's Workload goes with its pod; the worker's copy and pod follow (``Reconcile`` of a
    deleted Workload: ``RemoveRemoteObjects``, ``DeleteRemoteObject``)."""
    world = MKWorld({"w1": "4"})
    world.manager.apply(pod("p1", script="sleep 600"))
    world.manager.run_until_idle()
    assert list(_pods(world.workers["w1"])) == ["p1"]
    world.manager.client.delete(Pod, "p1", "default")
    world.manager.advance(5)
    assert world.manager.client.list(Workload).items == []
    assert world.remote_workloads("w1") == []
    world.manager.advance(30)  # the remote pod's grace period
    assert _pods(world.workers["w1"]) == {}


def test_a_worker_does_not_make_a_workload_for_a_group_naming_a_missing_prebuilt_one() -> None:
    """``ErrPrebuiltWorkloadNotFound``: the worker's group reconciler waits for the named Workload
    instead of composing one of its own. (The name is the group's: the pod webhook refuses a group
    naming another Workload, ``validatePrebuiltWorkloadName``.)"""
    world = MKWorld({"w1": "4"})
    worker = world.workers["w1"]
    for name in ("a", "b"):
        obj = member(name, group="missing")
        obj["metadata"]["annotations"][PREBUILT] = "missing"
        worker.apply(obj)
    worker.run_until_idle()
    worker.advance(60)  # the reconcile is retried with back-off meanwhile
    assert worker.client.list(Workload).items == []
    assert all(gates(p) for p in _pods(worker).values())
