"""Upstream's Coscheduling plugin tables, through kbatch's API, scheduler and kubelet.

Sources: kubernetes-sigs/scheduler-plugins HEAD 903da7df (2026-08-16)

* ``pkg/coscheduling/coscheduling_test.go``: ``TestPodGroupBackoffTime``, ``TestLess`` (every case),
  ``TestPermit``, ``TestPostFilter``, ``TestPostFilterRejectThreshold`` (every case each),
  ``TestLessAfterScheduleFailure`` (its before- and after-failure checks);
* ``pkg/coscheduling/core/core_test.go``: ``TestPreFilter``, ``TestPermit``, ``TestCheckClusterResource``
  (every case each);
* ``apis/config/validation/validation_plugingargs_test.go``: ``TestValidateCoschedulingArgs``.

Upstream calls one extension point on hand-built framework state; here each case is the objects a user
would create, and the outcome is what they see: who is bound, the pod's ``PodScheduled`` message,
the order the scheduler takes pods in. Upstream's "existing pods" with ``.Node(...)`` are pods created
with ``spec.nodeName`` (the plugin's pod informer counts them assigned, ``AddPodFactory``).
"""

from __future__ import annotations

from typing import Any

import pytest
from gang.builders import X_LABEL, bound, node_of, priority_class, scheduled_message, x_group

from kbatch.api.core_v1 import Event
from kbatch.controllers.scheduler import SchedulerConfigError
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes


def _config(**args: object) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler",
                          "pluginConfig": [{"name": "Coscheduling", "args": args}]}]}


def _cluster(nodes: int = 0, cpu: str = "4", **args: object) -> ControlPlane:
    cp = ControlPlane(seed=0, scheduler_config=_config(**args) if args else None)
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in ("ns1", "ns2")])
    if nodes:
        create_nodes(cp, nodes, NodeTemplate(cpu=cpu))
    return cp


def _pod(name: str, *, group: str | None = None, ns: str = "default", cpu: str | None = None,
         node: str | None = None, gates: list[str] | None = None,
         priority: str | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 600"]}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [container]}
    if node:
        spec["nodeName"] = node
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    if priority:
        spec["priorityClassName"] = priority
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if group:
        meta["labels"] = {X_LABEL: group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _group(name: str, min_member: int | None = 1, *, ns: str = "default", **kw: Any) -> dict[str, Any]:
    doc = x_group(name, min_member, **kw)
    doc["metadata"]["namespace"] = ns
    return doc


def _message(cp: ControlPlane, name: str) -> str:
    return scheduled_message(cp, name)[1] or ""


def _pre_filter_part(message: str) -> str:
    """The FitError's PreFilter part: upstream's cycle also runs PostFilter after a PreFilter
    rejection (``schedule_one.go`` ``schedulingCycle``), whose reasons follow " preemption: ..."."""
    return message.split(" preemption: ")[0]


def _waiting(cp: ControlPlane, name: str) -> bool:
    """Held at Permit: not bound, and no PodScheduled condition written (nothing failed)."""
    return node_of(cp, name) is None and scheduled_message(cp, name) == (None, None)


REJECTED = "PodGroup default/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"


# -- coscheduling_test.go TestLess ---------------------------------------------------------------------
# (case name, p1 (ns, priority, group, created at), p2 (same), pod groups (ns, name, created at), want)
# want: p1 sorts before p2. A pod's InitialAttemptTimestamp is its creation here (kbatch's QueueSort
# orders an ungrouped pod by creationTimestamp, PrioritySort's rule in kbatch; docs/gang.md); unset
# in upstream's priority cases, where it never decides: both pods are created at second 1.
LESS_CASES = [
    ("p1.priority less than p2.priority", ("ns1", "low", None, 1), ("ns2", "high", None, 1), [], False),
    ("p1.priority greater than p2.priority", ("ns1", "high", None, 1), ("ns2", "low", None, 1), [], True),
    ("equal priority. p1 is added to schedulingQ earlier than p2", ("ns1", "high", None, 1),
     ("ns2", "high", None, 2), [], True),
    ("equal priority. p2 is added to schedulingQ earlier than p1", ("ns1", "high", None, 2),
     ("ns2", "high", None, 1), [], False),
    ("p1.priority less than p2.priority, p1 belongs to pg1", ("ns1", "low", "pg1", 1),
     ("ns2", "high", None, 1), [("ns1", "pg1", 0)], False),
    ("p1.priority greater than p2.priority, p1 belongs to pg1", ("ns1", "high", "pg1", 1),
     ("ns2", "low", None, 1), [("ns1", "pg1", 0)], True),
    ("equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1",
     ("ns1", "high", "pg1", 1),
     ("ns2", "high", None, 2), [("ns1", "pg1", 1)], True),
    ("equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg1",
     ("ns1", "high", "pg1", 2),
     ("ns2", "high", None, 1), [("ns1", "pg1", 2)], False),
    ("p1.priority less than p2.priority, p1 belongs to pg1 and p2 belongs to pg2", ("ns1", "low", "pg1", 1),
     ("ns2", "high", "pg2", 1), [("ns1", "pg1", 1), ("ns2", "pg2", 2)], False),
    ("p1.priority greater than p2.priority, p1 belongs to pg1 and and p2 belongs to pg2",
     ("ns1", "high", "pg1", 1), ("ns2", "low", "pg1", 1), [("ns1", "pg1", 1), ("ns2", "pg2", 2)], True),
    ("equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1 and p2 belongs to pg2",
     ("ns1", "high", "pg1", 1), ("ns2", "high", "pg2", 2), [("ns1", "pg1", 1), ("ns2", "pg2", 2)], True),
    ("equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg2 and p2 belongs to pg1",
     ("ns1", "low", "pg2", 1), ("ns1", "high", "pg1", 2), [("ns1", "pg1", 1), ("ns1", "pg2", 2)], False),
    ("equal priority and creation time, p1 belongs pg1 and p2 belong to pg2", ("ns1", "high", "pg2", 1),
     ("ns2", "high", "pg2", 1), [("ns1", "pg1", 1), ("ns2", "pg2", 2)], True),
    ("equal priority and creation time, and p2 belong to pg2", ("ns1", "high", None, 1),
     ("ns2", "high", "pg2", 1), [("ns2", "pg2", 2)], True),
]


def _first_taken(p1: tuple, p2: tuple, groups: list[tuple]) -> str:
    """Create the groups and pods at their seconds on a cluster whose one node is too small, then add
    a node with room for one: both pods leave the unschedulable queue together, and the first
    scheduling outcome (bound, or refused at Permit for a missing PodGroup) says which QueueSort took
    first. A 100 % reject
    threshold keeps PostFilter from marking the groups failed while nothing fits. (A cluster with no
    node at all would not do: "no nodes available" is an error, retried from the back-off queue,
    where the pods would not meet in the active queue.)"""
    cp = _cluster(1, cpu="1", podGroupRejectPercentage=100)
    cp.apply([priority_class("low", 10), priority_class("high", 100)])
    timeline: dict[int, list[dict[str, Any]]] = {}
    for ns, name, at in groups:
        timeline.setdefault(at, []).append(_group(name, 1, ns=ns))
    for pod_name, (ns, prio, group, at) in (("p1", p1), ("p2", p2)):
        timeline.setdefault(at, []).append(_pod(pod_name, ns=ns, group=group, priority=prio, cpu="3"))
    for at in sorted(timeline):
        _advance_to(cp, at)
        cp.apply(timeline[at])
    _advance_to(cp, 30)
    watch = cp.client.watch(Event, None)
    create_nodes(cp, 1, NodeTemplate(cpu="4"), start=1)  # room for one of the two
    cp.advance(1)
    for event in watch.poll():
        e = event.object
        if e.involved_object.name in ("p1", "p2") and (
                e.reason == "Scheduled" or "PodGroup not found" in (e.message or "")):
            return e.involved_object.name
    raise AssertionError("neither pod was taken")


def _advance_to(cp: ControlPlane, second: float) -> None:
    elapsed = (cp.now() - cp.clock.to_datetime(0)).total_seconds()
    if second > elapsed:
        cp.advance(second - elapsed)


@pytest.mark.parametrize(("name", "p1", "p2", "groups", "want"), LESS_CASES, ids=[c[0] for c in LESS_CASES])
def test_less(name: str, p1: tuple, p2: tuple, groups: list[tuple], want: bool) -> None:
    assert _first_taken(p1, p2, groups) == ("p1" if want else "p2")


# -- coscheduling_test.go TestPermit and core_test.go TestPermit ------------------------------------


def test_permit_pods_do_not_belong_to_any_pod_group() -> None:
    """coscheduling TestPermit "pods do not belong to any podGroup" / core "pod does not belong to
    any pg": Success."""
    cp = _cluster(1)
    cp.apply([_group("pg1", 1), _group("pg2", 2), _pod("p")])
    assert node_of(cp, "p") == "node-0"


@pytest.mark.parametrize("name", ["pods belong to a pg1, but quorum not satisfied",
                                  "pod belongs to a pg that doesn't have quorum"])
def test_permit_quorum_not_satisfied_waits(name: str) -> None:
    """coscheduling TestPermit / core TestPermit: the group's first member at Permit waits. Its
    sibling exists (PreFilter's quorum) but fits no node; a 50 % reject threshold keeps that
    sibling's PostFilter from rejecting the waiter (1 of 2 missing)."""
    cp = _cluster(1, podGroupRejectPercentage=50)
    cp.apply([_group("pg1", 1), _group("pg2", 2, timeout=30)])
    cp.apply([_pod("p", group="pg2"), _pod("q", group="pg2", cpu="64")])
    assert _waiting(cp, "p")
    cp.advance(30)
    assert "rejected due to timeout after waiting 30s at plugin Coscheduling" in _message(cp, "p")


def test_permit_pods_belong_to_a_pod_group_and_quorum_satisfied() -> None:
    """coscheduling TestPermit "pods belong to a podGroup, and quorum satisfied": minMember 1."""
    cp = _cluster(1)
    cp.apply([_group("pg1", 1), _group("pg2", 2), _pod("p", group="pg1")])
    assert node_of(cp, "p") == "node-0"


def test_permit_pod_specifies_a_non_existent_pod_group() -> None:
    """core TestPermit "pod specifies a non-existent pg": PodGroupNotFound (Unschedulable)."""
    cp = _cluster(1)
    cp.apply([_group("pg1", 2), _pod("p", group="pg-non-existent")])
    assert scheduled_message(cp, "p") == ("Unschedulable", "PodGroup not found")


def test_permit_pod_belongs_to_a_pod_group_that_has_quorum_satisfied() -> None:
    """core TestPermit "pod belongs to a pg that have quorum satisfied": p1b already on the node
    counts as assigned, so p1a completes minMember 2 and binds."""
    cp = _cluster(1)
    cp.apply([_group("pg1", 2), _pod("p1b", group="pg1", node="node-0")])
    cp.apply(_pod("p1a", group="pg1"))
    assert node_of(cp, "p1a") == "node-0"


# -- coscheduling_test.go TestPostFilter ----------------------------------------------------------


def test_post_filter_pod_does_not_belong_to_any_pod_group() -> None:
    """TestPostFilter "pod does not belong to any pod group": upstream's PostFilter answers
    Unschedulable "can not find pod group". kbatch deliberately adds no such reason to an ungrouped
    pod's message (docs/gang.md, Differences): the pod is Unschedulable with the Filter reasons only."""
    cp = _cluster(1, cpu="1")
    cp.apply([_group("pg1", 2), _pod("p", cpu="2")])
    reason, message = scheduled_message(cp, "p")
    assert reason == "Unschedulable" and "Insufficient cpu" in (message or "")
    assert "can not find pod group" not in (message or "")


def test_post_filter_enough_pods_assigned_do_not_reject_all() -> None:
    """TestPostFilter "enough pods assigned, do not reject all": p1 (assigned) meets minMember 1."""
    cp = _cluster(1, cpu="1")
    cp.apply([_group("pg1", 1), _pod("p1", group="pg1", node="node-0", cpu="1")])
    cp.apply(_pod("p", group="pg1", cpu="1"))
    reason, message = scheduled_message(cp, "p")
    assert reason == "Unschedulable" and "gets rejected" not in (message or "")


def test_post_filter_pod_failed_at_filter_phase_reject_all_pods() -> None:
    """TestPostFilter "pod failed at filter phase, reject all pods": 1 of minMember 2 assigned."""
    cp = _cluster(1, cpu="1")
    cp.apply([_group("pg1", 2), _pod("p1", group="pg1", node="node-0", cpu="1")])
    cp.apply(_pod("p", group="pg1", cpu="1"))
    assert _message(cp, "p").endswith(REJECTED)


# -- coscheduling_test.go TestPostFilterRejectThreshold --------------------------------------------
THRESHOLD_CASES = [
    ("default 10%: 9/10 assigned (10% gap) → no rejection", 10, 10, 9, False),
    ("default 10%: 8/10 assigned (20% gap) → rejection", 10, 10, 8, True),
    ("0%: 9/10 assigned (10% gap) → rejection (always reject)", 0, 10, 9, True),
    ("100%: 0/10 assigned (100% gap) → no rejection (never reject)", 100, 10, 0, False),
    ("50%: 6/10 assigned (40% gap) → no rejection", 50, 10, 6, False),
    ("50%: 4/10 assigned (60% gap) → rejection", 50, 10, 4, True),
]


@pytest.mark.parametrize(("name", "percent", "min_member", "assigned", "rejects"), THRESHOLD_CASES,
                         ids=[c[0] for c in THRESHOLD_CASES])
def test_post_filter_reject_threshold(name: str, percent: int, min_member: int, assigned: int,
                                      rejects: bool) -> None:
    """``assigned`` members already on the node (one CPU each, filling it); ``p`` and the other
    pending members (enough for PreFilter's quorum, which upstream's direct PostFilter call skips)
    ask for more than is free."""
    cp = _cluster(1, cpu=str(max(assigned, 1)), podGroupRejectPercentage=percent)
    cp.apply(_group("pg1", min_member))
    cp.apply([_pod(f"assigned-{i}", group="pg1", node="node-0", cpu="1") for i in range(assigned)])
    pending = [f"pending-{i}" for i in range(min_member - assigned - 1)]
    cp.apply([_pod(n, group="pg1", cpu="2") for n in [*pending, "p"]])
    message = _message(cp, "p")
    assert message.startswith("0/1 nodes are available")
    assert message.endswith(REJECTED) is rejects


# -- coscheduling_test.go TestPodGroupBackoffTime -------------------------------------------------


def test_pod_group_backoff_time_prevent_pod_falling_into_infinite_scheduling_loop() -> None:
    """TestPodGroupBackoffTime "prevent pod falling into infinite scheduling loop": pod1 waits at
    Permit, pod2 fails and its PostFilter backs the group off (podGroupBackoffSeconds 1), so pod3's
    PreFilter refuses it, UnschedulableAndUnresolvable, "podGroup ns/pg1 failed recently"."""
    cp = _cluster(1, cpu="1", podGroupBackoffSeconds=1)
    cp.apply(_group("pg1", 3, ns="ns1", timeout=10))
    cp.apply([_pod(f"pod{i}", group="pg1", ns="ns1", cpu="1") for i in (1, 2, 3)])
    events = [e for e in cp.client.list(Event, "ns1").items if e.involved_object.name == "pod3"]
    assert "0/1 nodes are available: podGroup ns1/pg1 failed recently." in [
        _pre_filter_part(e.message) for e in events]


# -- core_test.go TestPreFilter --------------------------------------------------------------------


def _prefilter_cluster() -> ControlPlane:
    return _cluster(2, cpu="4")  # node-a, node-b with 4 CPUs each


def test_prefilter_pod_does_not_belong_to_any_pg() -> None:
    cp = _prefilter_cluster()
    cp.apply([_group("pg1", 1), _group("pg2", 1)])
    cp.apply([_pod("p1", group="pg1"), _pod("p2", group="pg2"), _pod("p")])
    assert bound(cp, ["p", "p1", "p2"]) == ["p", "p1", "p2"]


def test_prefilter_pod_belongs_to_a_non_existent_pg() -> None:
    """PreFilter passes (no PodGroup: nothing to check); Permit then refuses it."""
    cp = _prefilter_cluster()
    cp.apply([_group("pg1", 1), _pod("p", group="pg-non-existent")])
    assert _message(cp, "p") == "PodGroup not found"


def test_prefilter_pod_count_less_than_min_member() -> None:
    cp = _prefilter_cluster()
    cp.apply([_group("pg1", 2), _group("pg2", 2), _pod("pg2-1", group="pg2"), _pod("p", group="pg1")])
    assert _pre_filter_part(_message(cp, "p")) == (
        "0/2 nodes are available: pre-filter pod p cannot find enough sibling pods, "
        "current pods number: 1, minMember of group: 2.")


@pytest.mark.parametrize("name", ["pod count equal minMember", "pod count more than minMember"])
def test_prefilter_pod_count_reaches_min_member(name: str) -> None:
    """Both upstream cases hold three pods for minMember 2."""
    cp = _prefilter_cluster()
    cp.apply([_group("pg1", 2), _group("pg2", 2)])
    cp.apply([_pod(n, group="pg1") for n in ("p1b", "p1c", "p1a")])
    assert bound(cp, ["p1a", "p1b", "p1c"]) == ["p1a", "p1b", "p1c"]


def test_prefilter_gated_pods_but_still_meeting_quorum() -> None:
    cp = _prefilter_cluster()
    cp.apply(_group("pg1", 2))
    cp.apply([_pod("p1b", group="pg1"), _pod("p1c", group="pg1", gates=["example-gate"]),
              _pod("p1a", group="pg1")])
    assert bound(cp, ["p1a", "p1b", "p1c"]) == ["p1a", "p1b"]


@pytest.mark.parametrize(("name", "min_member", "gated"), [
    ("gated pods push group below quorum", 3, ["p1b"]),
    ("all sibling pods are gated", 2, ["p1b", "p1c"]),
])
def test_prefilter_gated_pods_break_the_quorum(name: str, min_member: int, gated: list[str]) -> None:
    cp = _prefilter_cluster()
    cp.apply(_group("pg1", min_member))
    cp.apply([_pod(n, group="pg1", gates=["example-gate"] if n in gated else None) for n in ("p1b", "p1c")])
    cp.apply(_pod("p1a", group="pg1"))
    assert _pre_filter_part(_message(cp, "p1a")) == (
        "0/2 nodes are available: pre-filter pod p1a cannot proceed due to gated "
                                   "pods in the same PodGroup.")


def test_prefilter_clusters_resource_satisfies_min_resource() -> None:
    """minResources cpu 6 against 2 x 4 CPUs (it would fail Filter as one pod; PreFilter only sums)."""
    cp = _prefilter_cluster()
    cp.apply(_group("pg1", 2, min_resources={"cpu": "6"}))
    cp.apply([_pod(n, group="pg1") for n in ("p1b", "p1c", "p1a")])
    assert bound(cp, ["p1a", "p1b", "p1c"]) == ["p1a", "p1b", "p1c"]


def test_prefilter_clusters_resource_cannot_satisfy_min_resource() -> None:
    """minResources cpu 10 against 2 x 4 CPUs. Upstream prints the gap's Quantity structs
    (``map[cpu:{{2 0} ...}]``); kbatch prints the quantity (docs/gang.md, Differences)."""
    cp = _prefilter_cluster()
    cp.apply(_group("pg1", 2, min_resources={"cpu": "10"}))
    cp.apply([_pod(n, group="pg1") for n in ("p1b", "p1c", "p1a")])
    assert _pre_filter_part(_message(cp, "p1a")) == "0/2 nodes are available: resource gap: map[cpu:2]."


# -- core_test.go TestCheckClusterResource -----------------------------------------------------------
CLUSTER_RESOURCE_CASES = [
    ("Cluster resource enough", [("p1", None, "node-0", "2")], True),
    ("Cluster resource not enough", [("p1", None, "node-0", "2"), ("p2", None, "node-1", "1")], False),
    ("Cluster resource enough as p1's resource needs to be excluded from minResources",
     [("p1", "pg1", "node-0", "2"), ("p2", None, "node-1", "1")], True),
]


@pytest.mark.parametrize(("name", "existing", "fits"), CLUSTER_RESOURCE_CASES,
                         ids=[c[0] for c in CLUSTER_RESOURCE_CASES])
def test_check_cluster_resource(name: str, existing: list[tuple], fits: bool) -> None:
    """2 nodes x 3 CPUs, minResources cpu 4 for group pg1 (minMember 1); a member asking for no CPU."""
    cp = _cluster(2, cpu="3")
    cp.apply(_group("pg1", 1, min_resources={"cpu": "4"}))
    cp.apply([_pod(n, group=g, node=node, cpu=c) for n, g, node, c in existing])
    cp.apply(_pod("q", group="pg1"))
    if fits:
        assert node_of(cp, "q") is not None
    else:
        assert _pre_filter_part(_message(cp, "q")) == "0/2 nodes are available: resource gap: map[cpu:1]."


# -- validation_plugingargs_test.go TestValidateCoschedulingArgs -----------------------------------
ARGS_CASES = [
    ("correct config with valid values", {"permitWaitingTimeSeconds": 30, "podGroupBackoffSeconds": 60,
                                          "podGroupRejectPercentage": 10}, None),
    ("valid PodGroupRejectPercentage at boundaries",
     {"permitWaitingTimeSeconds": 30, "podGroupBackoffSeconds": 0, "podGroupRejectPercentage": 0}, None),
    ("valid PodGroupRejectPercentage at upper boundary",
     {"permitWaitingTimeSeconds": 30, "podGroupBackoffSeconds": 0, "podGroupRejectPercentage": 100}, None),
    ("invalid PermitWaitingTimeSeconds (negative value)",
     {"permitWaitingTimeSeconds": -10, "podGroupBackoffSeconds": 60, "podGroupRejectPercentage": 10},
     "permitWaitingTimeSeconds: Invalid value: -10: must be greater than 0"),
    ("invalid PodGroupBackoffSeconds (negative value)",
     {"permitWaitingTimeSeconds": 30, "podGroupBackoffSeconds": -20, "podGroupRejectPercentage": 10},
     "podGroupBackoffSeconds: Invalid value: -20: must be greater than 0"),
    ("invalid PodGroupRejectPercentage (negative value)",
     {"permitWaitingTimeSeconds": 30, "podGroupBackoffSeconds": 0, "podGroupRejectPercentage": -1},
     "podGroupRejectPercentage: Invalid value: -1: must be between 0 and 100"),
    ("invalid PodGroupRejectPercentage (greater than 100)",
     {"permitWaitingTimeSeconds": 30, "podGroupBackoffSeconds": 0, "podGroupRejectPercentage": 150},
     "podGroupRejectPercentage: Invalid value: 150: must be between 0 and 100"),
    ("both PermitWaitingTimeSeconds and PodGroupBackoffSeconds are negative",
     {"permitWaitingTimeSeconds": -30, "podGroupBackoffSeconds": -20, "podGroupRejectPercentage": 10},
     "[permitWaitingTimeSeconds: Invalid value: -30: must be greater than 0, podGroupBackoffSeconds: Invalid "
     "value: -20: must be greater than 0]"),
]


@pytest.mark.parametrize(("name", "args", "error"), ARGS_CASES, ids=[c[0] for c in ARGS_CASES])
def test_validate_coscheduling_args(name: str, args: dict[str, int], error: str | None) -> None:
    if error is None:
        cp = _cluster(1, **args)
        cp.apply([_group("pg1", 1), _pod("p", group="pg1")])
        assert node_of(cp, "p") == "node-0"
        return
    with pytest.raises(SchedulerConfigError) as caught:
        _cluster(0, **args)
    assert str(caught.value) == f'initializing plugin "Coscheduling": {error}'


# -- coscheduling_test.go TestLessAfterScheduleFailure -----------------------------------------------


@pytest.mark.parametrize(("name", "timeout", "first"), [
    ("Before failure: PG1 (older) sorts before PG2 (newer)", 600, "p1"),
    ("After failure: PG2 should sort before PG1", 2, "p2"),
])
def test_less_after_schedule_failure(name: str, timeout: int, first: str) -> None:
    """pg1 (created at 0 s, minMember 2) is older than pg2 (5 s). pg1's member ``a1`` fits the small
    node and waits at Permit for ``p1``, which fits nowhere yet. With scheduleTimeoutSeconds 2 the wait
    expires and Unreserve marks pg1 failed (``MarkPodGroupScheduleFailure``): pg1 then sorts by that
    time, after pg2; with 600 s it does not fail before the new node comes. A 100 % reject threshold
    keeps PostFilter from marking either group."""
    cp = _cluster(1, cpu="1", podGroupRejectPercentage=100)
    cp.apply(_group("pg1", 2, timeout=timeout))
    _advance_to(cp, 5)
    cp.apply(_group("pg2", 1))
    _advance_to(cp, 6)
    cp.apply([_pod("p1", group="pg1", cpu="3"), _pod("a1", group="pg1")])
    _advance_to(cp, 7)
    cp.apply(_pod("p2", group="pg2", cpu="3"))
    _advance_to(cp, 30)
    watch = cp.client.watch(Event, None)
    create_nodes(cp, 1, NodeTemplate(cpu="4"), start=1)  # room for one of p1, p2
    cp.advance(1)
    taken = [e.object.involved_object.name for e in watch.poll()
             if e.object.reason == "Scheduled" and e.object.involved_object.name in ("p1", "p2")]
    assert taken[:1] == [first]
