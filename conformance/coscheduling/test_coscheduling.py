"""Coscheduling with real pods: the quorum at PreFilter, all-or-nothing at Permit/PostFilter, the
PodGroup phase machine.

Upstream: kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go and core/core.go
(coscheduling_test.go, core_test.go), pkg/controllers/podgroup_controller.go
(podgroup_controller_test.go), test/integration/coscheduling_test.go.
"""

from __future__ import annotations

import pytest

from conformance.coscheduling import KIND
from conformance.gang import group_pod, require_kind
from conformance.target import Obj, condition
from conformance.timing import budget

pytestmark = pytest.mark.runs_pods

PLUGIN = "kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go"
CONTROLLER = "kubernetes-sigs/scheduler-plugins pkg/controllers/podgroup_controller.go"


def _group(name: str, min_member: int, timeout: int = 30) -> Obj:
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"minMember": min_member, "scheduleTimeoutSeconds": timeout}}


def _nodes(target, names: list[str]) -> list[str | None]:
    return [((target.get("Pod", n) or {}).get("spec") or {}).get("nodeName") for n in names]


def _phase(target, name: str) -> str:
    return ((target.get(KIND, name) or {}).get("status") or {}).get("phase", "")


@pytest.mark.semantic("PreFilter: a member is Unschedulable while fewer than minMember pods of its group "
                      "exist; once they do, the group binds together",
                      source=f"{PLUGIN} PreFilter; core/core.go; test/integration/coscheduling_test.go")
def test_members_wait_for_the_quorum_then_bind_together(target) -> None:
    require_kind(target, KIND)
    target.create(_group("pair", 2))
    target.create(group_pod("a", 600, xgroup="pair"))

    def rejected() -> bool:
        found = condition(target.get("Pod", "a") or {}, "PodScheduled") or {}
        return found.get("reason") == "Unschedulable"

    assert target.wait_for(rejected, timeout=budget(rounds=1))
    message = condition(target.get("Pod", "a"), "PodScheduled")["message"]
    assert "cannot find enough sibling pods, current pods number: 1, minMember of group: 2" in message
    target.create(group_pod("b", 600, xgroup="pair"))
    assert target.wait_for(lambda: all(_nodes(target, ["a", "b"])), timeout=budget(rounds=1, extra=30))
    for name in ("a", "b"):
        target.delete("Pod", name, grace_period_seconds=0)


@pytest.mark.semantic("all or nothing: a member that fits no node gets its waiting sibling rejected; "
                      "no member binds", source=f"{PLUGIN} PostFilter, Permit, Unreserve")
def test_a_group_whose_member_fits_nowhere_binds_nothing(target) -> None:
    require_kind(target, KIND)
    target.create(_group("toobig", 2, timeout=10))
    target.create(group_pod("fits", 600, xgroup="toobig"))
    target.create(group_pod("huge", 600, xgroup="toobig", cpu="100000"))
    target.advance(15)  # past the Permit timeout too
    assert _nodes(target, ["fits", "huge"]) == [None, None]


@pytest.mark.semantic("phase machine: Pending, then Scheduling with minMember pods, Running when "
                      "minMember run, Finished when minMember succeed, with the counts",
                      source=f"{CONTROLLER} Reconcile; podgroup_controller_test.go")
def test_the_phase_follows_the_pods(target) -> None:
    require_kind(target, KIND)
    target.create(_group("job", 2))
    assert target.wait_for(lambda: _phase(target, "job") == "Pending", timeout=budget(rounds=0))
    target.create(group_pod("p0", 3, xgroup="job"))
    target.create(group_pod("p1", 3, xgroup="job"))
    assert target.wait_for(lambda: _phase(target, "job") in ("Scheduling", "Running", "Finished"),
                           timeout=budget(rounds=1))
    assert target.wait_for(lambda: _phase(target, "job") == "Finished", timeout=budget(rounds=1, runs=3))
    assert target.get(KIND, "job")["status"]["succeeded"] == 2


@pytest.mark.semantic("minResources: while the group's minResources (with minMember pod slots) are not free "
                      "in the cluster, PreFilter rejects its members with the resource gap; a group whose "
                      "minResources fit binds",
                      source="kubernetes-sigs/scheduler-plugins pkg/coscheduling/core/core.go PreFilter, "
                             "CheckClusterResource; coscheduling_test.go TestPreFilter")
def test_min_resources_beyond_the_cluster_keep_the_group_out(target) -> None:
    require_kind(target, KIND)
    big = _group("greedy", 1)
    big["spec"]["minResources"] = {"cpu": "100000"}  # beyond any cluster under test
    target.create(big)
    target.create(group_pod("greedy-0", 600, xgroup="greedy"))

    def gap() -> bool:
        found = condition(target.get("Pod", "greedy-0") or {}, "PodScheduled") or {}
        return "resource gap" in (found.get("message") or "")

    assert target.wait_for(gap, timeout=budget(rounds=1))
    assert _nodes(target, ["greedy-0"]) == [None]
    small = _group("modest", 1)
    small["spec"]["minResources"] = {"cpu": "10m"}
    target.create(small)
    target.create(group_pod("modest-0", 600, xgroup="modest"))
    assert target.wait_for(lambda: all(_nodes(target, ["modest-0"])), timeout=budget(rounds=1))
    for name in ("greedy-0", "modest-0"):
        target.delete("Pod", name, grace_period_seconds=0)


TIMEOUT_SOURCE = (f"{PLUGIN} Permit (core.Wait: util.GetWaitTimeDuration, scheduleTimeoutSeconds), "
                  "PostFilter (podGroupRejectPercentage), Unreserve; kubernetes/kubernetes "
                  "pkg/scheduler/framework/runtime waiting_pods_map.go "
                  "(\"rejected due to timeout after waiting %v at plugin %v\"); "
                  "coscheduling_test.go TestPermit, TestPostFilter")


TIMED_OUT = "rejected due to timeout after waiting 10s at plugin Coscheduling"


def _timed_out(target, names: list[str]) -> bool:
    """Some member's FailedScheduling event reports its Permit wait timing out."""
    return any(e.get("reason") == "FailedScheduling" and (e.get("involvedObject") or {}).get("name") in names
               and TIMED_OUT in (e.get("message") or "") for e in target.list("Event"))


# Timing-sensitive: on a real clock, how many members already wait at Permit when the unfit member
# is tried again depends on the machine's speed, so the optimistic rejection may restart the wait.
@pytest.mark.needs_virtual_clock
@pytest.mark.semantic("scheduleTimeoutSeconds: members waiting at Permit for a quorum that has not arrived "
                      "when the wait expires are rejected (the timeout, then Unreserve for their siblings), "
                      "release their nodes and are retried; no member binds until the quorum arrives "
                      "late, then the group binds whole",
                      source=TIMEOUT_SOURCE)
def test_a_quorum_arriving_after_the_permit_timeout_binds_on_a_retry(target) -> None:
    require_kind(target, KIND)
    # minMember 10: nine members fit and wait at Permit; the tenth fits nowhere. One missing of ten
    # is within the default podGroupRejectPercentage (10), so PostFilter lets the nine keep waiting,
    # and only scheduleTimeoutSeconds ends their wait.
    target.create(_group("late", 10, timeout=10))
    members = [f"m{i}" for i in range(9)]
    for name in members:
        target.create(group_pod(name, 600, xgroup="late"))
    target.create(group_pod("huge", 600, xgroup="late", cpu="100000"))
    assert target.wait_for(lambda: _timed_out(target, members), timeout=budget(rounds=1, extra=10))
    target.advance(5)
    assert _nodes(target, [*members, "huge"]) == [None] * 10  # nothing bound while the quorum is missing
    target.delete("Pod", "huge", grace_period_seconds=0)
    target.create(group_pod("m9", 600, xgroup="late"))  # the quorum, after the wait expired
    everyone = [*members, "m9"]
    assert target.wait_for(lambda: all(_nodes(target, everyone)), timeout=budget(rounds=2, extra=10))
    for name in everyone:
        target.delete("Pod", name, grace_period_seconds=0)
