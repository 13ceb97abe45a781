"""``preemptionPolicy`` on scheduling.k8s.io PodGroups (gate ``PodGroupPreemptionPolicy``, alpha in
1.37; kubernetes/website feature-gates/PodGroupPreemptionPolicy.md: "if a PodGroup has
PreemptionPolicy: Never it will not perform workload aware preemption").

The Priority admission plugin fills the field from the PriorityClass (v1beta1 ``PodGroupSpec``:
"defaults to PreemptLowerPriority if value is unset in PriorityClass"); the scheduler's
``validatePodGroup`` wants every pod's policy to be the group's; ``PodGroupPostFilter`` does not run
for a ``Never`` group."""

from __future__ import annotations

from typing import Any

import pytest

from gang.builders import bound, gpu_cluster, gpu_pod, native_group, node_of, pod, priority_class
from kbatch.api.errors import Forbidden, Invalid
from kbatch.api.scheduling_v1beta1 import PodGroup, Workload
from kbatch.runtime.controlplane import ControlPlane

ON = "GenericWorkload=true,PodGroupPreemptionPolicy=true"
OFF = "GenericWorkload=true"


def never_class(name: str, value: int) -> dict[str, Any]:
    doc = priority_class(name, value)
    doc["preemptionPolicy"] = "Never"
    return doc


def busy_cluster(gates: str) -> ControlPlane:
    """Two 8-GPU nodes, each running a low-priority pod (sleep 600)."""
    cp = gpu_cluster(2, gates=gates)
    cp.apply([priority_class("low", 10), priority_class("high", 1000), never_class("high-never", 1000)])
    cp.apply([gpu_pod(f"l{i}", priority_class="low", command="sleep 600") for i in range(2)])
    assert bound(cp, ["l0", "l1"]) == ["l0", "l1"]
    return cp


def group(name: str, min_count: int, klass: str, policy: str | None = None) -> dict[str, Any]:
    doc = native_group(name, min_count, priority_class=klass)
    if policy is not None:
        doc["spec"]["preemptionPolicy"] = policy
    return doc


def test_with_the_gate_on_a_never_group_waits_and_preempts_nothing() -> None:
    cp = busy_cluster(ON)
    cp.apply(group("pg", 2, "high-never"))
    assert cp.client.get(PodGroup, "pg", "default").spec.preemption_policy == "Never"  # from the class
    cp.apply([gpu_pod(f"h{i}", group="pg", priority_class="high-never") for i in range(2)])
    cp.advance(30)
    assert bound(cp, ["h0", "h1"]) == []
    assert not any(pod(cp, f"l{i}").metadata.deletion_timestamp for i in range(2))  # type: ignore[union-attr]
    assert pod(cp, "h0").status.nominated_node_name is None  # type: ignore[union-attr]


def test_with_the_gate_on_the_default_policy_preempts_as_before() -> None:
    cp = busy_cluster(ON)
    cp.apply(group("pg", 2, "high"))
    assert cp.client.get(PodGroup, "pg", "default").spec.preemption_policy == "PreemptLowerPriority"
    cp.apply([gpu_pod(f"h{i}", group="pg", priority_class="high") for i in range(2)])
    cp.advance(10)
    assert sorted(filter(None, (node_of(cp, f"h{i}") for i in range(2)))) == ["node-0", "node-1"]


def test_with_the_gate_off_the_field_is_dropped() -> None:
    cp = busy_cluster(OFF)
    cp.apply(group("pg", 2, "high", policy="Never"))
    assert cp.client.get(PodGroup, "pg", "default").spec.preemption_policy is None
    cp.apply([gpu_pod(f"h{i}", group="pg", priority_class="high") for i in range(2)])
    cp.advance(10)
    assert bound(cp, ["h0", "h1"]) == ["h0", "h1"]  # the group preempted


def test_a_policy_other_than_the_classes_is_forbidden() -> None:
    cp = gpu_cluster(0, gates=ON, controllers="")
    cp.apply(priority_class("high", 1000))
    with pytest.raises(Forbidden) as info:
        cp.apply(group("pg", 2, "high", policy="Never"))
    assert info.value.message == (
        'podgroups.scheduling.k8s.io "pg" is forbidden: the string value of PreemptionPolicy (Never) must '
        "not be provided in pod group spec; priority admission controller computed PreemptLowerPriority "
        "from the given PriorityClass name")


def test_the_policy_is_immutable_and_validated_on_workload_templates() -> None:
    cp = gpu_cluster(0, gates=ON, controllers="")
    cp.apply(never_class("high-never", 1000))
    cp.apply(group("pg", 2, "high-never"))
    with pytest.raises(Invalid) as info:
        cp.client.patch(PodGroup, "pg", {"spec": {"preemptionPolicy": "PreemptLowerPriority"}}, "default")
    assert "spec.preemptionPolicy: Invalid value" in info.value.message
    assert info.value.message.endswith("field is immutable")
    template = {"name": "t", "schedulingPolicy": {"gang": {"minCount": 2}}, "preemptionPolicy": "Sometimes"}
    with pytest.raises(Invalid) as bad:
        cp.apply({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w"},
                  "spec": {"podGroupTemplates": [template]}})
    assert bad.value.message.endswith(
        'spec.podGroupTemplates[0].preemptionPolicy: Unsupported value: "Sometimes": supported values: '
        '"Never", "PreemptLowerPriority"')
    template["preemptionPolicy"] = "Never"
    cp.apply({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w"},
              "spec": {"podGroupTemplates": [template]}})
    kept = cp.client.get(Workload, "w", "default").spec.pod_group_templates[0]  # type: ignore[index]
    assert kept.preemption_policy == "Never"


def test_every_pod_must_have_the_groups_policy() -> None:
    cp = gpu_cluster(2, gates=ON)
    cp.apply([priority_class("high", 1000), never_class("high-never", 1000)])
    cp.apply(group("pg", 2, "high-never"))
    cp.apply([gpu_pod("a", group="pg", priority_class="high-never"),
              gpu_pod("b", group="pg", priority_class="high")])  # same value, PreemptLowerPriority
    assert bound(cp, ["a", "b"]) == []
    cond = pod(cp, "a").status.condition("PodScheduled")  # type: ignore[union-attr]
    assert cond is not None and cond.reason == "SchedulerError"
    assert cond.message == ("all pods in a single pod group should have the same preemption policy as the "
                            "pod group's preemption policy, got PreemptLowerPriority and Never")
