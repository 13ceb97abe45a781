"""Kubernetes 1.37 gang scheduling (scheduling.k8s.io/v1beta1 PodGroup) in the workload scheduling cycle
(cases after ``pkg/scheduler/schedule_one_podgroup_test.go``, the GangScheduling plugin's
``gangscheduling_test.go`` and ``test/integration/scheduler/gangscheduling``)."""

from __future__ import annotations

import pytest

from gang.builders import (
    NATIVE,
    bound,
    gpu_cluster,
    gpu_pod,
    native_group,
    node_of,
    pod,
    priority_class,
    scheduled_message,
)
from kbatch.api.errors import StatusError
from kbatch.api.scheduling_v1beta1 import PodGroup


def condition(cp: object, name: str) -> tuple[str, str, str | None] | None:
    pg = cp.client.get(PodGroup, name, "default")  # type: ignore[attr-defined]
    for c in (pg.status.conditions if pg.status else None) or ():
        if c.type == "PodGroupInitiallyScheduled":
            return (c.status, c.reason or "", c.message)
    return None


def test_with_the_gate_off_the_api_is_not_served_and_pods_schedule_as_ever() -> None:
    cp = gpu_cluster(1)
    with pytest.raises(StatusError) as info:
        cp.apply(native_group("pg", 2))
    assert info.value.message == 'no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1"'
    cp.apply(gpu_pod("a", group="pg"))
    got = pod(cp, "a")
    assert got is not None and got.spec.scheduling_group is None and got.spec.node_name == "node-0"


def test_pods_wait_for_their_pod_group_and_its_min_count() -> None:
    cp = gpu_cluster(4, gates=NATIVE)
    cp.apply([gpu_pod("a", group="pg"), gpu_pod("b", group="pg")])
    assert bound(cp, ["a", "b"]) == [] and scheduled_message(cp, "a") == (None, None)  # held, no condition
    cp.apply(native_group("pg", 3))
    assert bound(cp, ["a", "b"]) == []  # 2 of 3
    cp.apply(gpu_pod("c", group="pg"))
    assert bound(cp, ["a", "b", "c"]) == ["a", "b", "c"]
    assert condition(cp, "pg") == ("True", "Scheduled", "")


def test_all_or_nothing_with_upstreams_messages() -> None:
    cp = gpu_cluster(2, gates=NATIVE)
    cp.apply(native_group("pg", 3))
    cp.apply([gpu_pod(n, group="pg") for n in ("a", "b", "c")])
    assert bound(cp, ["a", "b", "c"]) == []
    group = "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"
    assert condition(cp, "pg") == ("False", "Unschedulable", group)
    messages = sorted(scheduled_message(cp, n)[1] or "" for n in ("a", "b", "c"))
    # the placed-then-reverted pods carry the group's status (the framework lists its error first)
    assert messages == ["0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
                        f"pod group is unschedulable, {group}", f"pod group is unschedulable, {group}"]


def test_a_cycle_stops_as_soon_as_min_count_cannot_be_met() -> None:
    cp = gpu_cluster(0, gates=NATIVE)
    cp.apply([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "tiny"}}])
    from kbatch.sim import NodeTemplate, create_nodes

    create_nodes(cp, 1, NodeTemplate(gpus=8))
    cp.apply(native_group("pg", 2))
    cp.apply([gpu_pod("a", group="pg", gpus=9), gpu_pod("b", group="pg")])
    # "a" fits nowhere; then 0 scheduled + 1 remaining < 2: "b" is never tried
    assert scheduled_message(cp, "b")[1] == (
        "pod group is unschedulable, minCount (2) cannot be satisfied: 0 scheduled, 1 remaining")


def test_later_members_join_a_scheduled_gang_and_the_condition_stays_true() -> None:
    cp = gpu_cluster(2, gates=NATIVE)
    cp.apply(native_group("pg", 2))
    cp.apply([gpu_pod(n, group="pg", command="sleep 30") for n in ("a", "b", "c")])
    assert len(bound(cp, ["a", "b", "c"])) == 2
    assert condition(cp, "pg") == ("True", "Scheduled", "")  # never reverted by the third's failure
    late = next(n for n in ("a", "b", "c") if not node_of(cp, n))
    cp.advance(40)  # a member finishes: the third one is placed alone (the gang is already there)
    assert node_of(cp, late) is not None
    assert condition(cp, "pg") == ("True", "Scheduled", "")


def test_a_basic_group_places_whatever_fits() -> None:
    cp = gpu_cluster(1, gates=NATIVE)
    cp.apply(native_group("pg"))
    cp.apply([gpu_pod("a", group="pg"), gpu_pod("b", group="pg")])
    assert len(bound(cp, ["a", "b"])) == 1


def test_every_member_must_have_the_groups_priority_and_scheduler() -> None:
    cp = gpu_cluster(2, gates=NATIVE)
    cp.apply(priority_class("high", 7))
    cp.apply(native_group("pg", 2))
    cp.apply([gpu_pod("a", group="pg"), gpu_pod("b", group="pg", priority_class="high")])
    message = ("all pods in a single pod group should have the same priority as the pod group's priority, "
               "got 7 and 0")
    assert condition(cp, "pg") == ("False", "SchedulerError", message)
    assert scheduled_message(cp, "a") == ("SchedulerError", message)
    other = gpu_cluster(2, gates=NATIVE,
                        scheduler_config={"apiVersion": "kubescheduler.config.k8s.io/v1",
                                          "kind": "KubeSchedulerConfiguration",
                                          "profiles": [{"schedulerName": "default-scheduler"},
                                                       {"schedulerName": "other"}]})
    other.apply(native_group("pg", 2))
    other.apply([gpu_pod("a", group="pg"), gpu_pod("b", group="pg", scheduler="other")])
    status, reason, text = condition(other, "pg") or ("", "", "")
    assert (status, reason) == ("False", "SchedulerError")
    assert text and text.startswith("all pods in a single pod group should have the same "
                                    ".spec.schedulerName set")


def test_a_smaller_min_count_brings_the_waiting_pods_back() -> None:
    cp = gpu_cluster(4, gates=NATIVE)
    cp.apply(native_group("pg", 3))
    cp.apply([gpu_pod("a", group="pg"), gpu_pod("b", group="pg")])
    assert bound(cp, ["a", "b"]) == []
    cp.client.patch(PodGroup, "pg", {"spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}, "default")
    cp.run_until_idle()
    assert bound(cp, ["a", "b"]) == ["a", "b"]


def test_preemption_evicts_a_whole_all_mode_group_for_a_higher_priority_gang() -> None:
    cp = gpu_cluster(2, gates=NATIVE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    cp.apply(native_group("low", 2, all_disruption=True, priority_class="low"))
    cp.apply([gpu_pod("l1", group="low", priority_class="low", command="sleep 600"),
              gpu_pod("l2", group="low", priority_class="low", command="sleep 600")])
    assert bound(cp, ["l1", "l2"]) == ["l1", "l2"]
    cp.apply(native_group("high", 1, priority_class="high"))
    cp.apply(gpu_pod("h", group="high", priority_class="high"))
    low = cp.client.get(PodGroup, "low", "default")
    target = next(c for c in low.status.conditions if c.type == "DisruptionTarget")
    assert (target.status, target.reason) == ("True", "PreemptionByScheduler")
    assert pod(cp, "l1").metadata.deletion_timestamp and pod(cp, "l2").metadata.deletion_timestamp
    assert pod(cp, "h").status.nominated_node_name
    cp.advance(5)
    assert node_of(cp, "h") is not None and pod(cp, "l1") is None and pod(cp, "l2") is None


def test_single_mode_victims_are_reprieved_when_not_needed() -> None:
    cp = gpu_cluster(2, gates=NATIVE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    cp.apply(native_group("low", 2, priority_class="low"))
    cp.apply([gpu_pod("l1", group="low", priority_class="low", command="sleep 600"),
              gpu_pod("l2", group="low", priority_class="low", command="sleep 600")])
    cp.apply(native_group("high", 1, priority_class="high"))
    cp.apply(gpu_pod("h", group="high", priority_class="high"))
    evicted = [n for n in ("l1", "l2") if pod(cp, n).metadata.deletion_timestamp]
    assert len(evicted) == 1  # one pod's room is enough; the other is reprieved
    assert pod(cp, evicted[0]).status.condition("DisruptionTarget").reason == "PreemptionByScheduler"
