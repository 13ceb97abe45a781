"""Topology-aware scheduling behind a ProvisioningRequest check: quota first, topology after the
nodes are provisioned (delayed topology requests, ``kbatch.controllers.kueue.tas.delayed``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/tas/tas_test.go``, "when
ProvisioningRequest is used" (the cases below keep its names, objects and expectations; the
autoscaler's answers are written by hand as there), ``pkg/workload/admissionchecks.go``
(``SyncAdmittedCondition``'s ``PendingDelayedTopologyRequests``) and ``pkg/cache/queue/manager.go``
(the second pass's back-off)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event, Node
from kbatch.api.kueue_v1beta2 import ClusterQueue
from kbatch.sim.nodes import NodeTemplate, create_nodes

from ..helpers import KUEUE, World, cluster_queue, local_queue, quota, workload
from .world import admission_check, answer, check, config, requests

BLOCK, RACK, HOST = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
DEDICATED, DETAIL = "dedicated-selector-key", "dedicated-selector-detail"
PR = "wl1-provisioning-1"  # ``ProvisioningRequestName(wl1, provisioning, 1)``
TOPOLOGY = {
    "apiVersion": KUEUE,
    "kind": "Topology",
    "metadata": {"name": "default"},
    "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]},
}
TAS_FLAVOR = {
    "apiVersion": KUEUE,
    "kind": "ResourceFlavor",
    "metadata": {"name": "tas-flavor"},
    "spec": {"nodeLabels": {"node-group": "tas"}, "topologyName": "default"},
}


def _world(**kw: Any) -> World:
    """The ``BeforeEach``: the flavor, a config (retry limit 1, base back-off 1 s, a node selector
    from the class details), the check, a ClusterQueue of 5 cpu naming it, a LocalQueue."""
    prc = config(
        "prov-config",
        retryStrategy={"backoffLimitCount": 1, "backoffBaseSeconds": 1},
        podSetUpdates={"nodeSelector": [{"key": DEDICATED, "valueFromProvisioningClassDetail": DETAIL}]},
    )
    checks = {"admissionChecks": [{"name": "provisioning"}]}
    w = World(
        TOPOLOGY,
        TAS_FLAVOR,
        admission_check("provisioning", "prov-config"),
        prc,
        cluster_queue("cq", (["cpu"], [("tas-flavor", [quota("cpu", "5")])]), admissionChecksStrategy=checks),
        local_queue("lq", "cq"),
        **kw,
    )
    w.cp.run_until_idle()
    return w


def _submit(w: World, count: int = 1, **resources: Any) -> None:
    wl = workload("wl1", "lq", count=count, cpu="1")
    ps = wl["spec"]["podSets"][0]
    ps["topologyRequest"] = {"preferred": RACK}
    if resources:
        ps["template"]["spec"]["containers"][0]["resources"] = resources
    w.apply(wl)
    w.settle(rounds=2)


def _node(w: World, name: str, rack: str, cpu: str = "1", ready: bool = True, **labels: str) -> None:
    tmpl = NodeTemplate(cpu=cpu, memory="1Gi", pods=10,
                        labels={"node-group": "tas", BLOCK: "b1", RACK: rack, HOST: name, **labels})
    create_nodes(w.cp, 1, tmpl, prefix=f"{name}-")
    if not ready:
        _set_ready(w, f"{name}-0", False)


def _set_ready(w: World, node: str, ready: bool) -> None:
    obj = w.cp.client.get(Node, node)
    conditions = [c.to_dict() for c in obj.status.conditions or () if c.type != "Ready"]
    conditions.append({"type": "Ready", "status": "True" if ready else "False", "reason": "Test"})
    w.cp.client.patch_status(Node, node, {"status": {"conditions": conditions}})


def _psa(w: World) -> Any:
    adm = w.wl("wl1").status.admission
    assert adm is not None and len(adm.pod_set_assignments) == 1
    return adm.pod_set_assignments[0]


def _on(host: str) -> dict[str, Any]:
    return {
        "levels": [HOST],
        "slices": [
            {"domainCount": 1, "valuesPerLevel": [{"universal": host}], "podCounts": {"universal": 1}}
        ],
    }


def _pending_topology(w: World) -> None:
    """The quota is reserved, the topology request delayed (``HasTopologyAssignmentsPending``)."""
    psa = _psa(w)
    assert w.reserved("wl1") and not w.admitted("wl1")
    assert (psa.topology_assignment, psa.delayed_topology_request) == (None, "Pending")
    assert list(requests(w)) == [PR]


def test_admitted_when_nodes_are_provisioned_nodes_ready_after_small_delay() -> None:
    w = _world()
    _submit(w)
    _pending_topology(w)
    _node(w, "x1", "r1", ready=False)
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.settle(rounds=3)
    assert check(w, "wl1", "provisioning").state == "Ready"
    assert _psa(w).topology_assignment is None and not w.admitted("wl1")  # no Ready node yet
    _set_ready(w, "x1-0", True)
    w.settle(rounds=20, step=2)  # the second pass's back-off has grown meanwhile
    psa = _psa(w)
    assert psa.topology_assignment.to_dict() == _on("x1")
    assert psa.delayed_topology_request == "Ready"
    assert w.admitted("wl1")
    admitted = "Admitted by ClusterQueue cq, wait time since reservation was 0s"
    assert ("Normal", "Admitted", admitted) in w.events("wl1")


def test_admitted_when_nodes_are_provisioned_limits_only_requested_by_workload() -> None:
    """"limits-only requested by Workload": the search counts the limits as the pod's requests."""
    w = _world()
    wl = workload("wl1", "lq", count=2)
    ps = wl["spec"]["podSets"][0]
    ps["topologyRequest"] = {"preferred": RACK}
    ps["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    w.apply(wl)
    w.settle(rounds=2)
    _pending_topology(w)
    _node(w, "x1", "r1")
    _node(w, "x2", "r1")
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.settle(rounds=4)
    assert w.admitted("wl1")
    domains = _psa(w).topology_assignment.to_dict()
    assert domains["levels"] == [HOST] and sum(
        s["domainCount"] for s in domains["slices"]
    ) == 2  # one pod on each 1-cpu node


def test_admitted_on_the_dedicated_newly_provisioned_nodes() -> None:
    """Only the node the class details' selector names takes the pod, though the other rack
    would do otherwise (the checks' ``podSetUpdates`` filter the search's nodes)."""
    w = _world()
    _submit(w)
    _pending_topology(w)
    _node(w, "x2", "r1", **{DEDICATED: "dedicated-selector-value-abc"})
    _node(w, "x1", "r2", cpu="2", **{DEDICATED: "dedicated-selector-value-xyz"})
    answer(w, PR, "Provisioned", reason="Provisioned", message="",
           details={DETAIL: "dedicated-selector-value-xyz"})
    w.settle(rounds=4)
    assert _psa(w).topology_assignment.to_dict() == _on("x1")
    assert w.admitted("wl1")


def _usage(cq: ClusterQueue) -> tuple[Any, ...]:
    st = cq.status
    total = [(f.name, [(r.name, str(r.total) if r.total is not None else None) for r in f.resources])
             for f in st.flavors_reservation or ()]
    used = [(f.name, [(r.name, str(r.total) if r.total is not None else None) for r in f.resources])
            for f in st.flavors_usage or ()]
    return st.pending_workloads, st.reserving_workloads, st.admitted_workloads, total, used


def test_quota_usage_is_counted_before_and_after_the_topology_is_found() -> None:
    w = _world()
    _submit(w)
    _pending_topology(w)
    w.settle(rounds=2)
    pending, reserving, admitted, reserved, used = _usage(w.cq("cq"))
    assert (pending, reserving, admitted) == (0, 1, 0)
    assert reserved == [("tas-flavor", [("cpu", "1")])]
    assert used == [("tas-flavor", [("cpu", "0")])]
    _node(w, "x1", "r1")
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.settle(rounds=4)
    assert _psa(w).topology_assignment.to_dict() == _on("x1")
    assert _usage(w.cq("cq")) == (0, 1, 1, [("tas-flavor", [("cpu", "1")])], [("tas-flavor", [("cpu", "1")])])


def _second_pass_event(w: World) -> Event | None:
    return next((e for e in w.cp.client.list(Event, "default").items
                 if e.reason == "SecondPassFailed" and e.involved_object.name == "wl1"), None)


def _second_pass_failures(w: World) -> int:
    """The occurrences the stored Event shows: Kueue records through events.k8s.io/v1, so a repeat is
    a ``series`` (client-go ``tools/events``: written at the second occurrence, then only at the
    broadcaster's sweeps)."""
    event = _second_pass_event(w)
    if event is None:
        return 0
    return event.series.count or 0 if event.series is not None else 1


def test_second_pass_backs_off_exponentially_until_the_node_is_ready() -> None:
    """"uses exponential second-pass backoff": tries 1 s, then 2 s and 4 s later, each failing
    with a ``SecondPassFailed`` warning while the node is not Ready; the next, 8 s later, admits."""
    w = _world()
    _submit(w)
    _node(w, "x1", "r1", ready=False)
    answer(w, PR, "Provisioned", reason="Provisioned", message="")  # the back-off window starts
    start = w.cp.clock.now_datetime()
    w.cp.advance(0.9)
    assert _second_pass_failures(w) == 0
    w.cp.advance(0.2)  # 1 s
    assert _second_pass_failures(w) == 1
    w.cp.advance(2)  # 3 s
    assert _second_pass_failures(w) == 2
    w.cp.advance(4)  # 7 s: the third is counted on the cached series, written by a later sweep
    assert _second_pass_failures(w) == 2
    assert _psa(w).topology_assignment is None
    events = w.cp.client.list(Event, "default").items
    message = next(e.message for e in events if e.reason == "SecondPassFailed")
    assert message == "couldn't assign flavors to pod set main: no topology domains at level: " + RACK
    _set_ready(w, "x1-0", True)
    w.cp.advance(7.8)  # 14.9 s: the fourth try is at 15 s
    assert _psa(w).topology_assignment is None
    w.cp.advance(0.2)
    assert _psa(w).topology_assignment.to_dict() == _on("x1") and w.admitted("wl1")
    assert _second_pass_failures(w) == 2
    w.cp.advance("12m")  # finishSeries (every 6 minutes) writes a series quiet for 6 minutes
    event = _second_pass_event(w)
    assert event is not None and event.series is not None
    assert (event.series.count, event.series.last_observed_time) == (3, start + timedelta(seconds=7))


def test_pending_delayed_topology_requests_is_the_admitted_reason_with_observability() -> None:
    """``SyncAdmittedCondition``: quota reserved and every check Ready, but a topology request
    pending (``UnadmittedWorkloadsObservability``: the condition is written while not admitted)."""
    w = _world(kueue_config={"featureGates": {"UnadmittedWorkloadsObservability": True}})
    _submit(w)
    _node(w, "x1", "r1", ready=False)
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.cp.advance(2)
    admitted = w.cond("wl1", "Admitted")
    assert (admitted.status, admitted.reason, admitted.message) == (
        "False",
        "PendingDelayedTopologyRequests",
        "There are pending delayed topology requests",
    )


def test_a_conflicting_pod_set_update_fails_the_second_pass() -> None:
    """``findTopologyAssignment``: the pod set's own node selector and a check's update disagree."""
    w = _world()
    wl = workload("wl1", "lq", cpu="1")
    ps = wl["spec"]["podSets"][0]
    ps["topologyRequest"] = {"preferred": RACK}
    ps["template"]["spec"]["nodeSelector"] = {DEDICATED: "mine"}
    w.apply(wl)
    w.settle(rounds=2)
    _node(w, "x1", "r1", **{DEDICATED: "theirs"})
    answer(w, PR, "Provisioned", reason="Provisioned", message="", details={DETAIL: "theirs"})
    w.cp.advance(1.5)
    assert ("Warning", "SecondPassFailed", (
        "couldn't assign flavors to pod set main: invalid podSetUpdate for PodSet main, error: invalid "
        "admission check PodSetUpdate: conflict for nodeSelector: conflict for key=dedicated-selector-key, "
        "value1=mine, value2=theirs"
    )) in w.events("wl1")
    assert not w.admitted("wl1")


def test_a_tas_flavor_no_provisioning_check_covers_is_searched_at_once() -> None:
    """``HasProvRequestAdmissionCheck`` is per flavor: a check whose rule names another flavor
    does not delay the topology."""
    other = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "other"}, "spec": {}}
    w = _world()
    w.apply(other)
    cq = cluster_queue(
        "cq",
        (["cpu"], [("tas-flavor", [quota("cpu", "5")])]),
        (["memory"], [("other", [quota("memory", "5Gi")])]),
        admissionChecksStrategy={"admissionChecks": [{"name": "provisioning", "onFlavors": ["other"]}]},
    )
    w.apply(cq)
    _node(w, "x1", "r1")
    w.cp.run_until_idle()
    _submit(w)
    psa = _psa(w)
    assert psa.delayed_topology_request is None
    assert psa.topology_assignment.to_dict() == _on("x1")


def test_a_booking_expiring_before_the_topology_is_found_retries_the_check() -> None:
    """Ready but not admitted (the topology still pending), the Workload's check follows the
    request's ``BookingExpired`` to Retry ("Retrying after booking expired: …",
    ``syncCheckStates``), and the Workload is evicted to try again (attempt 2)."""
    w = _world()
    _submit(w)
    _node(w, "x1", "r1", ready=False)
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.cp.advance(2)
    assert check(w, "wl1", "provisioning").state == "Ready" and not w.admitted("wl1")
    answer(w, PR, "BookingExpired", message="Capacity reservation time is expired")
    updates = [m for _, reason, m in w.events("wl1") if reason == "AdmissionCheckUpdated"]
    assert updates[-1] == (
        "Admission check provisioning updated state from Ready to Retry with message: "
        "Retrying after booking expired: Capacity reservation time is expired"
    )
    w.settle(rounds=4)
    assert "wl1-provisioning-2" in requests(w)
    assert _psa(w).delayed_topology_request == "Pending"  # admitted anew: the topology delayed again


def _invariants(w: World) -> None:
    """Admitted only with every check Ready and the topology found (``Ready``); a pending
    topology request has no assignment; the assignment names only nodes of the topology."""
    wl = w.wl("wl1")
    adm = wl.status.admission
    if adm is None:
        assert not w.admitted("wl1")
        return
    (psa,) = adm.pod_set_assignments
    if w.admitted("wl1"):
        assert all(c.state == "Ready" for c in wl.status.admission_checks or ())
        assert psa.topology_assignment is not None and psa.delayed_topology_request == "Ready"
    if psa.delayed_topology_request == "Pending":
        assert psa.topology_assignment is None and not w.admitted("wl1")


STEP = st.sampled_from(["ready", "not-ready", "provisioned", "booking-expired", "advance"])
STEPS = st.lists(STEP, min_size=1, max_size=7)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_admitted_only_with_checks_ready_and_the_delayed_topology_found(steps: list[str]) -> None:
    w = _world()
    _submit(w)
    _node(w, "x1", "r1", ready=False)
    for step in steps:
        live = sorted(requests(w))
        if step in ("ready", "not-ready"):
            _set_ready(w, "x1-0", step == "ready")
        elif step == "provisioned" and live:
            answer(w, live[-1], "Provisioned", reason="Provisioned", message="")
        elif step == "booking-expired" and live:
            answer(w, live[-1], "BookingExpired", message="expired")
        w.cp.advance(3 if step == "advance" else 0.5)
        w.release_evicted()
        _invariants(w)


def test_an_implied_topology_request_of_a_tas_only_queue_is_delayed_too() -> None:
    """``isTASImplied``: in a ClusterQueue whose every flavor is a TAS flavor a pod set without a
    topology request asks for TAS (unconstrained, at the lowest level); behind the check it is
    delayed as an explicit one, then placed on hosts."""
    w = _world()
    w.apply(workload("wl1", "lq", cpu="1", count=2))
    w.settle(rounds=2)
    _pending_topology(w)
    _node(w, "x1", "r1", cpu="2")
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.settle(rounds=3)
    assert w.admitted("wl1")
    assert _psa(w).topology_assignment.to_dict() == {
        "levels": [HOST],
        "slices": [
            {"domainCount": 1, "valuesPerLevel": [{"universal": "x1"}], "podCounts": {"universal": 2}}
        ],
    }


def test_a_podset_group_is_placed_together_by_the_second_pass() -> None:
    """``podSetGroupName``: the leader and the workers of a group are searched together (the
    leader in one of the workers' domains), also when their topology was delayed: both in rack
    r2, though the leader alone would fit r1."""
    import copy

    w = _world()
    wl = workload("wl1", "lq", cpu="1", count=2)
    workers = wl["spec"]["podSets"][0]
    workers["name"] = "workers"
    workers["topologyRequest"] = {"required": RACK, "podSetGroupName": "g"}
    leader = copy.deepcopy(workers)
    leader["name"], leader["count"] = "leader", 1
    wl["spec"]["podSets"] = [leader, workers]
    w.apply(wl)
    w.settle(rounds=2)
    adm = w.wl("wl1").status.admission
    assert [p.delayed_topology_request for p in adm.pod_set_assignments] == ["Pending", "Pending"]
    _node(w, "x1", "r1")
    _node(w, "x2", "r2", cpu="2")
    _node(w, "x3", "r2", cpu="2")
    answer(w, PR, "Provisioned", reason="Provisioned", message="")
    w.settle(rounds=3)
    assert w.admitted("wl1")
    hosts = {
        p.name: sorted(v for s in p.topology_assignment.to_dict()["slices"] for v in _values(s))
        for p in w.wl("wl1").status.admission.pod_set_assignments
    }
    assert set(hosts["leader"]) <= {"x2", "x3"} and set(hosts["workers"]) <= {"x2", "x3"}


def _values(slice_: dict[str, Any]) -> list[str]:
    (level,) = slice_["valuesPerLevel"]
    if "universal" in level:
        return [level["universal"]]
    ind = level["individual"]
    return [ind.get("prefix", "") + r + ind.get("suffix", "") for r in ind["roots"]]
