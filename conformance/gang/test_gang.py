"""scheduling.k8s.io/v1beta1 PodGroup: validation, the protection finalizer, and the workload
scheduling cycle with real pods.

Upstream: kubernetes/kubernetes pkg/apis/scheduling/validation (PodGroup), pkg/controller/podgroupprotection,
pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go, pkg/scheduler/schedule_one_podgroup.go,
test/integration/scheduler/gangscheduling; KEP-4671.
"""

from __future__ import annotations

import pytest

from conformance.gang import group_pod, require_kind
from conformance.job.test_api_validation import expect_invalid
from conformance.target import Obj, condition
from conformance.timing import budget

V1BETA1 = "scheduling.k8s.io/v1beta1"
KEP = "KEP-4671 (kubernetes/enhancements keps/sig-scheduling/4671-gang-scheduling)"
PLUGIN = "kubernetes/kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go"
CYCLE = "kubernetes/kubernetes pkg/scheduler/schedule_one_podgroup.go"


def _group(name: str, min_count: int | None) -> Obj:
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    return {"apiVersion": V1BETA1, "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"schedulingPolicy": policy}}


def _nodes(target, names: list[str]) -> list[str | None]:
    return [((target.get("Pod", n) or {}).get("spec") or {}).get("nodeName") for n in names]


@pytest.mark.api_validation
@pytest.mark.semantic("validation: a gang's minCount is required (0 is unset) and greater than zero",
                      source="kubernetes/kubernetes pkg/apis/scheduling/validation (PodGroup policy)")
def test_gang_min_count_must_be_positive(target) -> None:
    require_kind(target, "PodGroup")
    expect_invalid(target, _group("v-zero", 0), "spec.schedulingPolicy.gang.minCount", "FieldValueRequired",
                   "Required value")
    expect_invalid(target, _group("v-neg", -1), "spec.schedulingPolicy.gang.minCount", "FieldValueInvalid",
                   "must be greater than zero")


@pytest.mark.runs_pods  # the podgroup-protection controller runs with the scheduler and kubelet
@pytest.mark.semantic("a PodGroup is created with the scheduling.k8s.io/podgroup-protection finalizer, "
                      "removed on deletion when no active pod uses the group",
                      source=f"{KEP} PodGroup Deletion Protection; pkg/controller/podgroupprotection")
def test_pod_groups_carry_the_protection_finalizer(target) -> None:
    require_kind(target, "PodGroup")
    target.create(_group("protected", 2))
    stored = target.get("PodGroup", "protected")
    assert "scheduling.k8s.io/podgroup-protection" in stored["metadata"]["finalizers"]
    target.delete("PodGroup", "protected")
    assert target.wait_for(lambda: target.get("PodGroup", "protected") is None, timeout=budget(rounds=0))


@pytest.mark.runs_pods
@pytest.mark.semantic("a gang's pods are held until minCount of them exist, then bind together; the PodGroup "
                      "gets PodGroupInitiallyScheduled=True",
                      source=f"{PLUGIN} PreEnqueue, PlacementFeasible; {CYCLE}")
def test_a_gang_binds_only_once_min_count_pods_exist(target) -> None:
    require_kind(target, "PodGroup")
    target.create(_group("train", 2))
    target.create(group_pod("w0", 600, group="train"))
    target.settle()
    assert _nodes(target, ["w0"]) == [None]
    target.create(group_pod("w1", 600, group="train"))
    assert target.wait_for(lambda: all(_nodes(target, ["w0", "w1"])), timeout=budget(rounds=1))

    def scheduled() -> bool:
        found = condition(target.get("PodGroup", "train") or {}, "PodGroupInitiallyScheduled") or {}
        return found.get("status") == "True"

    assert target.wait_for(scheduled, timeout=budget(rounds=0))
    for name in ("w0", "w1"):
        target.delete("Pod", name, grace_period_seconds=0)


@pytest.mark.runs_pods
@pytest.mark.semantic("all or nothing: when one member of a gang fits nowhere, no member binds and the "
                      "PodGroup is PodGroupInitiallyScheduled=False/Unschedulable",
                      source=f"{CYCLE} (revert on failure); {PLUGIN} PlacementFeasible")
def test_a_gang_that_cannot_fit_whole_binds_nothing(target) -> None:
    require_kind(target, "PodGroup")
    target.create(_group("toobig", 2))
    target.create(group_pod("fits", 600, group="toobig"))
    target.create(group_pod("huge", 600, group="toobig", cpu="100000"))

    def unschedulable() -> bool:
        found = condition(target.get("PodGroup", "toobig") or {}, "PodGroupInitiallyScheduled") or {}
        return found.get("reason") == "Unschedulable"

    assert target.wait_for(unschedulable, timeout=budget(rounds=1))
    target.advance(5)
    assert _nodes(target, ["fits", "huge"]) == [None, None]
