"""Cases of upstream's ``TestRunPreFilterPlugins`` (``pkg/scheduler/framework/runtime/framework_test.go``,
stored with the 1.36/1.37 ``fwk`` package layout), ported through a whole kbatch attempt
(:meth:`Algorithm.schedule`): the profile's PreFilter plugins are replaced by upstream's injected
``TestPlugin``s, a plugin returning Skip shows it ran (``SKIPPED_FILTERS``), the attempt's diagnosis
carries the status code. Then the cycle around it (``schedule_one.go`` ``findNodesThatFitPod`` and
``schedulingCycle``): a PreFilter rejection is every node's status and PostFilter still runs.

Not translated: the returned ``PreFilterResult`` of the last case is upstream's internal value (kbatch
reports the rejection; the empty intersection itself is covered by test_upstream_node_affinity_table.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler.algorithm import Algorithm
from kbatch.controllers.scheduler.framework import NODE_NAMES, SKIPPED_FILTERS, Code, CycleState, Status

from .upstream_harness import api_node, api_pod, world


class _Injected:
    """Upstream's ``TestPlugin`` with ``injectedResult{PreFilterStatus: …}`` (and a PreFilterResult)."""

    def __init__(self, name: str, code: Code | None = None, nodes: set[str] | None = None) -> None:
        self.name, self.code, self.nodes, self.calls = name, code, nodes, 0

    def pre_filter(self, state: CycleState, pod: Any, snapshot: Any) -> Status | None:
        self.calls += 1
        if self.nodes is not None:
            state[NODE_NAMES] = set(self.nodes)
        if self.code is None:
            return None
        return Status(self.code, (f"injected {self.code.name.lower()} status",), self.name)


def _world(*plugins: _Injected) -> Algorithm:
    algo = world([api_node(n, {"cpu": "4", "memory": "4Gi", "pods": "110"}) for n in ("node1", "node2")])
    algo.profile.pre_filter = list(plugins)
    return algo


def _run(*plugins: _Injected) -> tuple[Code, set[str]]:
    decision = _world(*plugins).schedule(api_pod("p"))
    skipped = set(decision.state.get(SKIPPED_FILTERS, ()))
    if decision.error:
        return Code.ERROR, skipped
    if decision.diagnosis is None:
        return Code.SUCCESS, skipped
    assert decision.diagnosis.pre_filter is not None
    return decision.diagnosis.pre_filter.code, skipped


S, E, K, U, X = Code.SUCCESS, Code.ERROR, Code.SKIP, Code.UNSCHEDULABLE, Code.UNRESOLVABLE

CASES = [
    ("all PreFilter returned success", [("success1", None), ("success2", None)], S, set()),
    ("one PreFilter plugin returned success, but another PreFilter plugin returned non-success",
     [("success", None), ("error", E)], E, set()),
    ("one PreFilter plugin returned skip, but another PreFilter plugin returned non-success",
     [("skip", K), ("error", E)], E, {"skip"}),
    ("all PreFilter plugins returned skip", [("skip1", K), ("skip2", K), ("skip3", K)], S,
     {"skip1", "skip2", "skip3"}),
    ("some PreFilter plugins returned skip",
     [("skip1", K), ("success1", None), ("skip2", K), ("success2", None)], S, {"skip1", "skip2"}),
    ("one PreFilter plugin returned Unschedulable, but another PreFilter plugin should be executed",
     [("unschedulable", U), ("skip", K)], U, {"skip"}),
    ("one PreFilter plugin returned UnschedulableAndUnresolvable, and all other plugins aren't executed",
     [("unresolvable", X), ("skip", K)], X, set()),
]


@pytest.mark.parametrize(("name", "plugins", "code", "skipped"), CASES, ids=[c[0] for c in CASES])
def test_run_pre_filter_plugins(name: str, plugins: list[tuple[str, Code | None]], code: Code,
                                skipped: set[str]) -> None:
    assert _run(*(_Injected(n, c) for n, c in plugins)) == (code, skipped)


def test_all_nodes_filtered_out_by_pre_filter_result() -> None:
    """ "all nodes are filtered out by prefilter result, but other plugins aren't executed because we
    consider all nodes are filtered out by UnschedulableAndUnresolvable"."""
    later = _Injected("skip", K)
    got = _run(_Injected("reject-all-nodes", nodes=set()), later)
    assert got == (X, set()) and later.calls == 0


def test_the_last_unschedulable_status_is_the_answer() -> None:
    """Upstream keeps running after an Unschedulable PreFilter and answers with the last one
    (``returnStatus = s``); a later unresolvable one still ends the run at once."""
    decision = _world(_Injected("first", U), _Injected("second", U)).schedule(api_pod("p"))
    assert decision.diagnosis is not None and decision.diagnosis.pre_filter is not None
    assert decision.diagnosis.pre_filter.plugin == "second"
    last = _Injected("after", K)
    decision = _world(_Injected("first", U), _Injected("unresolvable", X), last).schedule(api_pod("p"))
    assert decision.diagnosis is not None and decision.diagnosis.pre_filter is not None
    assert decision.diagnosis.pre_filter.code == X and last.calls == 0


def test_a_rejecting_plugins_pre_filter_result_is_ignored() -> None:
    """``RunPreFilterPlugins`` merges the PreFilterResult of successful plugins only."""
    decision = _world(_Injected("rejects", U, nodes=set()), _Injected("ok")).schedule(api_pod("p"))
    assert decision.diagnosis is not None and decision.diagnosis.pre_filter is not None
    assert decision.diagnosis.pre_filter.code == U


def test_pre_filter_rejection_is_every_nodes_status_and_post_filter_runs() -> None:
    """``findNodesThatFitPod``: ``SetAbsentNodesStatus(s)`` and the FitError's ``PreFilterMsg``;
    ``schedulingCycle`` runs PostFilter for every FitError: DefaultPreemption finds every node
    unresolvable, "Preemption is not helpful for scheduling"."""
    decision = _world(_Injected("unresolvable", X)).schedule(api_pod("p"))
    assert decision.diagnosis is not None
    assert set(decision.diagnosis.statuses) == {"node1", "node2"}
    assert decision.diagnosis.message() == (
        "0/2 nodes are available: injected unresolvable status. preemption: 0/2 nodes are available: "
        "2 Preemption is not helpful for scheduling.")


def test_an_unschedulable_pre_filter_rejection_may_preempt() -> None:
    """An ``Unschedulable`` PreFilter rejection leaves every node a preemption candidate: a
    high-priority pod nominates a node whose lower-priority pod's eviction the what-if accepts (the
    injected plugin has no Filter, so the what-if's filters pass once room is made)."""
    nodes = [api_node(n, {"cpu": "1", "memory": "4Gi", "pods": "110"}) for n in ("node1", "node2")]
    victims = [api_pod(f"low-{n}", {"cpu": "1"}, node=n, priority=0) for n in ("node1", "node2")]
    algo = world(nodes, victims)
    algo.profile.pre_filter = [*algo.profile.pre_filter, _Injected("unschedulable", U)]
    decision = algo.schedule(api_pod("high", {"cpu": "1"}, priority=1000))
    assert decision.node is None and decision.preemption is not None
    assert decision.preemption.nominated_node in ("node1", "node2")
    assert [v.name for v in decision.preemption.victims] == [f"low-{decision.preemption.nominated_node}"]
