"""Kueue's ``TestReconcile`` of the TopologyUngater (kubernetes-sigs/kueue v0.19.2
``pkg/controller/tas/topology_ungater_test.go``), translated for the cases of one pod set without
offsets, sub-groups or unhealthy nodes: which gated pods get which domain's node selector
(:func:`~kbatch.controllers.kueue.tas.ungater.pods_to_domains`), and when a Workload is not one the
ungater acts on (:func:`~kbatch.controllers.kueue.tas.ungater.admitted_by_tas`)."""

from __future__ import annotations

from typing import Any

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
