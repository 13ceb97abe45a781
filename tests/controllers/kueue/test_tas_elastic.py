"""Elastic Jobs with topology-aware scheduling (``ElasticJobsViaWorkloadSlicesWithTAS``, alpha, off)
through the whole control plane.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_elastic_workloads.go``,
``pkg/scheduler/flavorassigner/tas_flavorassigner.go`` (the rows of
``TestWorkloadsTopologyRequests_ElasticJobsValidation`` below),
``pkg/controller/tas/topology_ungater.go`` (``podsForPodSet`` by slice chain),
``test/integration/singlecluster/tas/tas_test.go`` "TAS with ElasticJobsViaWorkloadSlices", KEP-77
"Topology Aware Scheduling Integration".
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.workloadslicing.slices import find_latest_active
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, local_queue, quota, workload
from tests.controllers.kueue.test_elastic_jobs import elastic_job, live_pods, scale, slices

BLOCK, RACK, HOST = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
TOPOLOGY = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
            "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]}}
TAS_FLAVOR = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
              "spec": {"nodeLabels": {"group": "tas"}, "topologyName": "default"}}
GATE = "ElasticJobsViaWorkloadSlicesWithTAS"
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"


def _world(on: bool = True, racks: tuple[tuple[str, str], ...] = (("b1", "r1"), ("b1", "r2"), ("b2", "r1")),
           per_rack: int = 2, cpu: str = "2") -> World:
    w = World(TOPOLOGY, TAS_FLAVOR, controllers="*", feature_gates={GATE: on})
    for b, r in racks:
        labels = {"group": "tas", BLOCK: b, RACK: f"{b}-{r}"}
        create_nodes(w.cp, per_rack, NodeTemplate(cpu=cpu, labels=labels), prefix=f"{b}-{r}-")
    w.apply(cluster_queue("cq", (["cpu"], [("tas", [quota("cpu", "100")])])), local_queue("lq", "cq"))
    return w


def _domains(wl: Workload) -> dict[str, int]:
    ta = wl.status.admission.pod_set_assignments[0].topology_assignment  # type: ignore[union-attr]
    return {values[-1]: count for values, count in assignment_domains(ta)[1]}


def _bound(w: World, job: str) -> dict[str, str]:
    return {p.metadata.name: p.spec.node_name for p in live_pods(w, job) if p.spec.node_name}


def _topology_gated(pod: Pod) -> bool:
    return any(g.name == TOPOLOGY_GATE for g in pod.spec.scheduling_gates or ())


def test_a_scale_up_keeps_the_running_pods_domain_and_places_only_the_new_pods() -> None:
    w = _world()
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    w.cp.advance(2)
    (old,) = slices(w, "e")
    assert _domains(old) == {"b1-r1-0": 2}
    before = _bound(w, "e")
    scale(w, "e", 5)
    w.cp.advance(3)
    new = slices(w, "e")[-1]
    # the kept 2 pods on b1-r1-0, the 3 new ones where the unconstrained search puts them
    assert _domains(new) == {"b1-r1-0": 2, "b1-r1-1": 2, "b1-r2-0": 1}
    pods = live_pods(w, "e")
    assert len(pods) == 5 and not any(_topology_gated(p) for p in pods)
    after = _bound(w, "e")
    assert {n: after[n] for n in before} == before  # the running pods did not move
    assert sorted(after.values()) == ["b1-r1-0", "b1-r1-0", "b1-r1-1", "b1-r1-1", "b1-r2-0"]
    for pod in pods:  # each pod's node selector names the node it runs on
        assert pod.spec.node_selector[HOST] == pod.spec.node_name


def test_without_the_gate_the_new_slice_is_placed_anew_and_its_new_pods_stay_gated() -> None:
    w = _world(on=False)
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    w.cp.advance(2)
    scale(w, "e", 5)
    w.cp.advance(3)
    new = slices(w, "e")[-1]
    assert "b1-r1-0" not in _domains(new)  # the old pods' node is full: not in the fresh placement
    assert sum(_topology_gated(p) for p in live_pods(w, "e")) == 3


def test_a_scale_up_after_a_scale_down_truncates_the_previous_assignment() -> None:
    w = _world()
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    w.cp.advance(2)
    scale(w, "e", 5)
    w.cp.advance(3)
    scale(w, "e", 3)  # in place: the slice keeps its 5-pod assignment
    w.cp.advance(3)
    scale(w, "e", 4)  # a new slice: 4 < 5 previous pods, so the previous assignment cut to 4
    w.cp.advance(30)
    newest = find_latest_active(slices(w, "e"))
    assert newest is not None and _domains(newest) == {"b1-r1-0": 2, "b1-r1-1": 2}
    assert len(_bound(w, "e")) == 4


def test_a_stale_previous_assignment_is_placed_anew() -> None:
    w = _world()
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    w.cp.advance(2)
    (old,) = slices(w, "e")
    w.cp.client.delete(Node, "b1-r1-0")  # the previous assignment's node leaves the topology
    w.cp.run_until_idle()
    scale(w, "e", 3)
    w.cp.advance(3)
    new = slices(w, "e")[-1]
    if new.metadata.name != old.metadata.name and new.status and new.status.admission:
        assert "b1-r1-0" not in _domains(new)


def _elastic_workload(name: str, **request: Any) -> dict[str, Any]:
    wl = workload(name, "lq", count=2)
    wl["metadata"]["annotations"] = {"kueue.x-k8s.io/elastic-job": "true"}
    wl["spec"]["podSets"][0]["topologyRequest"] = request
    return wl


@pytest.mark.parametrize(
    ("name", "request_", "annotated", "refusal"),
    [
        ("required topology is rejected", {"required": RACK}, True, "required"),
        ("preferred topology is rejected", {"preferred": RACK}, True, "preferred"),
        ("unconstrained topology is accepted", {"unconstrained": True}, True, None),
        ("required topology is accepted for regular jobs", {"required": RACK}, False, None),
        ("preferred topology is accepted for regular jobs", {"preferred": RACK}, False, None),
    ],
)
def test_upstream_rows_elastic_topology_validation(
    name: str, request_: dict[str, Any], annotated: bool, refusal: str | None
) -> None:
    """``TestWorkloadsTopologyRequests_ElasticJobsValidation``: required and preferred refused for
    an elastic Workload (it cannot fit), unconstrained accepted, both accepted for a regular one.
    One world per row: Workloads differing only in their topology request share a scheduling hash,
    so a refused one would hold the next back."""
    w = _world()
    wl = _elastic_workload("wl", **request_)
    if not annotated:
        wl["metadata"]["annotations"] = {}
    w.apply(wl)
    w.cp.run_until_idle()
    if refusal is None:
        assert w.admitted("wl"), name
        return
    reserved = w.cond("wl", "QuotaReserved")
    assert (reserved.status, reserved.message) == (
        "False", f"failed to assign flavors to pod set main: {refusal} topology is not supported with "
        "ElasticJobsViaWorkloadSlices")


def test_the_refusal_needs_the_gate() -> None:
    w = _world(on=False)
    w.apply(_elastic_workload("req", required=RACK))
    w.cp.run_until_idle()
    assert w.admitted("req")


# --- the property ----------------------------------------------------------------------------------------
NODE_CPU = {"b1-r1-0": 2, "b1-r1-1": 2, "b1-r2-0": 2, "b1-r2-1": 2, "b2-r1-0": 2, "b2-r1-1": 2}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=4))
def test_property_elastic_resizes_keep_pods_put_and_assignments_within_capacity(sizes: list[int]) -> None:
    """Across random scale-ups and downs of an elastic TAS Job: every running pod stays on the node
    it was bound to, the active slice's assignment counts the slice's pods once it is admitted for
    them, each of its domains holds no more pods than the node's capacity, and a scale-up's slice
    keeps every domain of the slice it replaced."""
    w = _world()
    w.apply(elastic_job("e", 2))
    w.cp.run_until_idle()
    w.cp.advance(3)
    bound = _bound(w, "e")
    previous = find_latest_active(slices(w, "e"))
    for size in sizes:
        scale(w, "e", size)
        w.cp.advance(5)
        now = _bound(w, "e")
        for pod, node in now.items():
            assert bound.get(pod, node) == node, f"{pod} moved from {bound.get(pod)} to {node}"
        bound.update(now)
        active = find_latest_active(slices(w, "e"))
        if active is None or not w.admitted(active.metadata.name):
            continue
        domains = _domains(active)
        if previous is not None and active.metadata.name != previous.metadata.name:
            kept = _domains(previous)
            if sum(domains.values()) > sum(kept.values()):  # a scale-up keeps every previous domain
                assert all(domains.get(node, 0) >= count for node, count in kept.items())
        previous = active
        admitted = active.status.admission.pod_set_assignments[0].count  # type: ignore[union-attr]
        assert sum(domains.values()) == admitted
        assert all(count <= NODE_CPU[node] for node, count in domains.items())
        running = [p for p in live_pods(w, "e") if p.spec.node_name]
        assert len(running) <= sum(NODE_CPU.values())


def test_as_upstream_the_delta_search_counts_the_kept_pods_twice() -> None:
    """``handleScaleUp`` assumes the previous pods' usage while the old slice, still admitted, has
    it in the snapshot too: 3 pods on two 2-cpu nodes (2 + 1), scaled to 4, find no room for the
    fourth on the half-empty node, and without preemption in the ClusterQueue the slice waits."""
    w = _world(racks=(("b1", "r1"),))
    w.apply(elastic_job("e", 3))
    w.cp.run_until_idle()
    w.cp.advance(3)
    (old,) = slices(w, "e")
    assert _domains(old) == {"b1-r1-0": 2, "b1-r1-1": 1}
    scale(w, "e", 4)
    w.cp.advance(5)
    new = slices(w, "e")[-1]
    reserved = w.cond(new.metadata.name, "QuotaReserved")
    assert (reserved.status, reserved.message) == ("False", (
        'couldn\'t assign flavors to pod set main: topology "default" doesn\'t allow to fit any of 1 pod(s). '
        'Total nodes: 2; excluded: resource "cpu": 2'))
    assert len(_bound(w, "e")) == 3
