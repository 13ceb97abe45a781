"""scheduling.k8s.io/v1beta1 objects through the API: validation with upstream's messages and the 1.37
mutability rules, gated fields dropped, PodGroup priority admission, and deletion protection
(``podgroup-protection`` controller; upstream ``pkg/apis/scheduling/validation/validation_test.go``,
``pkg/controller/podgroupprotection/podgroup_protection_controller_test.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from gang.builders import NATIVE, gpu_cluster, gpu_pod, native_group, node_of, pod, priority_class
from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Forbidden, Invalid, NotFound
from kbatch.api.scheduling_v1beta1 import PodGroup, Workload


def causes(err: Invalid) -> list[tuple[str, str]]:
    return [(c["field"], c["message"]) for c in err.status.to_dict()["details"]["causes"]]


def invalid(cp: Any, manifest: dict) -> list[tuple[str, str]]:
    with pytest.raises(Invalid) as info:
        cp.apply(manifest)
    return causes(info.value)


def workload(templates: list[dict], **spec: Any) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "wl"},
            "spec": {"podGroupTemplates": templates, **spec}}


@pytest.fixture
def cp() -> Any:
    return gpu_cluster(1, gates=NATIVE, controllers="podgroup-protection")


def test_scheduling_policy_is_a_union_and_min_count_is_required(cp: Any) -> None:
    bad = native_group("a", 2)
    bad["spec"]["schedulingPolicy"] = {}
    assert invalid(cp, bad) == [("spec.schedulingPolicy",
                                 'Invalid value: "": must specify one of: `basic`, `gang`')]
    both = native_group("b", 2)
    both["spec"]["schedulingPolicy"]["basic"] = {}
    assert invalid(cp, both) == [("spec.schedulingPolicy",
                                  'Invalid value: "{`basic`, `gang`}": exactly one of `basic`, `gang` is '
                                  "required, but multiple fields are set")]
    assert invalid(cp, native_group("c", 0)) == [("spec.schedulingPolicy.gang.minCount", "Required value")]
    assert invalid(cp, native_group("d", -1)) == [
        ("spec.schedulingPolicy.gang.minCount", "Invalid value: -1: must be greater than zero")]
    basic_all = native_group("e", None, all_disruption=True)
    assert invalid(cp, basic_all) == [
        ("spec.disruptionMode.all", "Forbidden: may not be set with a basic scheduling policy")]


def test_min_count_is_mutable_but_the_policy_variant_and_disruption_mode_are_not(cp: Any) -> None:
    cp.apply(native_group("pg", 2))
    cp.client.patch(PodGroup, "pg", {"spec": {"schedulingPolicy": {"gang": {"minCount": 5}}}}, "default")
    assert cp.client.get(PodGroup, "pg", "default").spec.scheduling_policy.gang.min_count == 5
    with pytest.raises(Invalid) as info:
        cp.client.patch(PodGroup, "pg", {"spec": {"schedulingPolicy": {"gang": None, "basic": {}}}},
                        "default")
    assert ("spec.schedulingPolicy.basic", "Invalid value: {}: field is immutable") in causes(info.value)
    with pytest.raises(Invalid) as info:
        cp.client.patch(PodGroup, "pg", {"spec": {"disruptionMode": {"all": {}}}}, "default")
    assert causes(info.value)[0][0] == "spec.disruptionMode"


def test_workload_templates_are_validated_and_only_min_count_changes(cp: Any) -> None:
    tpl = {"name": "w", "schedulingPolicy": {"gang": {"minCount": 2}}}
    at = "spec.podGroupTemplates"
    assert invalid(cp, workload([])) == [(at, "Required value: must have at least one item")]
    assert invalid(cp, workload([tpl] * 9)) == [(at, "Too many: 9: must have at most 8 items")]
    assert invalid(cp, workload([tpl, tpl])) == [("spec.podGroupTemplates[1]", 'Duplicate value: "w"')]
    assert invalid(cp, workload([{**tpl, "name": "Bad_Name"}]))[0][0] == "spec.podGroupTemplates[0].name"
    cp.apply(workload([tpl], controllerRef={"apiGroup": "batch", "kind": "Job", "name": "j"}))
    cp.client.patch(Workload, "wl", {"spec": {"podGroupTemplates": [
        {"name": "w", "schedulingPolicy": {"gang": {"minCount": 4}}}]}}, "default")
    with pytest.raises(Invalid) as info:
        cp.client.patch(Workload, "wl", {"spec": {"podGroupTemplates": [
            tpl, {"name": "x", "schedulingPolicy": {"basic": {}}}]}}, "default")
    assert causes(info.value)[0] == ("spec.podGroupTemplates", causes(info.value)[0][1])
    with pytest.raises(Invalid) as info:
        cp.client.patch(Workload, "wl", {"spec": {"controllerRef": {"kind": "Job", "name": "other",
                                                                    "apiGroup": "batch"}}}, "default")
    assert causes(info.value)[0][0] == "spec.controllerRef"


def test_pod_groups_get_their_priority_from_the_priority_class(cp: Any) -> None:
    cp.apply(priority_class("high", 500))
    cp.apply(native_group("pg", 1, priority_class="high"))
    assert cp.client.get(PodGroup, "pg", "default").spec.priority == 500
    with pytest.raises(Forbidden) as info:
        cp.apply(native_group("x", 1, priority_class="nope"))
    assert info.value.message == ('podgroups.scheduling.k8s.io "x" is forbidden: no PriorityClass with name '
                                  "nope was found")


def test_gated_fields_are_dropped_on_create_and_kept_when_already_in_use() -> None:
    off = gpu_cluster(0)
    off.apply(gpu_pod("a", group="pg"))
    assert pod(off, "a").spec.scheduling_group is None
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"scheduling": {"schedulingPolicy": {"gang": {}}},
                    "template": {"spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "c", "image": "busybox"}]}}}}
    off.apply(job)
    assert off.client.get(Job, "j", "default").spec.scheduling is None  # WorkloadWithJob is off
    on = gpu_cluster(0, gates=NATIVE + ",WorkloadWithJob=true", controllers="")
    on.apply(job)
    assert on.client.get(Job, "j", "default").spec.scheduling is not None


def test_a_deleted_pod_group_waits_for_its_active_pods(cp: Any) -> None:
    cp = gpu_cluster(1, gates=NATIVE)
    cp.apply(native_group("pg", 1))
    assert cp.client.get(PodGroup, "pg", "default").metadata.finalizers == [
        "scheduling.k8s.io/podgroup-protection"]
    cp.apply(gpu_pod("a", group="pg", command="sleep 30"))
    cp.client.delete(PodGroup, "pg", "default")
    cp.advance(10)
    assert cp.client.get(PodGroup, "pg", "default").metadata.deletion_timestamp is not None
    cp.advance(30)  # the pod succeeded: nothing uses the group any more
    with pytest.raises(NotFound):
        cp.client.get(PodGroup, "pg", "default")


def test_the_protection_controller_does_not_run_without_the_gate() -> None:
    cp = gpu_cluster(0)
    assert "podgroup-protection" in cp.enabled  # selected, but it builds nothing with the gate off
    assert Workload not in cp.registry and PodGroup not in cp.registry


def test_the_native_api_is_off_by_default_as_upstream() -> None:
    """GenericWorkload is beta and off in 1.37 (and scheduling.k8s.io/v1beta1 is a beta API kube-apiserver
    does not serve by default): without the gate the kinds are not served and `workloads` means
    Kueue's; with it a pod naming no PodGroup schedules as before."""
    off, on = gpu_cluster(1), gpu_cluster(1, gates=NATIVE)
    assert not off.features.enabled("GenericWorkload") and PodGroup not in off.registry
    assert on.features.enabled("GenericWorkload") and PodGroup in on.registry
    for cp in (on, off):
        cp.apply(gpu_pod("plain", command="sleep 5"))
        cp.advance(1)
    assert node_of(on, "plain") == node_of(off, "plain") == "node-0"


def test_the_two_pod_group_kinds_are_stored_apart() -> None:
    """Same name, same namespace, two kinds: kube-apiserver keeps the built-in one under
    /registry/podgroups and the custom resource under /registry/scheduling.x-k8s.io/podgroups."""
    from gang.builders import x_group
    from kbatch.api.scheduling_x_v1alpha1 import PodGroup as XPodGroup

    cp = gpu_cluster(0, gates=NATIVE)
    cp.apply([native_group("same", 2), x_group("same", 3)])
    assert cp.client.get(PodGroup, "same", "default").spec.scheduling_policy.gang.min_count == 2
    assert cp.client.get(XPodGroup, "same", "default").spec.min_member == 3
    cp.client.delete(XPodGroup, "same", "default")
    assert cp.client.get(PodGroup, "same", "default").metadata.name == "same"
