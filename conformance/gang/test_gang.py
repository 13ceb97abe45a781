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
# Kind.group: a bare "PodGroup" over HTTP resolves to the first group serving one, which is
# scheduler-plugins' scheduling.x-k8s.io when Kubernetes' own (GenericWorkload, beta, off upstream) is not
POD_GROUP = "PodGroup.scheduling.k8s.io"
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
    require_kind(target, POD_GROUP)
    expect_invalid(target, _group("v-zero", 0), "spec.schedulingPolicy.gang.minCount", "FieldValueRequired",
                   "Required value")
    expect_invalid(target, _group("v-neg", -1), "spec.schedulingPolicy.gang.minCount", "FieldValueInvalid",
                   "must be greater than zero")


@pytest.mark.runs_pods  # the podgroup-protection controller runs with the scheduler and kubelet
@pytest.mark.semantic("a PodGroup is created with the scheduling.k8s.io/podgroup-protection finalizer, "
                      "removed on deletion when no active pod uses the group",
                      source=f"{KEP} PodGroup Deletion Protection; pkg/controller/podgroupprotection")
def test_pod_groups_carry_the_protection_finalizer(target) -> None:
    require_kind(target, POD_GROUP)
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
    require_kind(target, POD_GROUP)
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
    require_kind(target, POD_GROUP)
    target.create(_group("toobig", 2))
    target.create(group_pod("fits", 600, group="toobig"))
    target.create(group_pod("huge", 600, group="toobig", cpu="100000"))

    def unschedulable() -> bool:
        found = condition(target.get("PodGroup", "toobig") or {}, "PodGroupInitiallyScheduled") or {}
        return found.get("reason") == "Unschedulable"

    assert target.wait_for(unschedulable, timeout=budget(rounds=1))
    target.advance(5)
    assert _nodes(target, ["fits", "huge"]) == [None, None]


PREEMPTION = "KEP-5710 workload-aware preemption; kubernetes/kubernetes pkg/scheduler/framework/preemption"


def _node_cpu_milli(target) -> list[int]:
    """Each node's allocatable CPU in millicores."""
    found = []
    for node in target.list("Node"):
        cpu = str(((node.get("status") or {}).get("allocatable") or {}).get("cpu", "0"))
        found.append(int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000))
    return found


@pytest.mark.runs_pods
@pytest.mark.semantic("workload-aware preemption: a higher-priority gang that does not fit evicts a lower "
                      "disruptionMode: all group whole, though one of its pods would free enough room; "
                      "every victim pod and the victim PodGroup get DisruptionTarget=True",
                      source=f"{PREEMPTION}; {CYCLE}")
def test_preemption_takes_an_all_mode_group_whole(target) -> None:
    require_kind(target, POD_GROUP)
    nodes = _node_cpu_milli(target)
    if len(nodes) < 2:
        pytest.skip("needs two nodes")
    low_class, high_class = f"{target.namespace}-low", f"{target.namespace}-high"
    per_pod = f"{min(nodes) * 6 // 10}m"  # one such pod per node
    target.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": {"name": low_class}, "value": 10})
    target.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": {"name": high_class}, "value": 1000})
    low_names = [f"low-{i}" for i in range(len(nodes))]
    try:
        low = _group("low", len(nodes))
        low["spec"].update({"disruptionMode": {"all": {}}, "priorityClassName": low_class})
        target.create(low)
        for name in low_names:
            target.create(group_pod(name, 600, group="low", cpu=per_pod, priority_class=low_class))
        assert target.wait_for(lambda: all(_nodes(target, low_names)), timeout=budget(rounds=1))
        high = _group("high", 1)
        high["spec"]["priorityClassName"] = high_class
        target.create(high)
        target.create(group_pod("high-0", 600, group="high", cpu=per_pod, priority_class=high_class))

        def disrupted() -> bool:
            found = condition(target.get("PodGroup", "low") or {}, "DisruptionTarget") or {}
            return found.get("status") == "True"

        assert target.wait_for(disrupted, timeout=budget(rounds=1))
        for name in low_names:  # every member, not only the one whose room was needed
            victim = target.get("Pod", name)
            assert victim is None or (condition(victim, "DisruptionTarget") or {}).get("status") == "True"
        assert target.wait_for(lambda: all(_nodes(target, ["high-0"])), timeout=budget(rounds=2, extra=30))
        assert target.wait_for(lambda: all(target.get("Pod", n) is None for n in low_names),
                               timeout=budget(rounds=1, extra=30))
    finally:
        for name in ("high-0", *low_names):
            target.delete("Pod", name, grace_period_seconds=0)
        target.delete("PriorityClass", low_class)
        target.delete("PriorityClass", high_class)


JOB_INTEGRATION = ("KEP-5547; kubernetes/kubernetes pkg/controller/job/job_scheduling_manager.go "
                   "(GenerateWorkloadName, GeneratePodGroupName; job_scheduling_manager_test.go)")


@pytest.mark.runs_pods
@pytest.mark.needs_workload_with_job
@pytest.mark.semantic("Job integration: a new Job with spec.scheduling gets a Workload <job>-<hash> "
                      "controlled by it, one template <job>-pgt-0 whose gang takes the parallelism, a "
                      "PodGroup <workload>-<template>-<hash> owned by the Job and referring to the Workload, "
                      "and pods that join it", source=JOB_INTEGRATION)
def test_a_job_with_spec_scheduling_gets_a_workload_and_pod_group(target) -> None:
    require_kind(target, "Workload.scheduling.k8s.io")
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "gangjob"},
           "spec": {"parallelism": 2, "completions": 2, "completionMode": "Indexed",
                    "scheduling": {"schedulingPolicy": {"gang": {}}},
                    "template": {"spec": group_pod("x", 5)["spec"]}}}
    created = target.create(job)
    assert "scheduling" in created["spec"], "spec.scheduling dropped: the WorkloadWithJob gate is off"
    try:
        def workloads() -> list:
            return [w for w in target.list("Workload")
                    if ((w["spec"].get("controllerRef") or {}).get("name")) == "gangjob"]

        assert target.wait_for(lambda: len(workloads()) == 1, timeout=budget(rounds=0))
        [workload] = workloads()
        name = workload["metadata"]["name"]
        assert name.startswith("gangjob-") and len(name) > len("gangjob-")
        assert workload["spec"]["controllerRef"] == {"apiGroup": "batch", "kind": "Job", "name": "gangjob"}
        [template] = workload["spec"]["podGroupTemplates"]
        assert template["name"] == "gangjob-pgt-0"
        assert template["schedulingPolicy"] == {"gang": {"minCount": 2}}

        def groups() -> list:
            return [g for g in target.list("PodGroup")
                    if (g["spec"].get("workloadRef") or {}).get("workloadName") == name]

        assert target.wait_for(lambda: len(groups()) == 1, timeout=budget(rounds=0))
        [group] = groups()
        assert group["spec"]["workloadRef"] == {"workloadName": name, "templateName": "gangjob-pgt-0"}
        assert group["metadata"]["name"].startswith(f"{name}-gangjob-pgt-0-")
        owners = [(r["kind"], bool(r.get("controller"))) for r in group["metadata"]["ownerReferences"]]
        assert ("Job", True) in owners and ("Workload", False) in owners

        def joined() -> bool:
            pods = [p for p in target.list("Pod") if p["metadata"]["name"].startswith("gangjob-")]
            return len(pods) == 2 and all(
                (p["spec"].get("schedulingGroup") or {}).get("podGroupName") == group["metadata"]["name"]
                for p in pods)

        assert target.wait_for(joined, timeout=budget(rounds=1))
    finally:
        target.delete("Job", "gangjob", propagation_policy="Background")
