"""Hypothesis properties of Workload preemption gates, through the whole manager.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler.go`` ``processEntry`` (a
workload needing preemption with a closed gate is ``preemptionGated``: it preempts nothing and
holds no quota back), ``pkg/workload/workload.go`` ``HasClosedPreemptionGate`` (an ``Open`` state is
no gate), KEP ``keps/8303-multikueue-orchestrated-preemption``. On random workloads in one
ClusterQueue that preempts lower priorities:

* a workload whose gate is closed never causes an eviction (no ``Preempted`` condition names its
  UID), and only a gated workload without quota says ``BlockedOnPreemptionGates=True``;
* a gate opened as the workload is created changes nothing: the run matches the one with the
  feature gates off, where the gate is only data;
* opening every gate afterwards lets the gated workloads preempt as the ungated would (an
  eviction closes the evicted workload's gates again);
* the same inputs give the same trace.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue import preemption_gates as G
from kbatch.controllers.kueue import workloads as W

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

ON = "MultiKueueOrchestratedPreemption=true"
# (cpu, priority, gated) per workload, created one after another
WORKLOADS = st.lists(st.tuples(st.integers(1, 3), st.integers(0, 3), st.booleans()), min_size=1, max_size=7)
SCENARIO = st.tuples(WORKLOADS, st.sampled_from(["BestEffortFIFO", "StrictFIFO"]))
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
UID = re.compile(r"UID: ([^,]+),")


def _world(strategy: str, gates: str | None) -> World:
    cq = cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])]), queueingStrategy=strategy,
                       preemption={"withinClusterQueue": "LowerPriority"})
    return World(flavor("default"), cq, local_queue("lq", "cq"), feature_gates=gates)


def _doc(i: int, cpu: int, priority: int, gated: bool) -> dict:
    doc = workload(f"w{i}", "lq", cpu=str(cpu), priority=priority)
    if gated:
        doc["spec"]["preemptionGates"] = [{"name": "g"}]
    return doc


def _open(w: World, name: str) -> None:
    wl = w.wl(name)
    status = W.status_of(wl)
    assert G.set_position(wl, status, "g", G.OPEN, w.cp.now())
    w.cp.client.update_status(wl.model_copy(update={"status": status}))


def _ran(strategy: str, gates: str | None, items: list[tuple[int, int, bool]],
         open_at_creation: bool = False) -> World:
    """A world with ``items`` created one after another, settling after each."""
    w = _world(strategy, gates)
    for i, (cpu, priority, gated) in enumerate(items):
        w.apply(_doc(i, cpu, priority, gated))
        if gated and open_at_creation:
            w.cp.run_until_idle()  # the workload controller gives the gate its Closed state
            _open(w, f"w{i}")
        w.settle(rounds=2)
    return w


def _outcome(w: World) -> tuple[list[str], list[str]]:
    return w.names_where("QuotaReserved"), w.names_where("Preempted")


def _gated_uids(w: World, items: list[tuple[int, int, bool]]) -> set[str]:
    out = set()
    for i, (_, _, gated) in enumerate(items):
        wl = w.wl(f"w{i}")
        if gated and G.has_closed_gate(wl):
            out.add(wl.metadata.uid)
    return out


@SETTINGS
@given(SCENARIO)
def test_a_closed_gate_never_causes_an_eviction(scenario) -> None:
    items, strategy = scenario
    w = _ran(strategy, ON, items)
    gated = _gated_uids(w, items)
    assert len(gated) == sum(1 for *_, g in items if g)  # nobody opened them
    for wl in w.cp.client.list(type(w.wl("w0"))).items:
        preempted = next((c for c in (wl.status.conditions if wl.status else None) or ()
                          if c.type == "Preempted"), None)
        if preempted is not None:
            (by,) = UID.findall(preempted.message or "")
            assert by not in gated, (wl.metadata.name, preempted.message)
        if G.blocked_condition(wl.status) is not None:
            assert wl.metadata.uid in gated and not w.reserved(wl.metadata.name)


@SETTINGS
@given(SCENARIO)
def test_a_gate_opened_at_creation_is_no_gate(scenario) -> None:
    items, strategy = scenario
    off = _ran(strategy, None, items)
    on = _ran(strategy, ON, items, open_at_creation=True)
    assert _outcome(on) == _outcome(off)
    assert not any(G.blocked_condition(on.wl(f"w{i}").status) for i in range(len(items)))


@SETTINGS
@given(SCENARIO)
def test_opening_the_gates_lets_the_same_inputs_proceed(scenario) -> None:
    """After every gate opens, no workload whose gates are open is left pending while it could
    preempt (one flavor, ``withinClusterQueue: LowerPriority``: the lower priorities holding quota
    and the free quota would make room). An eviction closes a workload's gates again
    (``closeAllPreemptionGates``), so only an evicted workload has a closed gate afterwards.
    BestEffortFIFO: under StrictFIFO a head that cannot be admitted holds the others back."""
    items, _ = scenario
    w = _ran("BestEffortFIFO", ON, items)
    for i, (_, _, gated) in enumerate(items):
        if gated:
            _open(w, f"w{i}")
    w.settle()
    reclosed = _gated_uids(w, items)
    evicted = {w.wl(n).metadata.uid for n in w.names_where("Evicted")}
    evicted |= {w.wl(f"w{i}").metadata.uid for i in range(len(items))
                if W.find(w.wl(f"w{i}").status, "Evicted") is not None}
    assert reclosed <= evicted
    reserved = [j for j in range(len(items)) if w.reserved(f"w{j}")]
    free = 4 - sum(items[j][0] for j in reserved)
    for i, (need, priority, _) in enumerate(items):
        if i in reserved or w.wl(f"w{i}").metadata.uid in reclosed:
            continue
        lower = sum(items[j][0] for j in reserved if items[j][1] < priority)
        assert free + lower < need, (i, reserved, free)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCENARIO)
def test_same_inputs_give_the_same_trace(scenario) -> None:
    items, strategy = scenario
    digests = []
    for _ in range(2):
        digests.append(_ran(strategy, ON, items).cp.trace.digest())
    assert digests[0] == digests[1]
