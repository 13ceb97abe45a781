"""Upstream's preemption-gate cases: the scheduler, the queue, the workload controller, eviction.

Sources (kubernetes-sigs/kueue v0.19.2):

* ``pkg/scheduler/scheduler_test.go`` ``TestSchedule`` rows "block preemptions and signal
  `BlockedOnPreemptionGates` when a preemption gate is present", "do not signal … but the workload
  fits without preemption", "do not signal … but the workload had nothing to preempt" (gate
  ``MultiKueueOrchestratedPreemption`` on), and ``TestRequeueAndUpdate`` "preemption gated";
* ``test/integration/singlecluster/scheduler/preemption_test.go`` "Should not block lower priority
  workloads while the preemption gate is closed";
* ``pkg/controller/core/workload_controller_test.go`` "should synchronize the status of preemption
  gates";
* ``pkg/workload/evict/evict.go`` ``prepareForEviction`` (the condition turned False, the gates
  closed), ``pkg/workload/workload.go`` ``HasClosedPreemptionGate``/``SetPreemptionGatePosition``.

Upstream's rows run with ``UnadmittedWorkloadsObservability``; kbatch's default (off, as v0.19.2's)
writes QuotaReserved reason ``Pending``, as ``AdjustWorkloadsForDisabledObservabilityInScheduler``
does; the granular ``AdmissionGated`` is checked with the gate on.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.workload import PreemptionGateState
from kbatch.controllers.kueue import preemption_gates as G
from kbatch.controllers.kueue import workloads as W

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .upstream_schedule import GPU, one_cycle
from .upstream_schedule import W as Wl

GATED = "Workload requires preemption, but it's gated"
ORCHESTRATED = "MultiKueueOrchestratedPreemption=true"


def _holder(name: str, priority: int) -> Wl:
    return Wl(name, "eng-beta", requests={GPU: "20"}, priority=priority, admitted_to="eng-beta",
              assignment=[{GPU: ("model-a", "20")}])


def _preemptor() -> Wl:
    return Wl("preemptor", "eng-beta", "main", {GPU: "20"}, preemption_gates=["gate"])


@pytest.mark.parametrize("gates", [ORCHESTRATED, "ConcurrentAdmission=true"])
def test_block_preemptions_and_signal_blocked_on_preemption_gates(gates: str) -> None:
    """Either gate turns the check on (``processEntry``: ``ConcurrentAdmission ||
    MultiKueueOrchestratedPreemption``)."""
    out = one_cycle([_preemptor(), _holder("low-priority", -1)], feature_gates=gates)
    assert out.preempted == {}
    assert out.reserved == {"eng-beta/low-priority": ("eng-beta", {"main": {GPU: "model-a"}})}
    assert out.pending == {"eng-beta/preemptor": ("Pending", GATED)}
    assert out.blocked == {"eng-beta/preemptor": ("True", "PreemptionGated", GATED)}
    assert out.left == {"eng-beta": ["eng-beta/preemptor"]}  # StrictFIFO: straight back to the heap
    assert ("Warning", "Pending") in out.events["eng-beta/preemptor"]


def test_block_preemptions_with_observability_says_admission_gated() -> None:
    """The scheduler writes QuotaReserved=False ``AdmissionGated`` (its Warning event says so); the
    workload controller, seeing that reason without an ``admission-gated-by`` annotation, then
    rewrites it as a cleared admission gate (``mayUpdateConditionForAdmissionGatedBy``, as upstream's
    controller does after its scheduler). ``BlockedOnPreemptionGates`` stays."""
    out = one_cycle([_preemptor(), _holder("low-priority", -1)],
                    feature_gates=f"{ORCHESTRATED},UnadmittedWorkloadsObservability=true")
    assert ("Warning", "AdmissionGated") in out.events["eng-beta/preemptor"]
    assert ("Normal", "AdmissionGateCleared") in out.events["eng-beta/preemptor"]
    assert out.pending == {
        "eng-beta/preemptor": ("PendingEvaluation", "AdmissionGatedBy cleared, waiting for quota reservation")
    }
    assert out.blocked == {"eng-beta/preemptor": ("True", "PreemptionGated", GATED)}


def test_gate_is_data_with_both_feature_gates_off() -> None:
    """v0.19.2's defaults: the gate is not consulted, the preemptor preempts."""
    out = one_cycle([_preemptor(), _holder("low-priority", -1)])
    assert out.preempted == {"eng-beta/low-priority": "InClusterQueue"}
    assert out.blocked == {}


def test_do_not_signal_when_the_workload_fits_without_preemption() -> None:
    out = one_cycle([_preemptor()], feature_gates=ORCHESTRATED)
    assert out.reserved == {"eng-beta/preemptor": ("eng-beta", {"main": {GPU: "model-a"}})}
    assert out.blocked == {}


def test_do_not_signal_when_the_workload_had_nothing_to_preempt() -> None:
    out = one_cycle([_preemptor(), _holder("high-priority", 1)], feature_gates=ORCHESTRATED)
    assert out.pending == {
        "eng-beta/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for example.com/gpu "
            "in flavor model-a, 20 more needed",
        )
    }
    assert out.blocked == {}


# --- test/integration/singlecluster/scheduler/preemption_test.go ---------------------------------


def _cq_world(*extra: str) -> World:
    cq = cluster_queue("cq", (["cpu"], [("alpha", [quota("cpu", "2")])]),
                       preemption={"withinClusterQueue": "LowerPriority"})
    return World(flavor("alpha"), cq, local_queue("q", "cq"),
                 feature_gates=",".join((ORCHESTRATED, *extra)))


def _gated(name: str, cpu: str, priority: int, gates: list[str]) -> dict:
    doc = workload(name, "q", cpu=cpu, priority=priority)
    doc["spec"]["preemptionGates"] = [{"name": g} for g in gates]
    return doc


def test_should_not_block_lower_priority_workloads_while_the_preemption_gate_is_closed() -> None:
    w = _cq_world()
    w.apply(workload("low", "q", cpu="1.5", priority=-1))
    w.cp.run_until_idle()
    assert w.reserved("low")
    w.apply(_gated("high", "1", 1, ["testgate"]))
    for _ in range(5):  # ``Consistently``
        w.settle(rounds=1)
        assert w.reserved("low") and not w.reserved("high")
    w.apply(workload("low2", "q", cpu="0.5", priority=-1))
    w.cp.run_until_idle()
    assert w.reserved("low2")  # the gated workload holds no quota back


def _open(w: World, name: str, gate: str) -> None:
    wl = edit(w.wl(name))
    assert G.set_position(wl, wl.status, gate, G.OPEN, w.cp.now())
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()


@pytest.mark.parametrize("strategy", ["BestEffortFIFO", "StrictFIFO"])
def test_opening_the_gate_lets_the_workload_preempt(strategy: str) -> None:
    """``PushOrUpdate``: a gate that opens takes the workload out of the inadmissible set
    (``HasClosedPreemptionGate`` changed), and the next cycle preempts."""
    w = _cq_world()
    w.apply({**cluster_queue("cq", (["cpu"], [("alpha", [quota("cpu", "2")])]),
                             preemption={"withinClusterQueue": "LowerPriority"}, queueingStrategy=strategy)})
    w.apply(workload("low", "q", cpu="2", priority=-1))
    w.cp.run_until_idle()
    w.apply(_gated("high", "1", 1, ["a", "b"]))
    w.settle(rounds=2)
    assert not w.names_where("Preempted")
    assert [s.name for s in w.wl("high").status.preemption_gates] == ["a", "b"]  # synchronised, Closed
    _open(w, "high", "a")
    w.settle(rounds=2)
    assert not w.names_where("Preempted")  # gate b still closed
    _open(w, "high", "b")
    w.settle()
    assert w.names_where("Preempted") == ["low"]
    assert w.reserved("high")
    blocked = w.cond("high", G.BLOCKED_ON_PREEMPTION_GATES)
    assert (blocked.status, blocked.reason) == ("False", "QuotaReserved")  # ``SetQuotaReservation``
    assert blocked.message == "Previously: " + GATED


def test_synchronize_the_status_of_preemption_gates() -> None:
    """workload_controller_test.go: a state whose gate left the spec goes, a spec gate without a
    state gets a Closed one (the workload's queue has no ClusterQueue: nothing else happens)."""
    w = _cq_world()
    doc = _gated("wl", "1", 0, ["synchronized", "desynchronized-status"])
    doc["spec"]["queueName"] = "missing"
    w.apply(doc)
    w.cp.advance(5)
    t0 = w.cp.now()
    wl = edit(w.wl("wl"))
    wl.status.preemption_gates = [
        PreemptionGateState(name="synchronized", position=G.CLOSED, last_transition_time=t0),
        PreemptionGateState(name="desynchronized-spec", position=G.CLOSED, last_transition_time=t0),
    ]
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()
    got = [(s.name, s.position, s.last_transition_time) for s in w.wl("wl").status.preemption_gates]
    assert got == [("synchronized", "Closed", t0), ("desynchronized-status", "Closed", t0)]


def test_states_are_not_synchronised_with_the_gate_off() -> None:
    w = World(flavor("alpha"), cluster_queue("cq", (["cpu"], [("alpha", [quota("cpu", "2")])])),
              local_queue("q", "cq"))
    w.apply(_gated("wl", "1", 0, ["g"]))
    w.cp.run_until_idle()
    assert w.wl("wl").status.preemption_gates is None


# --- pure helpers (pkg/workload/workload.go, pkg/workload/evict/evict.go) ------------------------

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T1 = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)


def _wl(spec: list[str], states: list[tuple[str, str]] | None = None) -> Workload:
    doc = workload("wl", "q")
    doc["spec"]["preemptionGates"] = [{"name": g} for g in spec]
    if states is not None:
        doc["status"] = {"preemptionGates": [
            {"name": n, "position": p, "lastTransitionTime": "2026-01-01T00:00:00Z"} for n, p in states]}
    return Workload.model_validate(doc)


@pytest.mark.parametrize("spec, states, closed", [
    ([], None, False),
    (["g"], None, True),  # only in the spec: closed, so a workload is created gated in one write
    (["g"], [("g", "Closed")], True),
    (["g"], [("g", "Open")], False),
    (["g", "h"], [("g", "Open")], True),
    (["g", "h"], [("g", "Open"), ("h", "Open")], False),
    ([], [("g", "Closed")], False),  # a state without its gate in the spec does not count
])
def test_has_closed_preemption_gate(spec: list[str], states: list | None, closed: bool) -> None:
    assert G.has_closed_gate(_wl(spec, states)) is closed


def test_set_position_only_for_a_gate_of_the_spec() -> None:
    wl = edit(_wl(["g"]))
    assert not G.set_position(wl, wl.status or W.status_of(wl), "other", G.OPEN, T1)
    status = W.status_of(wl)
    assert G.set_position(wl, status, "g", G.OPEN, T1)
    got = [(s.name, s.position, s.last_transition_time) for s in status.preemption_gates]
    assert got == [("g", "Open", T1)]
    assert G.is_open(status, "g") and not G.is_open(status, "other")


def test_eviction_closes_the_gates_and_turns_the_condition_false() -> None:
    wl = _wl(["g"], [("g", "Open")])
    status = W.status_of(wl)
    G.set_blocked(status, GATED, 1, T0)
    W.prepare_eviction(status, "Preempted", "Preempted to accommodate …", 1, T1, "Preempted")
    cond = W.find(status, G.BLOCKED_ON_PREEMPTION_GATES)
    assert (cond.status, cond.reason, cond.message, cond.last_transition_time) == (
        "False", "Preempted", "Preempted to accommodate …", T1)
    assert [(s.position, s.last_transition_time) for s in status.preemption_gates] == [("Closed", T1)]


def test_with_gate_appends_once() -> None:
    gates = G.with_gate(None, G.MULTIKUEUE_GATE)
    assert [g.name for g in gates] == [G.MULTIKUEUE_GATE]
    assert G.with_gate(gates, G.MULTIKUEUE_GATE) == gates
