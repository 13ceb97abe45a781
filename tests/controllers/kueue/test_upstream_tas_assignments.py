"""Kueue's ``TestFindTopologyAssignments`` (kubernetes-sigs/kueue v0.19.2
``pkg/cache/scheduler/tas_cache_test.go``), translated for the cases of kbatch's first TAS slice: one
pod set, no slices, no leader, no balanced placement, the default gates (``TASProfileMixed`` on, so
unconstrained requests use LeastFreeCapacity). Nodes and pods go through
:func:`~kbatch.controllers.kueue.tas.cluster.build_snapshot` (flavor node labels, levels, readiness,
non-TAS usage), the search through :meth:`TASFlavorSnapshot.find`."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.kueue_v1beta2 import ResourceFlavor
from kbatch.controllers.kueue.tas.cluster import build_snapshot
from kbatch.controllers.kueue.tas.snapshot import PodSetTASRequest

BLOCK, RACK, HOST = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
ONE, TWO, THREE = (HOST,), (BLOCK, RACK), (BLOCK, RACK, HOST)
GI = 1024**3


def node(name: str, labels: dict[str, str], cpu: str, pods: str = "10", memory: str | None = "1Gi",
         ready: bool = True, unschedulable: bool = False, taints: list[dict[str, str]] | None = None) -> Node:
    alloc = {"cpu": cpu, "pods": pods, **({"memory": memory} if memory else {})}
    return Node.model_validate({
        "metadata": {"name": name, "labels": labels},
        "spec": {"unschedulable": unschedulable or None, "taints": taints},
        "status": {"allocatable": alloc,
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    })


def brh(name: str, b: str, r: str, h: str, cpu: str, pods: str = "10", memory: str = "1Gi") -> Node:
    return node(name, {BLOCK: b, RACK: r, HOST: h}, cpu, pods, memory)


def pod(name: str, node_name: str | None, cpu: str, phase: str = "Running",
        annotations: dict[str, str] | None = None) -> Pod:
    return Pod.model_validate({
        "metadata": {"name": name, "namespace": "test-ns", "annotations": annotations},
        "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "i",
                                                        "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": phase},
    })


# b1: r1 (x3), r2 (x5 x1 x6); b2: r1 (x2), r2 (x4, twice the capacity)
DEFAULT = [
    brh("b1-r1-x3", "b1", "r1", "x3", "1"), brh("b1-r2-x5", "b1", "r2", "x5", "1"),
    brh("b1-r2-x1", "b1", "r2", "x1", "1"), brh("b1-r2-x6", "b1", "r2", "x6", "1"),
    brh("b2-r2-x2", "b2", "r1", "x2", "1"), brh("b2-r2-x4", "b2", "r2", "x4", "2", "40", "4Gi"),
]
# b1: r1 (x3:4 x5 x1); b2: r1 (x6:2 x2)
SCATTERED = [
    brh("b1-r1-x3", "b1", "r1", "x3", "4"), brh("b1-r1-x5", "b1", "r1", "x5", "1"),
    brh("b1-r1-x1", "b1", "r1", "x1", "1"), brh("b2-r1-x6", "b2", "r1", "x6", "2"),
    brh("b2-r1-x2", "b2", "r1", "x2", "1"),
]
BINARY = [brh(f"{b}-{r}-{h}", b, r, h, "1") for b, r, h in (
    ("b1", "r1", "x3"), ("b1", "r1", "x5"), ("b1", "r2", "x1"), ("b1", "r2", "x6"),
    ("b2", "r1", "x2"), ("b2", "r1", "x4"), ("b2", "r2", "x7"), ("b2", "r2", "x8"))]
RACKS = [
    node("b1-r1-x3", {BLOCK: "b1", RACK: "r1", HOST: "x3"}, "2", memory=None),
    node("b1-r2-x5", {BLOCK: "b1", RACK: "r2", HOST: "x5"}, "2", "20", memory=None),
    *(node(f"b1-r3-{h}", {BLOCK: "b1", RACK: "r3", HOST: h}, "1", memory=None)
      for h in ("x1", "x6", "x2", "x4")),
]
ONE_RACK = [
    node("b1-r1-x3", {BLOCK: "b1", RACK: "r1", HOST: "x3"}, "2", memory=None),
    node("b1-r1-x5", {BLOCK: "b1", RACK: "r1", HOST: "x5"}, "1", memory=None),
    node("b1-r1-x1", {BLOCK: "b1", RACK: "r1", HOST: "x1"}, "1", memory=None),
]
BLOCKS = [node("b1", {BLOCK: "b1"}, "2", "20", None), node("b2", {BLOCK: "b2"}, "1", "10", None),
          node("b3", {BLOCK: "b3"}, "4", "40", None)]
X3 = [node("x3", {HOST: "x3"}, "1")]
GPU_TAINT = {"key": "example.com/gpu", "value": "present", "effect": "NoSchedule"}


class _Cache:
    def __init__(self, nodes: list[Node], pods: list[Pod]) -> None:
        self.objects: dict[type, list[Any]] = {Node: nodes, Pod: pods}

    def list(self, kind: type) -> list[Any]:
        return self.objects[kind]


def _find(nodes: list[Node], levels: tuple[str, ...], count: int, requests: dict[str, int], *,
          required: str | None = None, preferred: str | None = None, unconstrained: bool = False,
          implied: bool = False, pods: list[Pod] | None = None, node_labels: dict[str, str] | None = None,
          node_selector: dict[str, str] | None = None, tolerations: tuple[Any, ...] = ()) -> Any:
    flavor = ResourceFlavor.model_validate({"metadata": {"name": "tas"}, "spec": {"nodeLabels": node_labels}})
    snap = build_snapshot(_Cache(nodes, pods or []), flavor, "default", levels)
    req = PodSetTASRequest("main", count, requests, required=required, preferred=preferred,
                           unconstrained=unconstrained, implied=implied, node_selector=node_selector or {},
                           tolerations=tolerations)
    return snap.find(req)


def _none(count: int, nodes: int, excluded: str) -> str:
    head = f'topology "default" doesn\'t allow to fit any of {count} pod(s)'
    return f"{head}. Total nodes: {nodes}; excluded: {excluded}"


def _domains(*pairs: tuple[tuple[str, ...] | str, int]) -> tuple[tuple[tuple[str, ...], int], ...]:
    return tuple(((v,) if isinstance(v, str) else v, c) for v, c in pairs)


CPU = {"cpu": 1000}
CASES: dict[str, tuple[dict[str, Any], tuple[str, ...], Any]] = {
    "minimize the number of used racks before optimizing the number of nodes; BestFit": (
        {"nodes": RACKS, "levels": THREE, "count": 4, "requests": CPU, "required": BLOCK},
        ONE, _domains(("x1", 1), ("x2", 1), ("x4", 1), ("x6", 1))),
    "choose the node that can accommodate all Pods": (
        {"nodes": ONE_RACK, "levels": THREE, "count": 2, "requests": CPU, "required": BLOCK},
        ONE, _domains(("x3", 2))),
    "no annotation; implied default to unconstrained; 6 pods fit into hosts scattered across the whole "
    "datacenter even they could fit into single rack": (
        {"nodes": SCATTERED, "levels": THREE, "count": 6, "requests": CPU, "implied": True},
        ONE, _domains(("x1", 1), ("x3", 1), ("x5", 1), ("x2", 1), ("x6", 2))),
    "unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit "
    "into single rack": (
        {"nodes": SCATTERED, "levels": THREE, "count": 6, "requests": CPU, "unconstrained": True},
        ONE, _domains(("x1", 1), ("x3", 1), ("x5", 1), ("x2", 1), ("x6", 2))),
    "unconstrained; a single pod fits into each host; LeastFreeCapacity; TASProfileMixed": (
        {"nodes": DEFAULT, "levels": THREE, "count": 1, "requests": CPU, "unconstrained": True},
        ONE, _domains(("x3", 1))),
    "block required; 4 pods fit into one host each; BestFit": (
        {"nodes": BINARY, "levels": THREE, "count": 4, "requests": CPU, "required": BLOCK},
        ONE, _domains(("x3", 1), ("x5", 1), ("x1", 1), ("x6", 1))),
    "host required; single Pod fits in the host; BestFit": (
        {"nodes": DEFAULT, "levels": THREE, "count": 1, "requests": CPU, "required": HOST},
        ONE, _domains(("x3", 1))),
    "rack required; single Pod fits in a rack; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 1, "requests": CPU, "required": RACK},
        TWO, _domains((("b1", "r1"), 1))),
    "rack required; multiple Pods fit in a rack; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 3, "requests": CPU, "required": RACK},
        TWO, _domains((("b1", "r2"), 3))),
    "block preferred; Pods fit in 2 blocks; BestFit": (
        {"nodes": BLOCKS, "levels": (BLOCK,), "count": 5, "requests": CPU, "preferred": BLOCK},
        (BLOCK,), _domains(("b2", 1), ("b3", 4))),
    "rack required; multiple Pods fit in some racks; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 2, "requests": CPU, "required": RACK},
        TWO, _domains((("b2", "r2"), 2))),
    "rack required; too many pods to fit in any rack; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 4, "requests": CPU, "required": RACK},
        (), 'topology "default" allows to fit only 3 out of 4 pod(s)'),
    "block required; single Pod fits in a block and a single rack; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 1, "requests": CPU, "required": BLOCK},
        TWO, _domains((("b2", "r1"), 1))),
    "block required; Pods fit in a block spread across two racks; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 4, "requests": CPU, "required": BLOCK},
        TWO, _domains((("b1", "r1"), 1), (("b1", "r2"), 3))),
    "block required; single Pod which cannot be split; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 1, "requests": {"cpu": 4000}, "required": BLOCK},
        (), _none(1, 4, 'resource "cpu": 4')),
    "block required; too many Pods to fit requested; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 5, "requests": CPU, "required": BLOCK},
        (), 'topology "default" allows to fit only 4 out of 5 pod(s)'),
    "rack required; single Pod requiring memory; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 4, "requests": {"memory": 1024}, "required": RACK},
        TWO, _domains((("b1", "r1"), 4))),
    "rack preferred; but only block can accommodate the workload; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 4, "requests": CPU, "preferred": RACK},
        TWO, _domains((("b1", "r1"), 1), (("b1", "r2"), 3))),
    "rack preferred; but only multiple blocks can accommodate the workload; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 6, "requests": CPU, "preferred": RACK},
        TWO, _domains((("b1", "r1"), 1), (("b1", "r2"), 3), (("b2", "r2"), 2))),
    "block preferred; but only multiple blocks can accommodate the workload; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 6, "requests": CPU, "preferred": BLOCK},
        TWO, _domains((("b1", "r1"), 1), (("b1", "r2"), 3), (("b2", "r2"), 2))),
    "block preferred; but the workload cannot be accommodate in entire topology; BestFit": (
        {"nodes": DEFAULT, "levels": TWO, "count": 10, "requests": CPU, "preferred": BLOCK},
        (), 'topology "default" allows to fit only 7 out of 10 pod(s)'),
    "only nodes with matching labels are considered; no matching node; BestFit": (
        {"nodes": [node("b1-r1-x3", {"zone": "zone-a", HOST: "x3"}, "1")], "levels": ONE, "count": 1,
         "requests": CPU, "required": HOST, "node_labels": {"zone": "zone-b"}},
        (), "no topology domains at level: kubernetes.io/hostname"),
    "only nodes with matching labels are considered; matching node is found; BestFit": (
        {"nodes": [node("b1-r1-x3", {"zone": "zone-a", HOST: "x3"}, "1")], "levels": ONE, "count": 1,
         "requests": CPU, "required": HOST, "node_labels": {"zone": "zone-a"}},
        ONE, _domains(("x3", 1))),
    "only nodes with matching levels are considered; no host label on node; BestFit": (
        {"nodes": [node("b1-r1-x3", {BLOCK: "b1", RACK: "r1"}, "1")], "levels": THREE, "count": 1,
         "requests": CPU, "required": RACK},
        (), "no topology domains at level: cloud.com/topology-rack"),
    "don't consider unscheduled Pods when computing capacity; BestFit": (
        {"nodes": X3, "levels": ONE, "count": 1, "requests": {"cpu": 600}, "required": HOST,
         "pods": [pod("test-unscheduled", None, "600m", phase="Pending")]},
        ONE, _domains(("x3", 1))),
    "don't consider terminal pods when computing the capacity; BestFit": (
        {"nodes": X3, "levels": ONE, "count": 1, "requests": {"cpu": 600}, "required": HOST,
         "pods": [pod("test-failed", "x3", "600m", "Failed"),
                  pod("test-succeeded", "x3", "600m", "Succeeded")]},
        ONE, _domains(("x3", 1))),
    "include usage from pending scheduled non-TAS pods, blocked assignment; BestFit": (
        {"nodes": X3, "levels": ONE, "count": 1, "requests": {"cpu": 600}, "required": HOST,
         "pods": [pod("test-pending", "x3", "600m", "Pending")]},
        (), _none(1, 1, 'resource "cpu": 1')),
    "include usage from running non-TAS pods, blocked assignment; BestFit": (
        {"nodes": X3, "levels": ONE, "count": 1, "requests": {"cpu": 600}, "required": HOST,
         "pods": [pod("test-running", "x3", "600m")]},
        (), _none(1, 1, 'resource "cpu": 1')),
    "node allocatable capacity completely used by non-TAS pod; empty remainingCapacity": (
        {"nodes": [node("x3", {HOST: "x3"}, "1", "1", None)], "levels": ONE, "count": 1,
         "requests": {"cpu": 100}, "required": HOST, "pods": [pod("running1", "x3", "1")]},
        (), _none(1, 1, 'resource "cpu": 1')),
    "no assignment as node is not ready; BestFit": (
        {"nodes": [node("x3", {HOST: "x3"}, "1", ready=False)], "levels": ONE, "count": 1,
         "requests": CPU, "required": HOST},
        (), "no topology domains at level: kubernetes.io/hostname"),
    "no assignment as node is unschedulable; BestFit": (
        {"nodes": [node("x3", {HOST: "x3"}, "1", unschedulable=True)], "levels": ONE, "count": 1,
         "requests": CPU, "required": HOST},
        (), "no topology domains at level: kubernetes.io/hostname"),
    "skip node which has untolerated taint; BestFit": (
        {"nodes": [node("x3", {"zone": "zone-a", HOST: "x3"}, "1", taints=[GPU_TAINT])], "levels": ONE,
         "count": 1, "requests": CPU, "required": HOST, "node_labels": {"zone": "zone-a"}},
        (), 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: '
            'taint "example.com/gpu=present:NoSchedule": 1'),
    "detailed failure message with exclusion stats": (
        {"nodes": [
            node("x1", {HOST: "x1"}, "1", memory=None,
                 taints=[{"key": "key", "value": "value", "effect": "NoSchedule"}]),
            node("x2", {HOST: "x2", "zone": "zone-b"}, "1", memory=None),
            node("x3", {HOST: "x3", "zone": "zone-b"}, "2", memory=None),
            node("x4", {HOST: "x4", "zone": "zone-a"}, "100m", memory=None)],
         "levels": ONE, "count": 1, "requests": CPU, "required": HOST, "node_selector": {"zone": "zone-a"}},
        (), 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: '
            'nodeSelector: 2, resource "cpu": 1, taint "key=value:NoSchedule": 1'),
    "resource exclusion picks most restrictive resource": (
        {"nodes": [Node.model_validate({
            "metadata": {"name": "dual-shortage", "labels": {HOST: "dual-shortage"}},
            "status": {"allocatable": {"cpu": "500m", "pods": "10", "example.com/gpu": "0"},
                       "conditions": [{"type": "Ready", "status": "True"}]}})],
         "levels": ONE, "count": 1, "requests": {"cpu": 1000, "example.com/gpu": 1}, "required": HOST},
        (), _none(1, 1, 'resource "cpu": 1')),
    "allow to schedule on node with tolerated taint; BestFit": (
        {"nodes": [node("b1-r1-x3", {"zone": "zone-a", HOST: "x3"}, "1", taints=[GPU_TAINT])], "levels": ONE,
         "count": 1, "requests": CPU, "required": HOST, "node_labels": {"zone": "zone-a"},
         "tolerations": (("example.com/gpu", "Equal", "present", ""),)},
        ONE, _domains(("x3", 1))),
    "no assignment as node does not have enough allocatable pods (.status.allocatable['pods']); BestFit": (
        {"nodes": [node("b1-r1-x3", {"zone": "zone-a", HOST: "x3"}, "1000m", "1", None)], "levels": ONE,
         "count": 1, "requests": {"cpu": 300}, "required": HOST, "node_labels": {"zone": "zone-a"},
         "pods": [pod("test-running", "b1-r1-x3", "300m")]},
        (), _none(1, 1, 'resource "pods": 1')),
    "skip node which doesn't match node selector, missing label; BestFit": (
        {"nodes": [node("x3", {"zone": "zone-a", HOST: "x3"}, "1")], "levels": ONE, "count": 1,
         "requests": {"cpu": 300}, "required": HOST, "node_labels": {"zone": "zone-a"},
         "node_selector": {"custom-label-1": "custom-value-1"}},
        (), _none(1, 1, 'nodeSelector: 1')),
    "skip node which doesn't match node selector, label exists, value doesn't match; BestFit": (
        {"nodes": [node("x3", {"zone": "zone-a", HOST: "x3", "custom-label-1": "value-1"}, "1")],
         "levels": ONE, "count": 1, "requests": {"cpu": 300}, "required": HOST,
         "node_labels": {"zone": "zone-a"}, "node_selector": {"custom-label-1": "value-2"}},
        (), _none(1, 1, 'nodeSelector: 1')),
    "allow to schedule on node which matches node; BestFit": (
        {"nodes": [node("b1-r1-x3", {"zone": "zone-a", HOST: "x3", "custom-label-1": "value-1"}, "1"),
                   node("b1-r1-x5", {"zone": "zone-a", HOST: "x5", "custom-label-1": "value-2"}, "1")],
         "levels": ONE, "count": 1, "requests": CPU, "required": HOST, "node_labels": {"zone": "zone-a"},
         "node_selector": {"custom-label-1": "value-2"}},
        ONE, _domains(("x5", 1))),
    # a TAS pod's own usage is the TAS cache's, not the non-TAS pods' (belongsToNonTASCache)
    "a bound TAS pod is not non-TAS usage": (
        {"nodes": X3, "levels": ONE, "count": 1, "requests": {"cpu": 600}, "required": HOST,
         "pods": [pod("tas", "x3", "600m", annotations={"kueue.x-k8s.io/podset-required-topology": HOST})]},
        ONE, _domains(("x3", 1))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_find_topology_assignments(name: str) -> None:
    args, levels, want = CASES[name]
    got = _find(**args)
    if isinstance(want, str):
        assert (got.failure, got.domains) == (want, ())
    else:
        assert (got.failure, got.levels, got.domains) == ("", levels, want)


def test_multiple_pod_sets_account_assumed_pod_usage_against_allocatable_pods() -> None:
    """"multiple PodSets account assumed pod usage against allocatable pods; BestFit": the second
    pod set sees the first one's pod on the node (``assumedUsage``)."""
    flavor = ResourceFlavor.model_validate({"metadata": {"name": "tas"}, "spec": {}})
    snap = build_snapshot(_Cache([node("x1", {HOST: "x1"}, "2", "1", None)], []), flavor, "default", ONE)
    one = snap.find(PodSetTASRequest("one", 1, CPU, required=HOST))
    assert (one.failure, one.domains) == ("", (((("x1",), 1),)))
    assumed = {leaf: {"cpu": 1000 * c, "pods": c} for leaf, c in snap.leaves_of(one)}
    two = snap.find(PodSetTASRequest("two", 1, CPU, required=HOST), assumed)
    assert two.failure == ('topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; '
                           'excluded: resource "pods": 1')
