"""Kueue's ``TestReconcile`` of the TopologyUngater (kubernetes-sigs/kueue v0.19.2
``pkg/controller/tas/topology_ungater_test.go``), translated: for one pod set, which gated pods
get which domain's node selector (:func:`~kbatch.controllers.kueue.tas.ungater.pods_to_domains`),
and when a Workload is not one the ungater acts on
(:func:`~kbatch.controllers.kueue.tas.ungater.admitted_by_tas`); then, through the reconciler, the
podset-group and ``kueue.x-k8s.io/pod-index-offset`` rows (LeaderWorkerSet, ranks below 0,
Kubeflow with a valid and an invalid offset)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.api.kueue_v1beta2 import PodSetAssignment, PodSetTopologyRequest, Workload
from kbatch.controllers.kueue.tas.ungater import admitted_by_tas, pods_to_domains

BLOCK, RACK = "cloud.com/topology-block", "cloud.com/topology-rack"
INDEX = "batch.kubernetes.io/job-completion-index"
JOB = PodSetTopologyRequest(pod_index_label=INDEX)


def _psa(count: int, *domains: tuple[tuple[str, str], int]) -> PodSetAssignment:
    ta = domains_to_slices({"levels": [BLOCK, RACK],
                            "domains": [{"values": list(v), "count": c} for v, c in domains]})
    return PodSetAssignment.model_validate({"name": "main", "count": count, "topologyAssignment": ta})


def _pod(name: str, index: int | None = None, gated: bool = True, selector: tuple[str, str] | None = None,
         created: str = "2026-01-01T00:00:00Z") -> Pod:
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "ns", "creationTimestamp": created,
                     "labels": {"kueue.x-k8s.io/podset": "main",
                                **({INDEX: str(index)} if index is not None else {})},
                     "annotations": {"kueue.x-k8s.io/workload": "unit-test"}},
        "spec": {"containers": [{"name": "c", "image": "i"}],
                 "schedulingGates": [{"name": "kueue.x-k8s.io/topology"}] if gated else None,
                 "nodeSelector": {BLOCK: selector[0], RACK: selector[1]} if selector else None},
    })


def _ungated(pods: list[Pod], psa: PodSetAssignment, req: Any = None) -> dict[str, tuple[str, str]]:
    placed = pods_to_domains(pods, psa, req)
    return {p.metadata.name or "": (labels[BLOCK], labels[RACK]) for p, labels in placed}


def test_ungate_single_pod() -> None:
    assert _ungated([_pod("pod")], _psa(1, (("b1", "r1"), 1))) == {"pod": ("b1", "r1")}


def test_ungate_multiple_pods_in_a_single_domain() -> None:
    got = _ungated([_pod("pod1"), _pod("pod2")], _psa(2, (("b1", "r1"), 2)))
    assert got == {"pod1": ("b1", "r1"), "pod2": ("b1", "r1")}


def test_ungate_multiple_pods_across_multiple_domains() -> None:
    got = _ungated([_pod("pod1"), _pod("pod2")], _psa(2, (("b1", "r1"), 1), (("b1", "r2"), 1)))
    assert sorted(got.values()) == [("b1", "r1"), ("b1", "r2")]
    # greedy: the oldest gated pod first (kbatch orders by creation time, then name)
    later = _ungated([_pod("a", created="2026-01-01T00:00:05Z"), _pod("b")],
                     _psa(2, (("b1", "r1"), 1), (("b1", "r2"), 1)))
    assert later == {"b": ("b1", "r1"), "a": ("b1", "r2")}


def test_expect_single_pod_one_already_running_do_not_ungate_second_pod() -> None:
    pods = [_pod("pod-already-running", gated=False, selector=("b1", "r1")), _pod("pod-gated")]
    assert _ungated(pods, _psa(1, (("b1", "r1"), 1))) == {}


def test_two_pods_one_already_ungated_second_to_ungate() -> None:
    pods = [_pod("pod1", gated=False, selector=("b1", "r1")), _pod("pod2")]
    assert _ungated(pods, _psa(2, (("b1", "r1"), 1), (("b2", "r1"), 1))) == {"pod2": ("b2", "r1")}


def test_ranks_ungate_pods_according_to_their_ranks_for_batch_job_some_pods_already_scheduled() -> None:
    pods = [_pod("p0", 0, gated=False, selector=("b1", "r1")), _pod("p1", 1), _pod("p2", 2),
            _pod("p3", 3, gated=False, selector=("b2", "r1")), _pod("p4", 4)]
    psa = _psa(5, (("b1", "r1"), 2), (("b1", "r2"), 1), (("b2", "r1"), 2))
    assert _ungated(pods, psa, JOB) == {"p1": ("b1", "r1"), "p2": ("b1", "r2"), "p4": ("b2", "r1")}


def test_ranks_ungate_pods_according_to_their_ranks_for_batch_job_for_all_pods() -> None:
    # created in reverse: ranks, not creation order, decide
    pods = [_pod(f"p{i}", i, created=f"2026-01-01T00:00:0{9 - i}Z") for i in range(5)]
    psa = _psa(5, (("b1", "r1"), 2), (("b1", "r2"), 1), (("b2", "r1"), 2))
    assert _ungated(pods, psa, JOB) == {
        "p0": ("b1", "r1"), "p1": ("b1", "r1"), "p2": ("b1", "r2"), "p3": ("b2", "r1"), "p4": ("b2", "r1")}


def test_ranks_gracefully_handle_repeated_ranks_by_falling_back_to_greedy() -> None:
    pods = [_pod("p0", 0), _pod("p1", 0, created="2026-01-01T00:00:01Z")]
    assert _ungated(pods, _psa(2, (("b1", "r1"), 1), (("b2", "r1"), 1)), JOB) == {
        "p0": ("b1", "r1"), "p1": ("b2", "r1")}


def test_ranks_out_of_range_pod_index_falls_back_to_greedy_assignment() -> None:
    pods = [_pod("p0", 0), _pod("p1", 7, created="2026-01-01T00:00:01Z")]
    assert _ungated(pods, _psa(2, (("b1", "r1"), 1), (("b2", "r1"), 1)), JOB) == {
        "p0": ("b1", "r1"), "p1": ("b2", "r1")}


def test_ranks_a_running_pod_off_its_rank_domain_falls_back_to_greedy() -> None:
    pods = [_pod("p0", 0, gated=False, selector=("b2", "r1")), _pod("p1", 1)]
    assert _ungated(pods, _psa(2, (("b1", "r1"), 1), (("b2", "r1"), 1)), JOB) == {"p1": ("b1", "r1")}


def _workload(admitted: bool, topology: bool, reserved: bool = True) -> Workload:
    psa: dict[str, Any] = {"name": "main", "count": 1}
    if topology:
        psa["topologyAssignment"] = _psa(1, (("b1", "r1"), 1)).topology_assignment.to_dict()  # type: ignore[union-attr]
    status: dict[str, Any] = {"conditions": [{"type": "Admitted", "status": "True" if admitted else "False"}]}
    if reserved:
        status["admission"] = {"clusterQueue": "cq", "podSetAssignments": [psa]}
    return Workload.model_validate({"metadata": {"name": "unit-test", "namespace": "ns"}, "status": status})


def test_which_workloads_the_ungater_acts_on() -> None:
    assert admitted_by_tas(_workload(admitted=True, topology=True))
    # "workload without admission", "... admitted but without topology assignment",
    # "... with admission (reserved quota), but not admitted": the pods remain gated
    assert not admitted_by_tas(_workload(admitted=True, topology=True, reserved=False))
    assert not admitted_by_tas(_workload(admitted=True, topology=False))
    assert not admitted_by_tas(_workload(admitted=False, topology=True))


# --- unhealthy nodes, sub-groups (JobSet) and pod groups -----------------------------------------------
HOST = "kubernetes.io/hostname"
JOB_INDEX = "jobset.sigs.k8s.io/job-index"
GROUP_INDEX = "kueue.x-k8s.io/pod-group-pod-index"


def _host_psa(count: int, *domains: tuple[str, int]) -> PodSetAssignment:
    ta = domains_to_slices({"levels": [HOST], "domains": [{"values": [v], "count": c} for v, c in domains]})
    return PodSetAssignment.model_validate({"name": "main", "count": count, "topologyAssignment": ta})


def _labelled(name: str, labels: dict[str, str], gated: bool = True, host: str | None = None) -> Pod:
    pod = _pod(name, gated=gated)
    pod.metadata.labels = {**(pod.metadata.labels or {}), **labels}
    pod.spec.node_selector = {HOST: host} if host else None
    return pod


def test_does_not_ungate_a_pod_onto_a_node_marked_unhealthy() -> None:
    placed = pods_to_domains([_pod("pod")], _host_psa(1, ("x1", 1)), None, {"x1"})
    assert placed == []


def test_does_not_ungate_a_replacement_pod_onto_the_unhealthy_domain_of_a_two_pod_group() -> None:
    pods = [_labelled("pod-survivor", {}, gated=False, host="x2"), _labelled("pod-replacement", {})]
    assert pods_to_domains(pods, _host_psa(2, ("x1", 1), ("x2", 1)), None, {"x1"}) == []


def test_ungate_replacement_pod_for_unhealthy_node() -> None:
    """Once the second pass replaced x1 by x3, the replacement pod goes to x3."""
    pods = [_labelled("pod-survivor", {}, gated=False, host="x2"), _labelled("pod-replacement", {})]
    placed = pods_to_domains(pods, _host_psa(2, ("x2", 1), ("x3", 1)), None)
    assert [(p.metadata.name, labels) for p, labels in placed] == [("pod-replacement", {HOST: "x3"})]


JOBSET = PodSetTopologyRequest(pod_index_label=INDEX, sub_group_index_label=JOB_INDEX, sub_group_count=2)
JOBSET_PSA = _psa(4, (("b1", "r1"), 2), (("b1", "r2"), 1), (("b2", "r1"), 1))


def _jobset_pod(name: str, index: int, job: int, created: str = "2026-01-01T00:00:00Z", **kw: Any) -> Pod:
    pod = _pod(name, index, created=created, **kw)
    pod.metadata.labels = {**(pod.metadata.labels or {}), JOB_INDEX: str(job)}
    return pod


def test_ranks_support_rank_based_ordering_for_jobset_for_all_pods() -> None:
    # created in reverse: index + job index x pods per job, not creation order, decide
    pods = [_jobset_pod("p0", 0, 0, "2026-01-01T00:00:09Z"), _jobset_pod("p1", 1, 0, "2026-01-01T00:00:08Z"),
            _jobset_pod("p2", 0, 1, "2026-01-01T00:00:07Z"), _jobset_pod("p3", 1, 1, "2026-01-01T00:00:06Z")]
    assert _ungated(pods, JOBSET_PSA, JOBSET) == {
        "p0": ("b1", "r1"), "p1": ("b1", "r1"), "p2": ("b1", "r2"), "p3": ("b2", "r1")}


def test_ranks_support_rank_based_ordering_for_jobset_some_pods_already_scheduled() -> None:
    pods = [_jobset_pod("p0", 0, 0, gated=False, selector=("b1", "r1")), _jobset_pod("p1", 1, 0),
            _jobset_pod("p2", 0, 1, gated=False, selector=("b1", "r2")), _jobset_pod("p3", 1, 1)]
    assert _ungated(pods, JOBSET_PSA, JOBSET) == {"p1": ("b1", "r1"), "p3": ("b2", "r1")}


@pytest.mark.parametrize("count", [None, 0])
def test_ungate_single_pod_with_sub_group_index_label_but_no_or_zero_sub_group_count(
    count: int | None,
) -> None:
    req = PodSetTopologyRequest(pod_index_label=INDEX, sub_group_index_label=JOB_INDEX, sub_group_count=count)
    assert _ungated([_jobset_pod("pod", 0, 0)], _psa(1, (("b1", "r1"), 1)), req) == {"pod": ("b1", "r1")}


def test_ranks_support_rank_based_ordering_for_pod_groups_for_all_pods() -> None:
    req = PodSetTopologyRequest(pod_index_label=GROUP_INDEX)
    pods = [_labelled(f"p{i}", {GROUP_INDEX: str(i)}) for i in (2, 0, 1)]
    pods[0].metadata.creation_timestamp = None  # ranks, not age, decide
    placed = _ungated(pods, _psa(3, (("b1", "r1"), 1), (("b1", "r2"), 1), (("b2", "r1"), 1)), req)
    assert placed == {"p0": ("b1", "r1"), "p1": ("b1", "r2"), "p2": ("b2", "r1")}


# --- podset groups and ``kueue.x-k8s.io/pod-index-offset``: through the reconciler ---------------------
LWS_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"
REPLICA_INDEX = "training.kubeflow.org/replica-index"
OFFSET = "kueue.x-k8s.io/pod-index-offset"
ABC = (("b1", "r1"), 1), (("b1", "r2"), 1), (("b2", "r1"), 2)


class _Cache:
    def __init__(self, wl: Workload, pods: list[Pod]) -> None:
        self.wl, self.pods = wl, {p.metadata.name: p for p in pods}

    def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        return self.wl

    def list(self, kind: type, namespace: str | None = None,
             labels: dict[str, str] | None = None) -> list[Pod]:
        return [p for _, p in sorted(self.pods.items())
                if all((p.metadata.labels or {}).get(k) == v for k, v in (labels or {}).items())]

    def update(self, pod: Pod) -> Pod:
        self.pods[pod.metadata.name] = pod
        return pod


def _grouped(sets: list[tuple[str, int, tuple[tuple[tuple[str, str], int], ...]]], label: str,
             group: str | None) -> Workload:
    """An admitted Workload with these (name, count, domains) pod sets, their pods ranked by
    ``label``, in one podset group when ``group`` is given."""
    specs, psas = [], []
    for name, count, domains in sets:
        specs.append({"name": name, "count": count, "template": {"spec": {"containers": [{"name": "c"}]}},
                      "topologyRequest": {"required": RACK, "podIndexLabel": label,
                                          "podSetGroupName": group}})
        psa = _psa(count, *domains).to_dict()
        psas.append({**psa, "name": name})
    return Workload.model_validate({
        "metadata": {"name": "unit-test", "namespace": "ns"},
        "spec": {"queueName": "lq", "podSets": specs},
        "status": {"conditions": [{"type": "Admitted", "status": "True"}],
                   "admission": {"clusterQueue": "cq", "podSetAssignments": psas}}})


def _member(name: str, pod_set: str, label: str, index: int, offset: str | None = None) -> Pod:
    pod = _pod(name)
    pod.metadata.labels = {"kueue.x-k8s.io/podset": pod_set, label: str(index)}
    if offset is not None:
        pod.metadata.annotations = {**(pod.metadata.annotations or {}), OFFSET: offset}
    return pod


def _reconciled(wl: Workload, pods: list[Pod]) -> dict[str, tuple[str, str] | None]:
    from kbatch.controllers.kueue.tas.ungater import TopologyUngater
    from kbatch.runtime.clock import VirtualClock
    from kbatch.runtime.metrics import MetricsRegistry
    from kbatch.runtime.reconcile import Request

    cache = _Cache(wl, pods)
    # the ungater records ``pod_scheduling_gate_removal_seconds`` on the clock's time
    ctx = type("Ctx", (), {"cache": cache, "client": cache, "clock": VirtualClock(),
                           "metrics": MetricsRegistry()})()
    TopologyUngater(ctx).reconcile(Request("ns", "unit-test"))
    return {name: ((p.spec.node_selector or {})[BLOCK], (p.spec.node_selector or {})[RACK])
            if not p.spec.scheduling_gates else None for name, p in cache.pods.items()}


def test_ranks_ungate_pods_according_to_their_ranks_for_leader_worker_set_for_all_pods() -> None:
    """The workers' indexes continue the leader's (offset: the leader's one pod)."""
    wl = _grouped([("workers", 4, ABC), ("leader", 1, ((("b1", "r1"), 1),))], LWS_INDEX, "lws-group")
    pods = [_member("p0", "leader", LWS_INDEX, 0), _member("p1", "workers", LWS_INDEX, 2),
            _member("p2", "workers", LWS_INDEX, 1), _member("p3", "workers", LWS_INDEX, 3),
            _member("p4", "workers", LWS_INDEX, 4)]
    assert _reconciled(wl, pods) == {"p0": ("b1", "r1"), "p1": ("b1", "r2"), "p2": ("b1", "r1"),
                                     "p3": ("b2", "r1"), "p4": ("b2", "r1")}


def test_ranks_gracefully_handle_situation_with_ranks_going_below_0() -> None:
    """Workers numbered from 0 in a group: a rank below 0, so the greedy fill."""
    wl = _grouped([("workers", 4, ABC), ("leader", 1, ((("b1", "r1"), 1),))], LWS_INDEX, "lws-group")
    pods = [_member("p0", "leader", LWS_INDEX, 0)] + [
        _member(f"p{i + 1}", "workers", LWS_INDEX, i) for i in range(4)]
    assert _reconciled(wl, pods) == {"p0": ("b1", "r1"), "p1": ("b1", "r1"), "p2": ("b1", "r2"),
                                     "p3": ("b2", "r1"), "p4": ("b2", "r1")}


KUBEFLOW = [("launcher", 1, ((("b1", "r1"), 1),)),
            ("worker", 3, ((("b1", "r1"), 1), (("b1", "r2"), 1), (("b2", "r1"), 1)))]


def test_ranks_support_rank_based_ordering_for_kubeflow_with_valid_offset_annotation() -> None:
    wl = _grouped(KUBEFLOW, REPLICA_INDEX, "mpijob-group")
    pods = [_member("l0", "launcher", REPLICA_INDEX, 0)] + [
        _member(f"w{i}", "worker", REPLICA_INDEX, i, offset="1") for i in (1, 2, 3)]
    assert _reconciled(wl, pods) == {"l0": ("b1", "r1"), "w1": ("b1", "r1"), "w2": ("b1", "r2"),
                                     "w3": ("b2", "r1")}


def test_ranks_support_rank_based_ordering_for_kubeflow_with_invalid_offset_annotation() -> None:
    """``errParseOffsetAnnotation``: the reconcile fails (and is retried), no pod is ungated."""
    from kbatch.controllers.kueue.tas.ranks import OffsetError

    wl = _grouped(KUBEFLOW, REPLICA_INDEX, "mpijob-group")
    pods = [_member("l0", "launcher", REPLICA_INDEX, 0)] + [
        _member(f"w{i}", "worker", REPLICA_INDEX, i, offset="invalid") for i in (0, 1, 2)]
    with pytest.raises(OffsetError, match="failed to parse offset annotation"):
        _reconciled(wl, pods)


def test_the_pod_index_offset_alone_shifts_a_pod_sets_ranks() -> None:
    """kbatch's own: no group; indexes 5..8 with offset 5 are ranks 0..3 (without the offset they
    exceed the pod set: greedy, by name, would put w5 first)."""
    wl = _grouped([("main", 4, ABC)], INDEX, None)
    pods = [_member(f"w{i}", "main", INDEX, 13 - i, offset="5") for i in (5, 6, 7, 8)]
    assert _reconciled(wl, pods) == {"w5": ("b2", "r1"), "w6": ("b2", "r1"), "w7": ("b1", "r2"),
                                     "w8": ("b1", "r1")}
