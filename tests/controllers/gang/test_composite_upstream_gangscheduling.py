"""Upstream's GangScheduling composite cases (Kubernetes 1.37-dev
``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go``, the stored 84,959-character
version), through kbatch's API and scheduler:

* ``TestGangSchedulingFlow``'s "CPG Hierarchical Stage 1-3" and "CPG Basic With Gang Stage 1": the
  PreEnqueue status of the stage's pod (read from the scheduling queue's gate), CPG=true and
  CPG=false (the gate off: no composite is served, the parent link is dropped, the pod's own group
  decides);
* ``Test_isSchedulableAfterCompositePodGroupAdded``: a composite added at the root or in the middle
  of the pod's tree requeues the held pod; one of another tree does not.
"""

from __future__ import annotations

from typing import Any

import pytest

from gang.builders import NATIVE, gpu_cluster, gpu_pod
from gang.composite_builders import COMPOSITE, child_group, composite
from kbatch.runtime.controlplane import ControlPlane

TREE = "waiting for composite pod group \"cpg-root\" tree to meet quorum"
QUORUM = "waiting for minCount pods from a gang to appear in scheduling queue"


def _gate(cp: ControlPlane, name: str) -> str | None:
    entry = cp.manager.get("scheduler").reconciler.queue.entry(f"default/{name}")
    return entry.gate.message if entry is not None and entry.gate is not None else None


def _beta(doc: dict[str, Any]) -> dict[str, Any]:
    return {**doc, "apiVersion": "scheduling.k8s.io/v1beta1"}


def _hierarchy(composites: bool) -> ControlPlane:
    """cpg-root (gang 2) → cpg-sub1 (gang 2: pg1..pg3), cpg-sub2 (basic: pg4 basic, pg5), cpg-sub3
    (gang 2: pg6, pg7); every PodGroup minCount 1 but pg4. No node: pods stay queued."""
    cp = gpu_cluster(0, gates=COMPOSITE if composites else NATIVE)
    if composites:
        cp.apply([composite("cpg-root", 2), composite("cpg-sub1", 2, parent="cpg-root"),
                  composite("cpg-sub2", parent="cpg-root"), composite("cpg-sub3", 2, parent="cpg-root")])
    parents = {"pg1": "cpg-sub1", "pg2": "cpg-sub1", "pg3": "cpg-sub1", "pg4": "cpg-sub2",
               "pg5": "cpg-sub2", "pg6": "cpg-sub3", "pg7": "cpg-sub3"}
    cp.apply([_beta(child_group(pg, None if pg == "pg4" else 1, parent)) for pg, parent in parents.items()])
    return cp


def _add(cp: ControlPlane, *pods: str) -> None:
    cp.apply([gpu_pod(f"{p}-cpg", group=p, gpus=1) for p in pods])


@pytest.mark.parametrize("composites", [True, False], ids=["CPG=true", "CPG=false"])
def test_hierarchical_stage_1_no_pods_tree_not_ready(composites: bool) -> None:
    cp = _hierarchy(composites)
    _add(cp, "pg1")
    assert _gate(cp, "pg1-cpg") == (TREE if composites else None)


@pytest.mark.parametrize("composites", [True, False], ids=["CPG=true", "CPG=false"])
def test_hierarchical_stage_2_sub1_ready_root_not(composites: bool) -> None:
    cp = _hierarchy(composites)
    _add(cp, "pg1", "pg2", "pg6")
    assert _gate(cp, "pg6-cpg") == (TREE if composites else None)


def test_hierarchical_stage_3_p4_makes_the_root_ready() -> None:
    cp = _hierarchy(True)
    _add(cp, "pg1", "pg2", "pg6")
    assert _gate(cp, "pg1-cpg") == TREE
    _add(cp, "pg4")  # cpg-sub2 (basic) gets a ready child: the root has 2 of 2
    assert [_gate(cp, f"{p}-cpg") for p in ("pg1", "pg2", "pg4", "pg6")] == [None] * 4


@pytest.mark.parametrize("composites", [True, False], ids=["CPG=true", "CPG=false"])
def test_basic_root_with_a_ready_gang_child(composites: bool) -> None:
    """cpg-basic-root (basic) over pg-basic-1 and pg-basic-2 (minCount 2 each): pg-basic-1 has its
    two pods, so the root is ready and p2_1 passes PreEnqueue though its own group has 1 of 2; with
    the gate off its own group holds it."""
    cp = gpu_cluster(0, gates=COMPOSITE if composites else NATIVE)
    if composites:
        cp.apply(composite("cpg-basic-root"))
    cp.apply([_beta(child_group(pg, 2, "cpg-basic-root")) for pg in ("pg-basic-1", "pg-basic-2")])
    cp.apply([gpu_pod(n, group=g, gpus=1) for n, g in (("p1-1", "pg-basic-1"), ("p1-2", "pg-basic-1"),
                                                       ("p2-1", "pg-basic-2"))])
    assert _gate(cp, "p2-1") == (None if composites else QUORUM)


# -- Test_isSchedulableAfterCompositePodGroupAdded -----------------------------------------------------
def test_adding_the_root_composite_requeues_the_pod() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([child_group("pg", 1, "cpg-root"), gpu_pod("p", group="pg", gpus=1)])
    assert _gate(cp, "p") == TREE
    cp.apply(composite("cpg-root", 1))
    assert _gate(cp, "p") is None


def test_adding_an_intermediate_composite_that_implies_the_same_root_requeues_the_pod() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("cpg-root", 1), child_group("pg", 1, "cpg-sub"), gpu_pod("p", group="pg", gpus=1)])
    assert _gate(cp, "p") == 'waiting for composite pod group "cpg-sub" tree to meet quorum'
    cp.apply(composite("cpg-sub", 1, parent="cpg-root"))
    assert _gate(cp, "p") is None


def test_adding_a_composite_of_another_tree_does_not() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([child_group("pg", 1, "cpg-1"), gpu_pod("p", group="pg", gpus=1)])
    cp.apply(composite("cpg-2", 1))
    assert _gate(cp, "p") == 'waiting for composite pod group "cpg-1" tree to meet quorum'
