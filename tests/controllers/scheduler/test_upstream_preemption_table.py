"""Cases of upstream's DefaultPreemption tables, ported one by one
(``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go`` at the stored
commit 5def93b: ``TestPostFilter``, ``TestDryRunPreemption``, ``TestSelectBestCandidate``). Each test
names the upstream case it follows. ``TestPostFilter`` gives the Filter statuses by hand
(``filteredNodesStatuses``): the cases run the whole attempt where kbatch's filters give the same
statuses, and DefaultPreemption's PostFilter with the given statuses where they don't.
Not ported: the extender cases (kbatch models no extenders) and the TestPlugin error cases (no
kbatch PreFilter extension fails).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler.framework import Code, Status

from .upstream_harness import api_node, api_pod, world

LOW, MID, HIGH = 0, 100, 1000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}


def _node(name: str, capacity: dict[str, str]) -> Any:
    """upstream ``st.MakeNode().Capacity(res)``: 32 pods unless ``res`` says otherwise."""
    return api_node(name, {"pods": "32", **capacity})


def _pod(name: str, priority: int = 0, node: str = "", res: dict[str, str] | None = None) -> Any:
    return api_pod(name, *((res,) if res else ()), node=node, priority=priority)


def _preempt(nodes: list[Any], pods: list[Any], preemptor: Any) -> tuple[str | None, str]:
    decision = world(nodes, pods).schedule(preemptor)
    assert decision.node is None and decision.diagnosis is not None
    nominated = decision.preemption.nominated_node if decision.preemption is not None else None
    return nominated, decision.diagnosis.post_filter_message


def _post_filter(nodes: list[Any], pods: list[Any], preemptor: Any, statuses: dict[str, Code]) -> Any:
    algo = world(nodes, pods)
    state: dict[str, Any] = {}
    for plugin in algo.profile.pre_filter:
        plugin.pre_filter(state, preemptor, algo.snapshot)
    given = {name: Status(code, (), "given") for name, code in statuses.items()}
    preemption = next(p for p in algo.profile.post_filter if p.name == "DefaultPreemption")
    return preemption.post_filter(state, preemptor, algo.snapshot, given)


# -- TestPostFilter ---------------------------------------------------------------------------------
def test_pod_with_higher_priority_can_be_made_schedulable() -> None:
    got = _preempt([_node("node1", ONE_POD)], [_pod("p1", node="node1")], _pod("p", HIGH))
    assert got == ("node1", "")


def test_pod_with_tied_priority_is_still_unschedulable() -> None:
    got = _preempt([_node("node1", ONE_POD)], [_pod("p1", node="node1")], _pod("p"))
    assert got == (
        None,
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
    )


def test_preemption_should_respect_filtered_nodes_statuses() -> None:
    result = _post_filter(
        [_node("node1", ONE_POD)], [_pod("p1", node="node1")], _pod("p", HIGH), {"node1": Code.UNRESOLVABLE}
    )
    assert result.nominated_node is None
    assert (
        result.message == "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )


def test_pod_can_be_made_schedulable_on_one_node() -> None:
    nodes = [_node("node1", ONE_POD), _node("node2", ONE_POD)]
    pods = [_pod("p1", HIGH, "node1"), _pod("p2", LOW, "node2")]
    assert _preempt(nodes, pods, _pod("p", MID)) == ("node2", "")


def test_no_candidate_nodes_found_no_enough_resource_after_removing_low_priority_pods() -> None:
    nodes = [_node("node1", NODE_RES), _node("node2", NODE_RES)]
    pods = [_pod("p1", node="node1"), _pod("p2", node="node2")]
    assert _preempt(nodes, pods, _pod("p", HIGH, res=LARGE)) == (
        None,
        "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
    )


def test_no_candidate_nodes_found_with_mixed_reasons_no_lower_priority_pod_and_no_enough_cpu() -> None:
    nodes = [_node("node1", ONE_POD), _node("node2", NODE_RES), _node("node3", ONE_POD)]
    pods = [_pod("p1", HIGH, "node1"), _pod("p2", node="node2"), _pod("p3", HIGH, "node3")]
    assert _preempt(nodes, pods, _pod("p", HIGH, res=LARGE)) == (
        None,
        "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for"
        " incoming pod.",
    )


def test_no_candidate_nodes_found_with_mixed_reason_unresolvable_and_absent_nodes() -> None:
    """ "... 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource": node3 has
    no status at all (upstream's NodeToStatus default: unresolvable), node4 is unresolvable."""
    nodes = [_node(f"node{i}", NODE_RES) for i in range(1, 5)]
    pods = [_pod("p1", node="node1"), _pod("p2", node="node2")]
    result = _post_filter(
        nodes,
        pods,
        _pod("p", HIGH, res=LARGE),
        {"node1": Code.UNSCHEDULABLE, "node2": Code.UNSCHEDULABLE, "node4": Code.UNRESOLVABLE},
    )
    assert result.nominated_node is None
    assert result.message == (
        "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."
    )


# -- TestDryRunPreemption (the candidates and their victims, NodeResourcesFit as the filter) --------
def _candidates(
    nodes: list[Any], pods: list[Any], preemptor: Any, pdbs: Any = (), violations: bool = False
) -> Any:
    """Every node's victims, as DryRunPreemption lists them (upstream sorts them by name), and with
    ``violations`` the number of PDB violations too."""
    from kbatch.controllers.scheduler.budgets import budget_selectors
    from kbatch.controllers.scheduler.plugins.default_preemption import select_victims

    algo = world(nodes, pods)
    state: dict[str, Any] = {}
    for plugin in algo.profile.pre_filter:
        plugin.pre_filter(state, preemptor, algo.snapshot)
    preemption = next(p for p in algo.profile.post_filter if p.name == "DefaultPreemption")
    out = {}
    for node in algo.snapshot:
        if algo._filter_one(preemptor, state, node, None, algo._active) is None:
            continue  # fits without preemption: not a candidate
        selected = select_victims(preemption.filters, state, preemptor, node, budget_selectors(pdbs),
                                  preemption.extensions)
        if selected:
            names = sorted(v.name for v in selected[0])
            out[node.name] = (names, selected[1]) if violations else names
    return out


def _large_nodes() -> list[Any]:
    """upstream's TestDryRunPreemption nodes: capacity veryLargeRes (500m, 500)."""
    return [_node("node1", VERY_LARGE), _node("node2", VERY_LARGE)]


def test_dry_run_a_pod_that_fits_on_both_nodes_when_lower_priority_pods_are_preempted() -> None:
    pods = [_pod("p1", MID, "node1", LARGE), _pod("p2", MID, "node2", LARGE)]
    assert _candidates(_large_nodes(), pods, _pod("p", HIGH, res=LARGE)) == {"node1": ["p1"], "node2": ["p2"]}


def test_dry_run_other_pods_running_are_higher_priority_no_preemption_would_happen() -> None:
    pods = [_pod("p1", MID, "node1", LARGE), _pod("p2", MID, "node2", LARGE)]
    assert _candidates(_large_nodes(), pods, _pod("p", LOW, res=LARGE)) == {}


def test_dry_run_medium_priority_pod_is_preempted_but_lower_priority_one_stays_as_it_is_small() -> None:
    pods = [
        _pod("p1-1", LOW, "node1", SMALL),
        _pod("p1-2", MID, "node1", LARGE),
        _pod("p2", MID, "node2", LARGE),
    ]
    assert _candidates(_large_nodes(), pods, _pod("p", HIGH, res=LARGE)) == {
        "node1": ["p1-2"],
        "node2": ["p2"],
    }


# -- TestSelectBestCandidate (pickOneNodeForPreemption) ----------------------------------------------
NEG, VERY_HIGH = -100, 10000


def _best(
    victims: list[tuple[str, int, str, dict[str, str], float]], preemptor_priority: int = HIGH
) -> str | None:
    names = sorted({node for _, _, node, _, _ in victims})
    nodes = [_node(n, VERY_LARGE) for n in names]
    pods = [
        api_pod(name, res, node=node, priority=prio, start=start) for name, prio, node, res, start in victims
    ]
    decision = world(nodes, pods).schedule(_pod("p", preemptor_priority, res=VERY_LARGE))
    return decision.preemption.nominated_node if decision.preemption is not None else None


def test_select_best_node_with_min_highest_priority_pod_is_picked() -> None:
    assert (
        _best(
            [
                ("p1-1", MID, "node1", MEDIUM, 0),
                ("p1-2", MID, "node1", LARGE, 0),
                ("p2-1", MID, "node2", MEDIUM, 0),
                ("p2-2", LOW, "node2", MEDIUM, 0),
                ("p3-1", LOW, "node3", MEDIUM, 0),
                ("p3-2", LOW, "node3", MEDIUM, 0),
            ]
        )
        == "node3"
    )


def test_select_best_when_highest_priorities_are_the_same_minimum_sum_of_priorities_is_picked() -> None:
    assert (
        _best(
            [
                ("p1-1", MID, "node1", MEDIUM, 0),
                ("p1-2", MID, "node1", LARGE, 0),
                ("p2-1", MID, "node2", LARGE, 0),
                ("p2-2", LOW, "node2", MEDIUM, 0),
                ("p3-1", MID, "node3", MEDIUM, 0),
                ("p3-2", MID, "node3", MEDIUM, 0),
            ]
        )
        == "node2"
    )


def test_select_best_when_highest_priority_and_sum_are_the_same_minimum_number_of_pods_is_picked() -> None:
    assert (
        _best(
            [
                ("p1-1", MID, "node1", SMALL, 0),
                ("p1-2", NEG, "node1", SMALL, 0),
                ("p1-3", MID, "node1", SMALL, 0),
                ("p1-4", NEG, "node1", SMALL, 0),
                ("p2-1", MID, "node2", LARGE, 0),
                ("p2-2", NEG, "node2", MEDIUM, 0),
                ("p3-1", MID, "node3", MEDIUM, 0),
                ("p3-2", NEG, "node3", SMALL, 0),
                ("p3-3", LOW, "node3", SMALL, 0),
            ]
        )
        == "node2"
    )


def test_select_best_sum_of_adjusted_priorities_is_considered() -> None:
    """pickOneNodeForPreemption raises every victim's priority by MaxInt32+1 before summing, so
    node1's three victims (sum -100) do not beat node2's two (sum 0)."""
    assert (
        _best(
            [
                ("p1-1", MID, "node1", SMALL, 0),
                ("p1-2", NEG, "node1", SMALL, 0),
                ("p1-3", NEG, "node1", SMALL, 0),
                ("p2-1", MID, "node2", LARGE, 0),
                ("p2-2", NEG, "node2", MEDIUM, 0),
                ("p3-1", MID, "node3", MEDIUM, 0),
                ("p3-2", NEG, "node3", SMALL, 0),
                ("p3-3", LOW, "node3", SMALL, 0),
            ]
        )
        == "node2"
    )


def test_select_best_non_overlapping_lowest_high_priority_sum_priorities_and_number_of_pods() -> None:
    assert (
        _best(
            [
                ("p1-1", MID, "node1", SMALL, 0),
                ("p1-2", LOW, "node1", SMALL, 0),
                ("p1-3", LOW, "node1", SMALL, 0),
                ("p2-1", HIGH, "node2", LARGE, 0),
                ("p3-1", MID, "node3", MEDIUM, 0),
                ("p3-2", LOW, "node3", SMALL, 0),
                ("p3-3", LOW, "node3", SMALL, 0),
                ("p3-4", LOW, "node3", MEDIUM, 0),
                ("p4-1", MID, "node4", MEDIUM, 0),
                ("p4-2", MID, "node4", SMALL, 0),
                ("p4-3", MID, "node4", SMALL, 0),
                ("p4-4", NEG, "node4", SMALL, 0),
            ],
            VERY_HIGH,
        )
        == "node1"
    )


def test_select_best_same_priority_same_number_of_victims_different_start_time_for_each_nodes_pod() -> None:
    assert (
        _best(
            [
                ("p1-1", MID, "node1", MEDIUM, 2),
                ("p1-2", MID, "node1", MEDIUM, 2),
                ("p2-1", MID, "node2", MEDIUM, 3),
                ("p2-2", MID, "node2", MEDIUM, 3),
                ("p3-1", MID, "node3", MEDIUM, 1),
                ("p3-2", MID, "node3", MEDIUM, 1),
            ]
        )
        == "node2"
    )


def test_select_best_same_priority_same_number_of_victims_different_start_time_for_all_pods() -> None:
    assert (
        _best(
            [
                ("p1-1", MID, "node1", MEDIUM, 4),
                ("p1-2", MID, "node1", MEDIUM, 2),
                ("p2-1", MID, "node2", MEDIUM, 5),
                ("p2-2", MID, "node2", MEDIUM, 1),
                ("p3-1", MID, "node3", MEDIUM, 3),
                ("p3-2", MID, "node3", MEDIUM, 6),
            ]
        )
        == "node3"
    )


def test_select_best_different_priority_same_number_of_victims_different_start_time_for_all_pods() -> None:
    assert (
        _best(
            [
                ("p1-1", LOW, "node1", MEDIUM, 4),
                ("p1-2", MID, "node1", MEDIUM, 2),
                ("p2-1", MID, "node2", MEDIUM, 6),
                ("p2-2", LOW, "node2", MEDIUM, 1),
                ("p3-1", LOW, "node3", MEDIUM, 3),
                ("p3-2", MID, "node3", MEDIUM, 5),
            ]
        )
        == "node2"
    )


def test_dry_run_mixed_priority_pods_are_preempted() -> None:
    pods = [
        _pod("p1-1", MID, "node1", SMALL),
        _pod("p1-2", LOW, "node1", SMALL),
        _pod("p1-3", MID, "node1", MEDIUM),
        _pod("p1-4", HIGH, "node1", SMALL),
        _pod("p2", HIGH, "node2", LARGE),
    ]
    assert _candidates(_large_nodes(), pods, _pod("p", HIGH, res=LARGE)) == {"node1": ["p1-2", "p1-3"]}


def test_dry_run_mixed_priority_pods_are_preempted_pick_later_start_time_one_when_priorities_are_equal() -> (
    None
):
    """Victims are reprieved most important first (upstream ``MoreImportantPod``: priority, then the
    earlier ``status.startTime``), so of two equal pods the one that started later is evicted."""
    pods = [
        api_pod("p1-1", SMALL, node="node1", priority=LOW, start=5),
        api_pod("p1-2", SMALL, node="node1", priority=LOW, start=4),
        api_pod("p1-3", MEDIUM, node="node1", priority=MID, start=3),
        api_pod("p1-4", SMALL, node="node1", priority=HIGH, start=2),
        api_pod("p2", LARGE, node="node2", priority=HIGH, start=1),
    ]
    assert _candidates(_large_nodes(), pods, _pod("p", HIGH, res=LARGE)) == {"node1": ["p1-1", "p1-3"]}


def test_dry_run_pod_with_anti_affinity_is_preempted() -> None:
    nodes = [api_node(n, {"pods": "32", **VERY_LARGE}, labels={"hostname": n}) for n in ("node1", "node2")]
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                    "topologyKey": "hostname",
                }
            ]
        }
    }
    pods = [
        api_pod("p1-1", SMALL, node="node1", priority=LOW, labels={"foo": ""}, affinity=anti),
        _pod("p1-2", MID, "node1", SMALL),
        _pod("p1-3", HIGH, "node1", SMALL),
        _pod("p2", HIGH, "node2", SMALL),
    ]
    preemptor = api_pod("p", SMALL, priority=HIGH, labels={"foo": ""})
    assert _candidates(nodes, pods, preemptor) == {"node1": ["p1-1"]}


def test_dry_run_preemption_to_resolve_pod_topology_spread_filter_failure() -> None:
    nodes = [
        api_node(n, {"pods": "32", **VERY_LARGE}, labels={"hostname": n, "zone": z})
        for n, z in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"))
    ]
    foo = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    spread = [
        {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": foo}
        for key in ("zone", "hostname")
    ]
    pods = [
        api_pod(name, node=node, priority=prio, labels={"foo": ""})
        for name, node, prio in (
            ("pod-a1", "node-a", MID),
            ("pod-a2", "node-a", LOW),
            ("pod-b1", "node-b", LOW),
            ("pod-x1", "node-x", HIGH),
            ("pod-x2", "node-x", HIGH),
        )
    ]
    preemptor = api_pod("p", priority=HIGH, labels={"foo": ""}, topologySpreadConstraints=spread)
    assert _candidates(nodes, pods, preemptor) == {"node-a": ["pod-a2"], "node-b": ["pod-b1"]}


def _pdb(disrupted: tuple[str, ...] = ()) -> Any:
    from kbatch.api.policy_v1 import PodDisruptionBudget

    status: dict[str, Any] = {
        "disruptionsAllowed": 1,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }
    if disrupted:
        status["disruptedPods"] = dict.fromkeys(disrupted, "2026-01-01T00:00:00Z")
    return PodDisruptionBudget.from_dict(
        {
            "metadata": {"name": "pdb", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "foo"}}},
            "status": status,
        }
    )


@pytest.mark.parametrize(
    ("pods", "disrupted", "want"),
    [
        (2, (), 1),
        (2, ("p2",), 1),
        (2, ("p1-2",), 0),
        (3, ("p1-3",), 1),
    ],
    ids=[
        "preemption with violation of same pdb",
        "preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't"
        " belong to "
        "DisruptedPods",
        "preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to"
        " DisruptedPods",
        "preemption with violation of the pdb with pod whose eviction was processed, the victim which"
        " belongs to "
        "DisruptedPods is treated as 'nonViolating'",
    ],
)
def test_dry_run_pdb_violations(pods: int, disrupted: tuple[str, ...], want: int) -> None:
    existing = [
        api_pod(f"p1-{i}", MEDIUM, node="node1", priority=MID, labels={"app": "foo"})
        for i in range(1, pods + 1)
    ]
    got = _candidates(
        [_node("node1", VERY_LARGE)], existing, _pod("p", HIGH, res=VERY_LARGE), [_pdb(disrupted)], True
    )
    assert got == {"node1": ([f"p1-{i}" for i in range(1, pods + 1)], want)}
