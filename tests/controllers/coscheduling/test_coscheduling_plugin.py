"""The Coscheduling plugin in kbatch's default profile, on a simulated GPU cluster (cases after
scheduler-plugins ``pkg/coscheduling/coscheduling_test.go``, ``core/core_test.go`` and
``test/integration/coscheduling_test.go``): quorum, all-or-nothing Permit, timeouts, PostFilter's
rejection threshold, back-off, gated pods, minResources, missing PodGroups, queue order, args."""

from __future__ import annotations

import pytest
from gang.builders import bound, gpu_cluster, gpu_pod, node_of, priority_class, scheduled_message, x_group

from kbatch.api.core_v1 import Event, Pod
from kbatch.api.scheduling_x_v1alpha1 import PodGroup
from kbatch.controllers.scheduler import SchedulerConfigError
from kbatch.families import BATCH, CORE


def failed_scheduling(cp: object) -> list[str]:
    """Every FailedScheduling event message, in order."""
    events = cp.client.list(Event, "default").items  # type: ignore[attr-defined]
    return [e.message for e in events if e.reason == "FailedScheduling"]


def _config(**args: object) -> dict:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler",
                          "pluginConfig": [{"name": "Coscheduling", "args": args}]}]}


def test_no_pod_binds_before_the_quorum_then_all_bind_together() -> None:
    cp = gpu_cluster(4)
    cp.apply(x_group("pg", 2, timeout=10))
    cp.apply(gpu_pod("a", xgroup="pg"))
    reason, message = scheduled_message(cp, "a")
    assert node_of(cp, "a") is None and reason == "Unschedulable"
    # upstream runs PostFilter after a PreFilter rejection too (schedule_one.go schedulingCycle):
    # DefaultPreemption finds every node unresolvable, then Coscheduling rejects the group
    assert message == ("0/4 nodes are available: pre-filter pod a cannot find enough sibling pods, "
                       "current pods number: 1, minMember of group: 2. preemption: 0/4 nodes are "
                       "available: 4 Preemption is not helpful for scheduling., PodGroup default/pg gets "
                       "rejected due to Pod a is unschedulable even after PostFilter")
    cp.apply(gpu_pod("b", xgroup="pg"))
    assert bound(cp, ["a", "b"]) == ["a", "b"]


def test_a_waiting_pod_holds_its_node_until_the_group_completes_or_times_out() -> None:
    # a 50% threshold: the member that does not fit leaves its waiting sibling alone (1 of 2 missing)
    cp = gpu_cluster(1, scheduler_config=_config(podGroupRejectPercentage=50))
    cp.apply(x_group("pg", 2, timeout=10))
    cp.apply([gpu_pod("a", xgroup="pg"), gpu_pod("b", xgroup="pg")])  # only one fits
    assert bound(cp, ["a", "b"]) == []
    cp.apply(gpu_pod("solo", gpus=8))  # the waiting member holds the node's GPUs in the scheduler
    assert node_of(cp, "solo") is None
    cp.advance(10)
    assert "rejected due to timeout after waiting 10s at plugin Coscheduling" in failed_scheduling(cp)
    cp.advance(1)
    assert node_of(cp, "solo") == "node-0"  # released: the ungrouped pod got the node


def test_permit_waits_permit_waiting_time_seconds_without_a_group_timeout() -> None:
    cp = gpu_cluster(1, scheduler_config=_config(permitWaitingTimeSeconds=5, podGroupRejectPercentage=50))
    cp.apply(x_group("pg", 2))
    cp.apply([gpu_pod("a", xgroup="pg"), gpu_pod("b", xgroup="pg")])
    cp.advance(5)
    assert "rejected due to timeout after waiting 5s at plugin Coscheduling" in failed_scheduling(cp)


def test_postfilter_rejects_the_waiting_siblings_above_the_threshold() -> None:
    cp = gpu_cluster(1)
    cp.apply(x_group("pg", 2, timeout=60))
    cp.apply([gpu_pod("a", xgroup="pg"), gpu_pod("b", xgroup="pg")])
    by_message = {scheduled_message(cp, n)[1]: n for n in ("a", "b")}
    # 1 of 2 assigned: 50% missing > 10%, so the waiting one is rejected at once, the failing one says why
    assert "optimistic rejection in PostFilter" in by_message
    failing = next(m for m in by_message if m.startswith("0/1 nodes are available"))
    assert failing.endswith(f"PodGroup default/pg gets rejected due to Pod {by_message[failing]} is "
                            "unschedulable even after PostFilter")
    assert bound(cp, ["a", "b"]) == []


def test_a_small_gap_does_not_reject_the_group() -> None:
    """10 members, 9 assigned: the 10% still missing is within podGroupRejectPercentage (10)."""
    cp = gpu_cluster(9)
    cp.apply(x_group("pg", 10, timeout=30))
    cp.apply([gpu_pod(f"p{i}", xgroup="pg") for i in range(10)])
    waiting = [n for n in (f"p{i}" for i in range(10)) if scheduled_message(cp, n)[0] is None]
    assert len(waiting) == 9  # held at Permit, not rejected
    assert bound(cp, [f"p{i}" for i in range(10)]) == []
    cp.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "late"}})  # no GPUs: no help
    reject_all = gpu_cluster(9, scheduler_config=_config(podGroupRejectPercentage=0))
    reject_all.apply(x_group("pg", 10, timeout=30))
    reject_all.apply([gpu_pod(f"p{i}", xgroup="pg") for i in range(10)])
    messages = [scheduled_message(reject_all, f"p{i}")[1] or "" for i in range(10)]
    assert any("optimistic rejection in PostFilter" in m for m in messages)


def test_pod_group_backoff_keeps_the_group_out_for_its_seconds() -> None:
    cp = gpu_cluster(1, scheduler_config=_config(podGroupBackoffSeconds=30))
    cp.apply(x_group("pg", 2, timeout=60))
    cp.apply([gpu_pod("a", xgroup="pg"), gpu_pod("b", xgroup="pg")])
    cp.advance(12)  # a pod retries after its back-off, still within the group's
    messages = {(scheduled_message(cp, n)[1] or "").split(" preemption: ")[0] for n in ("a", "b")}
    assert "0/1 nodes are available: podGroup default/pg failed recently." in messages


def test_scheduling_gated_members_make_the_quorum_unreachable() -> None:
    cp = gpu_cluster(4)
    cp.apply(x_group("pg", 2))
    cp.apply([gpu_pod("a", xgroup="pg"), gpu_pod("b", xgroup="pg", gates=["example.com/hold"])])
    assert (scheduled_message(cp, "a")[1] or "").split(" preemption: ")[0] == (
        "0/4 nodes are available: pre-filter pod a cannot proceed due to gated pods in the same PodGroup.")


def test_min_resources_must_be_free_in_the_cluster() -> None:
    cp = gpu_cluster(1)
    cp.apply(x_group("pg", 1, min_resources={"nvidia.com/gpu": "16"}))
    cp.apply(gpu_pod("a", xgroup="pg"))
    message = scheduled_message(cp, "a")[1] or ""
    want = "0/1 nodes are available: resource gap: map[nvidia.com/gpu:8]."
    assert message.split(" preemption: ")[0] == want
    ok = gpu_cluster(2)
    ok.apply(x_group("pg", 1, min_resources={"nvidia.com/gpu": "16"}))
    ok.apply(gpu_pod("a", xgroup="pg"))
    assert node_of(ok, "a") is not None


def test_a_labelled_pod_without_its_pod_group_is_denied_at_permit() -> None:
    cp = gpu_cluster(1)
    cp.apply(gpu_pod("a", xgroup="missing"))
    assert scheduled_message(cp, "a") == ("Unschedulable", "PodGroup not found")
    cp.apply(x_group("missing", 1))  # the PodGroup's Add event brings the pod back
    cp.advance(2)
    assert node_of(cp, "a") == "node-0"


def test_the_queue_orders_by_priority_then_group_creation() -> None:
    def first_placed(*pods: dict) -> str:
        cp = gpu_cluster(1, controllers="scheduler,coscheduling")
        cp.apply([priority_class("high", 100), x_group("old", 1)])
        cp.advance(5)
        cp.apply(x_group("new", 1))
        cp.apply(list(pods))  # one batch: the queue's order decides who gets the one node
        return next(name for name in ("n", "o", "h") if node_of(cp, name))

    new, old = gpu_pod("n", xgroup="new"), gpu_pod("o", xgroup="old")
    assert first_placed(new, old) == "o"  # the older group first, though "n" arrived first
    assert first_placed(new, old, gpu_pod("h", xgroup="new", priority_class="high")) == "h"


def test_pods_without_the_label_are_scheduled_as_by_the_default_profile() -> None:
    with_plugin = gpu_cluster(2, seed=3)
    without = gpu_cluster(2, seed=3, families=(CORE, BATCH))
    pods = [gpu_pod(f"p{i}", gpus=3) for i in range(7)]
    for cp in (with_plugin, without):
        cp.apply(pods)
    assert [node_of(with_plugin, f"p{i}") for i in range(7)] == [node_of(without, f"p{i}") for i in range(7)]
    assert [scheduled_message(with_plugin, f"p{i}") for i in range(7)] == \
        [scheduled_message(without, f"p{i}") for i in range(7)]


@pytest.mark.parametrize(("args", "message"), [
    ({"podGroupRejectPercentage": 101},
     "podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100"),
    ({"permitWaitingTimeSeconds": -1}, "permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0"),
    ({"podGroupBackoffSeconds": -2}, "podGroupBackoffSeconds: Invalid value: -2: must be greater than 0"),
    ({"nope": 1}, 'strict decoding error: unknown field "pluginConfig[Coscheduling].args.nope"'),
])
def test_bad_args_are_refused_with_upstreams_messages(args: dict, message: str) -> None:
    with pytest.raises(SchedulerConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        gpu_cluster(0, scheduler_config=_config(**args))


def test_the_controller_follows_the_group_to_finished_and_names_its_owner() -> None:
    cp = gpu_cluster(2)
    cp.apply(x_group("pg", 2, timeout=10))
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train"},
           "spec": {"parallelism": 2, "completions": 2, "template": {
               "metadata": {"labels": {"scheduling.x-k8s.io/pod-group": "pg"}},
               "spec": {"restartPolicy": "Never", "containers": [{
                   "name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 20"],
                   "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}
    cp.apply(job)
    cp.advance(2)
    pg = cp.client.get(PodGroup, "pg", "default")
    assert (pg.status.phase, pg.status.running, pg.status.occupied_by) == ("Running", 2, "default/train")
    cp.advance(30)
    pg = cp.client.get(PodGroup, "pg", "default")
    assert (pg.status.phase, pg.status.succeeded, pg.status.running) == ("Finished", 2, None)
    assert not [e for e in cp.client.list(Event, "default").items if e.reason == "FailedScheduling"]
    assert all(p.spec.node_name for p in cp.client.list(Pod, "default").items)


def test_every_failed_group_pod_runs_postfilter_itself() -> None:
    """Upstream runs PostFilter for each failed pod: kbatch's cache of equal pods' failures must not
    answer a group's pod with another pod's outcome (its message names another pod and group, and
    that group's waiting siblings would stay unrejected), nor a pod outside any group with a group's."""
    cp = gpu_cluster(1)
    cp.apply(gpu_pod("solo", gpus=8))
    cp.apply([x_group("x", 2, timeout=30), x_group("y", 2, timeout=30)])
    cp.apply([gpu_pod(f"{g}-{i}", xgroup=g, gpus=8) for g in ("x", "y") for i in range(2)])
    cp.apply(gpu_pod("late", gpus=8))
    for name in ("x-0", "x-1", "y-0", "y-1"):
        message = scheduled_message(cp, name)[1] or ""
        assert message.endswith(f"PodGroup default/{name[0]} gets rejected due to Pod {name} is "
                                "unschedulable even after PostFilter")
    assert "PodGroup" not in scheduled_message(cp, "late")[1]  # type: ignore[operator]


def test_a_group_rejection_frees_room_for_the_next_equal_pod_at_once() -> None:
    """PostFilter rejecting a group's waiting sibling frees its GPUs in the same cycle: the next pod of
    the same shape is filtered against that, not answered with the failure computed before it."""
    cp = gpu_cluster(1)
    cp.apply(gpu_pod("solo", gpus=2, command="sleep 600"))
    cp.apply([x_group("g", 2, timeout=30), x_group("h", 1, timeout=30)])
    cp.apply([gpu_pod("g-0", xgroup="g", gpus=2), gpu_pod("g-1", xgroup="g", gpus=6),
              gpu_pod("h-0", xgroup="h", gpus=6)])
    assert bound(cp, ["g-0", "g-1", "h-0"]) == ["h-0"]
    # g-0 was rejected by g-1's PostFilter (its later retries from the back-off queue fail on GPUs)
    events = cp.client.list(Event, "default").items
    assert "optimistic rejection in PostFilter" in [
        e.message for e in events if e.reason == "FailedScheduling" and e.involved_object.name == "g-0"]
