"""Kueue's ``TestReconcile`` of the TopologyUngater (kubernetes-sigs/kueue v0.19.2
``pkg/controller/tas/topology_ungater_test.go``), translated for the cases of one pod set without
offsets: which gated pods get which domain's node selector
(:func:`~kbatch.controllers.kueue.tas.ungater.pods_to_domains`), and when a Workload is not one the
ungater acts on (:func:`~kbatch.controllers.kueue.tas.ungater.admitted_by_tas`)."""

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
