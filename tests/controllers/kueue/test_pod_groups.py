"""Kueue's pod groups: pods sharing ``kueue.x-k8s.io/pod-group-name`` with
``kueue.x-k8s.io/pod-group-total-count`` are admitted by one Workload named after the group.

Upstream: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/controller/jobs/pod/
pod_controller_test.go`` ("Using pod group": "Should ungate pods when admitted and finalize Pods when
succeeded", "Should keep the existing workload for pod replacement", "Should finish the group if one
Pod has the `retriable-in-group: false` annotation", "Should finalize and delete excess pods",
"Should set WaitingForReplacementPod workload condition to false after replacement", "Should not
adopt or delete a foreign non-pod-group Workload sharing the group name", "Should schedule pod
groups as they fit in their ClusterQueue") and ``pkg/controller/jobs/pod/pod_controller_test.go``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.podintegration.pods import role_hash

from .helpers import workload
from .test_jobs import _world
from .test_pods import gates, get_pod, pod

GROUP = "kueue.x-k8s.io/pod-group-name"
TOTAL = "kueue.x-k8s.io/pod-group-total-count"


def member(name: str, group: str = "g", total: int = 2, cpu: str = "1", script: str = "sleep 20",
           annotations: dict | None = None) -> dict[str, Any]:
    return pod(name, cpu=cpu, script=script, labels={GROUP: group},
               annotations={TOTAL: str(total), **(annotations or {})})


def pods_of(w: Any, group: str = "g") -> list[Pod]:
    pods = w.cp.client.list(Pod, "default").items
    return [p for p in pods if (p.metadata.labels or {}).get(GROUP) == group]


def test_a_group_is_admitted_as_one_workload_named_after_it_and_finishes_when_all_succeed() -> None:
    """"Should ungate pods when admitted and finalize Pods when succeeded"."""
    w = _world()
    w.apply(member("a"))
    w.cp.run_until_idle()
    assert w.cp.client.list(Workload).items == []
    fewer = ("Warning", "ErrWorkloadCompose", "'g' group has fewer runnable pods than expected")
    assert fewer in w.events("a")
    assert gates(get_pod(w, "a"))  # still gated: no Workload for half a group
    w.apply(member("b"))
    w.cp.run_until_idle()
    wl = w.wl("g")
    assert wl.metadata.annotations["kueue.x-k8s.io/is-group-workload"] == "true"
    assert sorted((r.kind, r.name, bool(r.controller)) for r in wl.metadata.owner_references) == [
        ("Pod", "a", False), ("Pod", "b", False)]
    role = role_hash(get_pod(w, "a"))
    assert [(ps.name, ps.count) for ps in wl.spec.pod_sets] == [(role, 2)]
    assert w.admitted("g")
    for p in pods_of(w):
        assert gates(p) == [] and p.spec.node_selector == {"pool": "a"}
        assert ("Normal", "Started", "Admitted by clusterQueue cq") in w.events(p.metadata.name)
    w.cp.advance(30)
    assert all(p.status.phase == "Succeeded" and not p.metadata.finalizers for p in pods_of(w))
    finished = w.cond("g", "Finished")
    assert (finished.reason, finished.message) == ("Succeeded", "Pods succeeded: 2/2.")
    assert w.usage("fa") == {}


def test_roles_become_pod_sets_sorted_by_role_hash() -> None:
    w = _world(nominal="8")
    w.apply(member("driver", total=3, cpu="2"), member("w1", total=3), member("w2", total=3))
    w.cp.run_until_idle()
    wl = w.wl("g")
    driver, worker = role_hash(get_pod(w, "driver")), role_hash(get_pod(w, "w1"))
    assert driver != worker
    expected = sorted([(driver, 1), (worker, 2)])
    assert [(ps.name, ps.count) for ps in wl.spec.pod_sets] == expected
    assert w.admitted("g")
    assert all(gates(p) == [] for p in pods_of(w))


def test_a_group_waits_whole_for_quota() -> None:
    """"Should schedule pod groups as they fit in their ClusterQueue": no member runs before the
    whole group fits."""
    w = _world(nominal="4")
    w.apply(pod("solo", cpu="3", script="sleep 20"))
    w.cp.run_until_idle()
    w.apply(member("a"), member("b"))
    w.cp.run_until_idle()
    assert not w.reserved("g") and all(gates(p) for p in pods_of(w))
    w.cp.advance(25)
    assert w.admitted("g") and all(gates(p) == [] for p in pods_of(w))


def test_a_failed_member_is_replaced_and_the_group_keeps_its_workload() -> None:
    """"Should keep the existing workload for pod replacement" and "Should set
    WaitingForReplacementPod workload condition to false after replacement"."""
    w = _world()
    w.apply(member("a", script="sleep 60"), member("b", script="sleep 3; exit 1"))
    w.cp.run_until_idle()
    uid = w.wl("g").metadata.uid
    w.cp.advance(10)
    assert get_pod(w, "b").status.phase == "Failed"
    waiting = w.cond("g", "WaitingForReplacementPods")
    assert (waiting.status, waiting.reason, waiting.message) == (
        "True", "PodsFailed", "Some Failed pods need replacement")
    assert w.admitted("g") and w.cond("g", "Finished") is None

    w.apply(member("b2", script="sleep 5"))  # the replacement: same group, same role
    w.cp.run_until_idle()
    assert w.wl("g").metadata.uid == uid
    assert gates(get_pod(w, "b2")) == [] and get_pod(w, "b2").spec.node_selector == {"pool": "a"}
    assert not get_pod(w, "b").metadata.finalizers  # the replaced pod is released
    waiting = w.cond("g", "WaitingForReplacementPods")
    assert (waiting.status, waiting.reason) == ("False", "PodsReady")
    assert waiting.message == "No pods need replacement"
    assert "b2" in {r.name for r in w.wl("g").metadata.owner_references}
    w.cp.advance(70)
    assert w.cond("g", "Finished").message == "Pods succeeded: 2/2."


def test_an_unretriable_group_finishes_when_no_member_runs() -> None:
    """"Should finish the group if one Pod has the `retriable-in-group: false` annotation"."""
    w = _world()
    no_retry = {"kueue.x-k8s.io/retriable-in-group": "false"}
    w.apply(member("a", script="sleep 5", annotations=no_retry),
            member("b", script="sleep 2; exit 1", annotations=no_retry))
    w.cp.advance(20)
    finished = w.cond("g", "Finished")
    assert (finished.status, finished.reason) == ("True", "Succeeded")
    assert finished.message == "Pods succeeded: 1/2."  # a group is never declared Failed
    assert all(not p.metadata.finalizers for p in pods_of(w))


def test_excess_members_are_deleted() -> None:
    """"Should finalize and delete excess pods"."""
    w = _world()
    w.apply(member("a"), member("b"), member("c"))
    w.cp.run_until_idle()
    names = {p.metadata.name for p in pods_of(w) if p.metadata.deletion_timestamp is None}
    assert names == {"a", "b"}
    assert ("Normal", "ExcessPodDeleted", "Excess pod deleted") in w.events("c")
    assert [(ps.count) for ps in w.wl("g").spec.pod_sets] == [2]


def test_a_foreign_workload_with_the_group_name_is_not_adopted() -> None:
    """"Should not adopt or delete a foreign non-pod-group Workload sharing the group name"."""
    w = _world()
    w.apply(workload("g", "lq", cpu="1"))
    w.cp.run_until_idle()
    w.apply(member("a"), member("b"))
    w.cp.run_until_idle()
    assert "kueue.x-k8s.io/is-group-workload" not in (w.wl("g").metadata.annotations or {})
    assert ("Warning", "WorkloadNameConflict",
            'A Workload named "g" already exists but is not a pod group workload; this pod group cannot '
            "be admitted") in w.events("a")
    assert all(gates(p) for p in pods_of(w))


def test_an_evicted_group_has_its_running_members_stopped() -> None:
    """"Should keep the running pod group with the queue name if workload is evicted": every
    running member gets ``TerminationTarget`` and is deleted; the Workload waits for replacements
    with the eviction's reason."""
    w = _world(nominal="2", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
             "metadata": {"name": "urgent"}, "value": 1000})
    w.apply(member("a", script="sleep 300"), member("b", script="sleep 300"))
    w.cp.run_until_idle()
    assert w.admitted("g")
    w.apply(pod("vip", cpu="2", priority_class="urgent"))
    w.cp.run_until_idle()
    evicted = w.cond("g", "Evicted")
    assert (evicted.status, evicted.reason) == ("True", "Preempted")
    for p in pods_of(w):
        cond = next(c for c in p.status.conditions if c.type == "TerminationTarget")
        assert (cond.reason, cond.message) == ("WorkloadEvictedDueToPreempted", evicted.message)
        assert p.metadata.deletion_timestamp is not None
    w.cp.advance(40)
    assert not w.reserved("g")
    assert w.cond("g", "Requeued").status == "True"
    waiting = w.cond("g", "WaitingForReplacementPods")
    assert (waiting.status, waiting.reason) == ("True", "Preempted")
    assert gates(get_pod(w, "vip")) == []
