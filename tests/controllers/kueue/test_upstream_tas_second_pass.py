"""The scheduler's second pass for a Workload with an unhealthy node, translated from Kueue's
``TestScheduleForTAS`` (kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_tas_test.go``, the
"workload with unhealthyNode annotation; second pass; …" cases and "replacement claim is seen by a
later workload of the same cycle"): the Workload holds quota with a topology assignment naming
``x0`` (or ``x1``) and ``status.unhealthyNodes`` names it; after the back-off the scheduler
rewrites the assignment (and clears ``unhealthyNodes``), or with ``TASFailedNodeReplacementFailFast``
evicts it, or without it records ``SecondPassFailed`` and keeps the assignment; the "workload with
unhealthyNode; second pass; slices; …" rows and "… preferred; no fit when using slices; FailFast"
(the replacement of podset slices).

Through the API and the scheduler as kbatch runs them: the nodes, Topology, flavor and ClusterQueue
are created, the Workload is created and given its admission through the status subresource (as
the scheduler would have written it), the LocalQueue last."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.kueue_v1beta1.topology import domains_to_slices
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, local_queue, quota

BLOCK, RACK, HOST = "cloud.com/topology-block", "cloud.provider.com/rack", "kubernetes.io/hostname"
THREE_LEVEL = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "tas-three-level"},
               "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]}}
SINGLE_LEVEL = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "tas-single-level"},
                "spec": {"levels": [{"nodeLabel": HOST}]}}
#        b1                   b2
#     /      \             /      \
#    r1       r2          r1       r2
#    |     /  |  \        |        |
#   x1   x2  x3  x4      x5       x6
DEFAULT_NODES = [("x1", "b1", "r1", "1", "1Gi"), ("x2", "b1", "r2", "1", "1Gi"),
                 ("x3", "b1", "r2", "1", "1Gi"), ("x4", "b1", "r2", "1", "1Gi"),
                 ("x5", "b2", "r1", "1", "1Gi"), ("x6", "b2", "r2", "2", "4Gi")]


def _world(topology: dict[str, Any], nodes: list[tuple[str, str, str, str, str]], **gates: bool) -> World:
    w = World(topology, {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas-default"},
                         "spec": {"nodeLabels": {"tas-node": "true"},
                                  "topologyName": topology["metadata"]["name"]}}, feature_gates=dict(gates))
    for name, block, rack, cpu, memory in nodes:
        labels = {"tas-node": "true", BLOCK: block, RACK: rack} if block else {"tas-node": "true"}
        create_nodes(w.cp, 1, NodeTemplate(cpu=cpu, memory=memory, pods=10, labels=labels),
                     prefix=name[0], start=int(name[1:]))
    w.apply(cluster_queue("tas-main", (["cpu", "memory"], [("tas-default", [quota("cpu", "50"),
                                                                             quota("memory", "50Gi")])])))
    return w


def _pod_set(name: str, count: int, cpu: str, memory: str | None = None, **request: str) -> dict[str, Any]:
    requests = {"cpu": cpu, **({"memory": memory} if memory else {})}
    return {"name": name, "count": count, "topologyRequest": request or None, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": requests}}]}}}


def _psa(name: str, count: int, usage: str, *domains: tuple[str, int],
         memory: str | None = None) -> dict[str, Any]:
    flavors = {"cpu": "tas-default", **({"memory": "tas-default"} if memory else {})}
    return {"name": name, "count": count, "flavors": flavors,
            "resourceUsage": {"cpu": usage, **({"memory": memory} if memory else {})},
            "topologyAssignment": domains_to_slices(
                {"levels": [HOST], "domains": [{"values": [v], "count": c} for v, c in domains]})}


def _admitted(w: World, name: str, pod_sets: list[dict[str, Any]], psas: list[dict[str, Any]],
              unhealthy: str) -> None:
    """A Workload holding quota with these assignments and ``unhealthyNodes: [unhealthy]``."""
    w.apply({"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": name, "namespace": "default"},
             "spec": {"queueName": "tas-main", "podSets": pod_sets}})
    wl = w.cp.client.get(Workload, name, "default")
    now = w.cp.clock.now_datetime()
    status = {
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
             "message": "Quota reserved in ClusterQueue tas-main", "lastTransitionTime": now},
            {"type": "Admitted", "status": "True", "reason": "Admitted",
             "message": "The workload is admitted", "lastTransitionTime": now}],
        "admission": {"clusterQueue": "tas-main", "podSetAssignments": psas},
        "unhealthyNodes": [{"name": unhealthy}],
    }
    w.cp.client.update_status(wl.model_copy(update={"status": type(wl.status).model_validate(status)}))
    w.cp.run_until_idle()


def _second_pass(w: World) -> None:
    w.apply(local_queue("tas-main", "tas-main"))
    w.cp.run_until_idle()
    w.cp.advance(1)  # the second pass's first back-off
    w.cp.run_until_idle()


def _domains(w: World, name: str, index: int = 0) -> list[tuple[str, int]]:
    from kbatch.api.kueue_v1beta1.topology import slices_to_domains

    ta = w.wl(name).status.admission.pod_set_assignments[index].topology_assignment  # type: ignore[union-attr]
    return [(d["values"][-1], d["count"]) for d in slices_to_domains(ta.to_dict())["domains"]]


def _replaced(w: World, name: str) -> bool:
    status = w.wl(name).status
    return status is not None and not status.unhealthy_nodes and w.admitted(name)


CASES = {
    # name: (pod sets, assignments, unhealthy node, want domains)
    "baseline scenario": (
        [_pod_set("one", 1, "1", preferred=HOST)], [_psa("one", 1, "1", ("x0", 1))], "x0", [("x1", 1)]),
    "preferred; fit in different rack": (
        [_pod_set("one", 2, "500m", preferred=RACK)], [_psa("one", 2, "1", ("x0", 1), ("x1", 1))], "x0",
        [("x1", 2)]),
    "podspec constraints apply": (
        [_pod_set("one", 1, "1", memory="2Gi", preferred=RACK)],
        [_psa("one", 1, "1", ("x0", 1), memory="2Gi")], "x0", [("x6", 1)]),
    "required rack; fit": (
        [_pod_set("one", 2, "1", required=RACK)], [_psa("one", 2, "2", ("x0", 1), ("x2", 1))], "x0",
        [("x2", 1), ("x3", 1)]),
    "required rack for a single node; fit": (
        [_pod_set("one", 1, "1", required=RACK)], [_psa("one", 1, "1", ("x0", 1))], "x0", [("x1", 1)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_pass_finds_the_replacement(case: str) -> None:
    pod_sets, psas, unhealthy, want = CASES[case]
    w = _world(THREE_LEVEL, DEFAULT_NODES)
    _admitted(w, "foo", pod_sets, psas, unhealthy)
    assert w.wl("foo").status.unhealthy_nodes  # type: ignore[union-attr]
    _second_pass(w)
    assert _replaced(w, "foo")
    assert _domains(w, "foo") == want


def test_second_pass_two_podsets() -> None:
    w = _world(THREE_LEVEL, DEFAULT_NODES)
    _admitted(w, "foo", [_pod_set("one", 1, "1", preferred=HOST), _pod_set("two", 1, "1", preferred=HOST)],
              [_psa("one", 1, "1", ("x0", 1)), _psa("two", 1, "1", ("x1", 1))], "x0")
    _second_pass(w)
    assert _replaced(w, "foo")
    assert (_domains(w, "foo", 0), _domains(w, "foo", 1)) == ([("x2", 1)], [("x1", 1)])


NO_FIT = {
    "preferred; no fit": (
        [_pod_set("one", 1, "3", preferred=RACK)], [_psa("one", 1, "3", ("x0", 1))],
        'couldn\'t assign flavors to pod set one: topology "tas-three-level" doesn\'t allow to fit any of 1 '
        'pod(s). Total nodes: 6; excluded: resource "cpu": 6'),
    "required rack; no fit": (
        [_pod_set("one", 2, "1", required=RACK)], [_psa("one", 2, "2", ("x0", 1), ("x1", 1))],
        'couldn\'t assign flavors to pod set one: topology "tas-three-level" doesn\'t allow to fit any of 1 '
        'pod(s). Total nodes: 6; excluded: resource "cpu": 1, topologyDomain: 5'),
}


@pytest.mark.parametrize("case", sorted(NO_FIT))
def test_second_pass_without_fail_fast_keeps_the_assignment_and_warns(case: str) -> None:
    pod_sets, psas, message = NO_FIT[case]
    w = _world(THREE_LEVEL, DEFAULT_NODES, TASFailedNodeReplacementFailFast=False)
    before = [(d["name"], d["topologyAssignment"]) for d in psas]
    _admitted(w, "foo", pod_sets, psas, "x0")
    _second_pass(w)
    wl = w.wl("foo")
    assert [n.name for n in wl.status.unhealthy_nodes or ()] == ["x0"]  # type: ignore[union-attr]
    assert [(p.name, p.topology_assignment.to_dict())  # type: ignore[union-attr]
            for p in wl.status.admission.pod_set_assignments] == before  # type: ignore[union-attr]
    assert ("Warning", "SecondPassFailed", message) in w.events("foo")
    assert w.cond("foo", "Evicted") is None
    # retried after the doubled back-off (2 s), failing again
    w.cp.advance(2)
    w.cp.run_until_idle()
    assert [e for e in w.events("foo") if e[1] == "SecondPassFailed"]


def test_second_pass_no_fit_with_fail_fast_evicts() -> None:
    w = _world(THREE_LEVEL, DEFAULT_NODES)
    _admitted(w, "foo", [_pod_set("one", 1, "3", preferred=RACK)], [_psa("one", 1, "3", ("x0", 1))], "x0")
    _second_pass(w)
    message = "Workload was evicted as there was no replacement for unhealthy node(s): x0"
    evicted = w.cond("foo", "Evicted")
    assert (evicted.status, evicted.reason, evicted.message) == ("True", "NodeFailures", message)
    assert ("Normal", "EvictedDueToNodeFailures", message) in w.events("foo")


def test_the_replacement_claim_is_seen_by_a_later_workload_of_the_same_cycle() -> None:
    w = _world(SINGLE_LEVEL, [(f"x{i}", "", "", "1", "1Gi") for i in (1, 2, 3)])
    _admitted(w, "replaced", [_pod_set("one", 1, "1", required=HOST)], [_psa("one", 1, "1", ("x1", 1))], "x1")
    # one cycle sees both: the second pass made due now, the contender and its queue created unsettled
    mgr = w.cp.manager.get("kueue-scheduler").reconciler.mgr
    mgr.second_pass.pending["default/replaced"].ready_at = w.cp.clock.now_datetime()
    w.cp.client.create(Workload.model_validate(
        {"metadata": {"name": "contender", "namespace": "default"},
         "spec": {"queueName": "tas-main", "podSets": [_pod_set("one", 1, "1", required=HOST)]}}))
    w.apply(local_queue("tas-main", "tas-main"))
    assert _replaced(w, "replaced") and w.admitted("contender")
    assert (_domains(w, "replaced"), _domains(w, "contender")) == ([("x2", 1)], [("x3", 1)])


@pytest.mark.parametrize("skip", [True, False])
def test_a_workload_owned_by_a_single_pod_keeps_its_assignment(skip: bool) -> None:
    """``SkipReassignmentForPodOwnedWorkloads`` (beta, on): the pod cannot move, so the second pass
    keeps the assignment and only clears ``unhealthyNodes``; with the gate off it is replaced."""
    from kbatch.api.core_v1 import Pod

    w = _world(THREE_LEVEL, DEFAULT_NODES, SkipReassignmentForPodOwnedWorkloads=skip)
    owner = w.cp.client.create(Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                                                   "spec": {"containers": [{"name": "c", "image": "i"}]}}))
    _admitted(w, "foo", [_pod_set("one", 1, "1", preferred=HOST)], [_psa("one", 1, "1", ("x0", 1))], "x0")
    wl = w.cp.client.get(Workload, "foo", "default")
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner.metadata.uid, "controller": True}
    w.cp.client.update(wl.model_copy(update={"metadata": wl.metadata.model_copy(
        update={"owner_references": [type(wl.metadata).model_validate({"ownerReferences": [ref]})
                                     .owner_references[0]]})}))
    _second_pass(w)
    assert _replaced(w, "foo")
    assert _domains(w, "foo") == ([("x0", 1)] if skip else [("x1", 1)])


def _sliced(name: str, count: int, cpu: str, level: str, size: int, slice_level: str,
            required: bool = False) -> dict[str, Any]:
    """A pod set asking for ``size``-pod slices at ``slice_level`` inside a ``level`` domain."""
    request = {"required" if required else "preferred": level,
               "podSetSliceRequiredTopology": slice_level, "podSetSliceSize": size}
    return _pod_set(name, count, cpu, **request)


SLICE_CASES = {
    # "workload with unhealthyNode; second pass; slices; …": (pod set, assignment, unhealthy, want)
    "baseline": (
        _sliced("one", 2, "1", BLOCK, 2, RACK), _psa("one", 2, "2000m", ("x2", 1), ("x3", 1)), "x2",
        [("x3", 1), ("x4", 1)]),
    "unhealthy node hosts incomplete slice": (
        _sliced("one", 8, "250m", BLOCK, 8, RACK), _psa("one", 8, "2000m", ("x2", 4), ("x3", 4)), "x2",
        [("x3", 4), ("x4", 4)]),
    "unhealthy node hosts whole slices": (
        _sliced("one", 12, "250m", BLOCK, 4, RACK, required=True),
        _psa("one", 12, "3000m", ("x2", 4), ("x3", 4), ("x4", 4)), "x3", [("x1", 4), ("x2", 4), ("x4", 4)]),
    "unhealthy node hosts whole slice and incomplete slice": (
        _sliced("one", 8, "200m", BLOCK, 2, RACK, required=True),
        _psa("one", 8, "1600m", ("x1", 3), ("x2", 5)), "x1", [("x2", 5), ("x3", 3)]),
    "unhealthy node hosts the whole workload": (
        _sliced("one", 4, "250m", RACK, 2, HOST, required=True), _psa("one", 4, "1000m", ("x1", 4)), "x1",
        [("x5", 4)]),
    "finds correct slice domain": (
        _sliced("one", 8, "500m", BLOCK, 4, BLOCK),
        _psa("one", 8, "4000m", ("x1", 2), ("x3", 2), ("x5", 2), ("x7", 2)), "x7",
        [("x1", 2), ("x3", 2), ("x5", 2), ("x6", 2)]),
}


@pytest.mark.parametrize("case", sorted(SLICE_CASES))
def test_second_pass_replaces_the_node_of_a_sliced_pod_set(case: str) -> None:
    pod_set, psa, unhealthy, want = SLICE_CASES[case]
    w = _world(THREE_LEVEL, DEFAULT_NODES)
    _admitted(w, "foo", [pod_set], [psa], unhealthy)
    _second_pass(w)
    assert _replaced(w, "foo")
    assert _domains(w, "foo") == want


def test_second_pass_preferred_no_fit_when_using_slices_with_fail_fast_evicts() -> None:
    """The lost pod must complete the rack's slice; the rack (x1) is full: evicted."""
    w = _world(THREE_LEVEL, DEFAULT_NODES)
    _admitted(w, "foo", [_sliced("one", 2, "1", BLOCK, 2, RACK)],
              [_psa("one", 2, "2000m", ("x0", 1), ("x1", 1))], "x0")
    _second_pass(w)
    message = "Workload was evicted as there was no replacement for unhealthy node(s): x0"
    evicted = w.cond("foo", "Evicted")
    assert (evicted.status, evicted.reason, evicted.message) == ("True", "NodeFailures", message)
    assert ("Normal", "EvictedDueToNodeFailures", message) in w.events("foo")
