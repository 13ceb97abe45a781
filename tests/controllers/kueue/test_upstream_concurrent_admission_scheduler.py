"""Upstream's concurrent-admission scheduler rows: one cycle of kbatch's scheduler.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_concurrent_admission_test.go``
``TestScheduleConcurrentAdmission`` (gate ``ConcurrentAdmission`` on). ClusterQueue
``concurrent-cq`` (namespaces labelled ``dep: eng``) has 10 CPUs of ``on-demand`` and 10 of ``spot``
and no policy: siblings are recognised by their parent's UID whatever the ClusterQueue says. Upstream's
rows run with ``UnadmittedWorkloadsObservability``; they are run here with it on, so the granular
QuotaReserved reasons show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbatch.api.kueue_v1beta2 import Workload

from .helpers import KUEUE, cluster_queue, quota
from .upstream_schedule import W, one_cycle

GATES = "ConcurrentAdmission=true,UnadmittedWorkloadsObservability=true"
CPU = "cpu"
ALLOWED = "kueue.x-k8s.io/workload-allowed-resource-flavors"  # WorkloadAllowedResourceFlavorAnnotation


@dataclass
class Variant(W):
    """A Variant of ``parent-workload`` (UID ``parent-uid``) restricted to ``flavor``."""

    flavor: str = ""

    def doc(self) -> dict[str, Any]:
        doc = super().doc()
        doc["metadata"]["annotations"] = {ALLOWED: self.flavor}
        doc["metadata"]["ownerReferences"] = [
            {
                "apiVersion": KUEUE,
                "kind": "Workload",
                "name": "parent-workload",
                "uid": "parent-uid",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        return doc


def _cq(name: str, *flavors: str, **spec: Any) -> dict[str, Any]:
    cq = cluster_queue(name, ([CPU], [(f, [quota(CPU, "10")]) for f in flavors]), **spec)
    cq["spec"]["namespaceSelector"] = {
        "matchExpressions": [{"key": "dep", "operator": "In", "values": ["eng"]}]
    }
    return cq


CQS = [_cq("concurrent-cq", "on-demand", "spot")]
LQS = [("concurrent-queue", "eng-alpha", "concurrent-cq")]


def _admitted(name: str, flavor: str, queue: str = "concurrent-queue", cq: str = "concurrent-cq") -> Variant:
    return Variant(
        name,
        "eng-alpha",
        queue,
        {CPU: "10"},
        admitted_to=cq,
        assignment=[{CPU: (flavor, "10")}],
        flavor=flavor,
    )


def _candidate(name: str, flavor: str, queue: str = "concurrent-queue") -> Variant:
    return Variant(name, "eng-alpha", queue, {CPU: "10"}, flavor=flavor)


def _cond(wl: Workload, kind: str) -> tuple[str, str, str] | None:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == kind:
            return c.status or "", c.reason or "", c.message or ""
    return None


def test_more_favorable_variant_evicts_less_favorable_sibling() -> None:
    out, world = _run(
        [_admitted("sibling-less-favorable", "spot"), _candidate("candidate-more-favorable", "on-demand")]
    )
    assert out.pending == {
        "eng-alpha/candidate-more-favorable": (
            "WaitingForPreemptedWorkloads",
            ". Pending the migration of 1 workload(s)",
        )
    }
    sibling = world("sibling-less-favorable")
    evicted = _cond(sibling, "Evicted")
    assert evicted is not None and evicted[:2] == ("True", "FlavorMigration")
    assert evicted[2].startswith("Evicted to accommodate a workload (UID: ")
    assert evicted[2].endswith(") due to migration to more favorable resource flavor")
    stats = sibling.status.scheduling_stats
    assert [(e.reason, e.count) for e in stats.evictions] == [("FlavorMigration", 1)]
    assert out.reserved == {"eng-alpha/sibling-less-favorable": ("concurrent-cq", {"main": {CPU: "spot"}})}
    assert out.left == {"concurrent-cq": ["eng-alpha/candidate-more-favorable"]}


def test_less_favorable_variant_is_skipped_when_more_favorable_sibling_is_admitted() -> None:
    out, world = _run(
        [_admitted("sibling-more-favorable", "on-demand"), _candidate("candidate-less-favorable", "spot")]
    )
    assert out.pending == {
        "eng-alpha/candidate-less-favorable": (
            "PendingEvaluation",
            "A more favorable variant is already admitted",
        )
    }
    assert _cond(world("candidate-less-favorable"), "Admitted") == (
        "False",
        "NoReservation",
        "The workload has no reservation",
    )
    assert _cond(world("sibling-more-favorable"), "Evicted") is None
    assert out.left == {"concurrent-cq": ["eng-alpha/candidate-less-favorable"]}


def test_migration_is_stopped_when_target_flavor_is_below_last_acceptable_flavor_name() -> None:
    cq = _cq(
        "concurrent-cq-with-min-pref",
        "reservation",
        "on-demand",
        "spot",
        concurrentAdmissionPolicy={
            "migration": {
                "mode": "TryPreferredFlavors",
                "constraints": {"lastAcceptableFlavorName": "reservation"},
            }
        },
    )
    lq = ("concurrent-queue-new", "eng-alpha", "concurrent-cq-with-min-pref")
    out, world = _run(
        [
            _admitted("sibling-less-favorable", "spot", lq[0], cq["metadata"]["name"]),
            _candidate("candidate-more-favorable", "on-demand", lq[0]),
        ],
        [cq],
        [lq],
        flavors=["reservation"],
    )
    assert out.pending == {
        "eng-alpha/candidate-more-favorable": (
            "PendingEvaluation",
            "Target flavor is below LastAcceptableFlavorName",
        )
    }
    assert _cond(world("sibling-less-favorable"), "Evicted") is None
    assert out.reserved == {
        "eng-alpha/sibling-less-favorable": ("concurrent-cq-with-min-pref", {"main": {CPU: "spot"}})
    }
    assert out.left == {"concurrent-cq-with-min-pref": ["eng-alpha/candidate-more-favorable"]}


def test_with_the_gate_off_a_variant_is_an_ordinary_workload() -> None:
    """Gate off: no sibling check, the annotation is not read, the candidate is admitted on the
    first flavor with room."""
    out, _ = _run(
        [_admitted("sibling-more-favorable", "on-demand"), _candidate("candidate-less-favorable", "spot")],
        gates="",
    )
    assert out.reserved["eng-alpha/candidate-less-favorable"] == ("concurrent-cq", {"main": {CPU: "spot"}})


def _run(
    workloads: list[W],
    cqs: list[dict[str, Any]] | None = None,
    lqs: list[tuple[str, str, str]] | None = None,
    flavors: list[str] | None = None,
    gates: str = GATES,
) -> tuple[Any, Any]:
    extra = [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": f}, "spec": {}}
        for f in flavors or ()
    ]
    out = one_cycle(workloads, extra + CQS + (cqs or []), LQS + (lqs or []), feature_gates=gates)
    return out, lambda name: out.world.wl(name, "eng-alpha")
