"""Upstream's workload-aware preemption table, against the in-place reprieve
(:mod:`kbatch.controllers.scheduler.reprieve`, with :mod:`.victim_order` for the order).

Source: kubernetes/kubernetes ``pkg/scheduler/framework/preemption/podgrouppreemption_test.go``
``TestPodGroupEvaluator_Preempt_Victims`` (the newest stored version; the in-place reprieve came
with #139980, "Reimplement WAP with in place filter reprieval", merged 2026-07-10, in 1.37), and
``podgrouppreemption.go`` ``selectVictimsOnDomain`` beside it. Upstream's harness is reproduced:
``mockFilterPlugin`` (a node holds pods whose ``size`` labels, 1 when absent, sum to at most its
capacity) is the only Filter, and ``mockSchedulingFunc`` places the preemptor's pods once, each on
the first node from a round-robin cursor where it fits, failing below ``minCount``. Rows about the
preemptor's eligibility (policy, terminating pods on nominated nodes) are not the reprieve's and are
left out, as are the ``ReprieveFilter`` rows (a later extension point); the row "Priority
divergence" is left out since kbatch takes a group unit's priority from its pods (validation makes
them the group's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.controllers.scheduler.budgets import budget_selectors
from kbatch.controllers.scheduler.framework import Status
from kbatch.controllers.scheduler.group_preemption import Unit
from kbatch.controllers.scheduler.reprieve import Assignment, reprieve
from kbatch.controllers.scheduler.types import PodInfo
from kbatch.controllers.scheduler.victim_order import importance_key, pdb_split

LOW, MID, HIGH = 1, 50, 100


def size(pod: PodInfo) -> int:
    return int(pod.labels.get("size", "1"))


class Cluster:
    """Upstream's test snapshot with ``mockFilterPlugin`` as the Filter: a :class:`.reprieve.World`."""

    def __init__(self, capacities: Sequence[tuple[str, int]]) -> None:
        self.capacities = list(capacities)
        self.on: dict[str, dict[str, PodInfo]] = {name: {} for name, _ in capacities}

    def used(self, node: str) -> int:
        return sum(size(p) for p in self.on[node].values())

    def capacity(self, node: str) -> int:
        return dict(self.capacities)[node]

    def take_off(self, unit: Unit, assignments: Sequence[Assignment]) -> None:
        for pod, node in unit.pods:
            del self.on[node][pod.key]

    def put_back(self, unit: Unit, assignments: Sequence[Assignment]) -> None:
        for pod, node in unit.pods:
            self.on[node][pod.key] = pod

    def filter(self, assignment: Assignment) -> Status | None:
        node = assignment.node
        if self.used(node) + size(assignment.pod) > self.capacity(node):
            return Status.unschedulable("mockFilterPlugin", "not enough capacity")
        return None

    def assume(self, assignment: Assignment) -> None:
        self.on[assignment.node][assignment.pod.key] = assignment.pod

    def forget(self, assignment: Assignment) -> None:
        del self.on[assignment.node][assignment.pod.key]

    def place(self, pods: Sequence[PodInfo], min_count: int) -> list[Assignment] | None:
        """``mockSchedulingFunc``: round-robin first fit, nothing left assumed."""
        used = {name: self.used(name) for name, _ in self.capacities}
        out, cursor, count = [], 0, len(self.capacities)
        for pod in pods:
            for step in range(count):
                name, cap = self.capacities[(cursor + step) % count]
                if used[name] + size(pod) <= cap:
                    out.append(Assignment(pod, name, {}))
                    used[name] += size(pod)
                    cursor = (cursor + step + 1) % count
                    break
        return out if len(out) >= min_count else None


@dataclass
class Row:
    nodes: list[tuple[str, int]]
    victims: list[tuple[PodInfo, str, str]]  # (pod, node, pod group or "")
    preemptor: list[PodInfo]
    want: list[str] | None  # None: preemption cannot help
    all_groups: tuple[str, ...] = ()  # PodGroups with disruptionMode all
    min_count: int = 1
    budgets: tuple[PodDisruptionBudget, ...] = ()
    preemptor_priority: int = HIGH


def pod(
    name: str,
    uid: str = "",
    priority: int = LOW,
    *,
    size_: int = 1,
    start: float | None = None,
    app: str = "",
) -> PodInfo:
    labels = {"size": str(size_)} | ({"app": app} if app else {})
    return PodInfo("default", name, uid=uid or name, priority=priority, labels=labels, start_time=start)


def candidate_units(row: Row) -> list[Unit]:
    """Step 1 as :func:`.group_preemption.units` forms them: a ``disruptionMode: all`` group whole,
    any other pod alone (a grouped one ranked as a PodGroup)."""
    singles: list[Unit] = []
    wholes: dict[str, list[tuple[PodInfo, str]]] = {}
    for victim, node, group in row.victims:
        if victim.priority >= row.preemptor_priority:
            continue
        if group in row.all_groups:
            wholes.setdefault(group, []).append((victim, node))
        else:
            singles.append(Unit(((victim, node),), victim.priority, in_group=bool(group)))
    groups = [
        Unit(tuple(sorted(m, key=lambda x: x[0].key)), min(p.priority for p, _ in m), f"default/{g}")
        for g, m in sorted(wholes.items())
    ]
    return sorted([*groups, *singles], key=importance_key)


def preempt(row: Row) -> tuple[list[str] | None, Cluster, list[Assignment]]:
    """``selectVictimsOnDomain``: every candidate off, one placing, the in-place reprieve."""
    cluster = Cluster(row.nodes)
    for victim, node, _ in row.victims:
        cluster.on[node][victim.key] = victim
    candidates = candidate_units(row)
    if not candidates:
        return None, cluster, []
    for unit in candidates:
        cluster.take_off(unit, ())
    assignments = cluster.place(row.preemptor, row.min_count)
    if assignments is None:
        return None, cluster, []
    violating, fine = pdb_split(candidates, budget_selectors(row.budgets))
    victims = reprieve([*violating, *fine], assignments, cluster)
    return sorted(p.name for u in victims for p in u.members), cluster, assignments


def budget_foo() -> PodDisruptionBudget:
    return PodDisruptionBudget.model_validate(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "b", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "foo"}}},
            "status": {"disruptionsAllowed": 0},
        }
    )


def one(name: str = "p") -> list[PodInfo]:
    return [pod(name, priority=HIGH)]


def three() -> list[PodInfo]:
    return [pod(n, priority=HIGH) for n in ("p-a", "p-b", "p-c")]


N1 = [("node1", 1)]
CAP1x3 = [("node1", 1), ("node2", 1), ("node3", 1)]
CAP1x4 = [*CAP1x3, ("node4", 1)]

ROWS = {
    "Priority: mix of no groups and pod groups": Row(
        [("node1", 2)], [(pod("p1", "v1"), "node1", ""), (pod("p2", "v2"), "node1", "pg1")], one(), ["p1"]
    ),
    "Priority: StartTime of pods from same group with disruption mode single": Row(
        [("node1", 2)],
        [(pod("p1", "v1", start=1), "node1", "pg1"), (pod("p2", "v2", start=0), "node1", "pg1")],
        one(),
        ["p1"],
    ),
    "Pod group with disruption mode group not reprieved": Row(
        [("node1", 1), ("node2", 1)],
        [(pod("p1", "v1"), "node1", "pg1"), (pod("p2", "v2"), "node2", "pg1")],
        one(),
        ["p1", "p2"],
        all_groups=("pg1",),
    ),
    "Complex Mixed: Shared, different, and no groups": Row(
        [("node1", 2), ("node2", 1), ("node3", 2), ("node4", 2), ("node5", 2)],
        [
            (pod("p1", "v1", start=2), "node1", "pg1"),
            (pod("p2", "v2", start=1), "node2", "pg1"),
            (pod("p3", "v3", start=0), "node3", "pg2"),
            (pod("p4", "v4", MID), "node4", ""),
            (pod("p5", "v5", HIGH, start=0), "node5", "pg3"),
        ],
        [pod(n, priority=HIGH) for n in ("p-1", "p-2", "p-3")],
        ["p2"],
    ),
    "PDB: Mixed groups": Row(
        [("node1", 2)],
        [(pod("victim-pdb", "v1", app="foo"), "node1", "pg1"), (pod("victim-no-pdb", "v2"), "node1", "pg1")],
        one(),
        ["victim-no-pdb"],
        budgets=(budget_foo(),),
    ),
    "PodGroup preemptor with PreemptLowerPriority preemption policy performs preemption": Row(
        CAP1x3,
        [
            (pod("p1", "v1"), "node1", ""),
            (pod("p2", "v2"), "node2", "pg1"),
            (pod("p3", "v3"), "node3", "pg2"),
        ],
        one("p-1"),
        ["p1"],
    ),
    "Preempt single lower priority pod": Row(N1, [(pod("p1", "v1"), "node1", "")], one(), ["p1"]),
    "Priority: Prefer lower priority victim": Row(
        [("node1", 2)],
        [
            (pod("p1", "v1"), "node1", ""),
            (pod("p2", "v2", MID), "node1", ""),
            (pod("p3", "v3", HIGH), "node1", ""),
        ],
        one(),
        ["p1", "p2"],
    ),
    "Efficiency: Preempt minimum number of victims": Row(
        [("node1", 3)], [(pod(f"p{i}", f"v{i}"), "node1", "") for i in range(1, 5)], one(), ["p3", "p4"]
    ),
    "PDB: Prefer non-violating victim": Row(
        [("node1", 2)],
        [(pod("victim-pdb", "v1", app="foo"), "node1", ""), (pod("victim-no-pdb", "v2"), "node1", "")],
        one(),
        ["victim-no-pdb"],
        budgets=(budget_foo(),),
    ),
    "PDB: Prefer removing non-violating victim over lower priority violating victim": Row(
        [("node1", 2)],
        [(pod("victim-pdb", "v1", app="foo"), "node1", ""), (pod("victim-no-pdb", "v2", MID), "node1", "")],
        one(),
        ["victim-no-pdb"],
        budgets=(budget_foo(),),
    ),
    "PDB: Prefer lower priority pod for preemption, "
    "when preemption without pdb violation is not possible": Row(
        [("node1", 2)],
        [(pod("p1", "v1", app="foo"), "node1", ""), (pod("p2", "v2", MID, app="foo"), "node1", "")],
        one(),
        ["p1"],
        budgets=(budget_foo(),),
    ),
    # upstream's row lists node1 twice in nodeCapacities (1, then 2); node2 is given 2 here
    "PodGroup: Preempt group as a whole": Row(
        [("node1", 1), ("node2", 2)],
        [(pod("p1", "v1"), "node1", "pg1"), (pod("p2", "v2"), "node2", "pg1")],
        one(),
        ["p1", "p2"],
        all_groups=("pg1",),
    ),
    "PodGroup: Prefer single pod over podGroup for preemption candidate": Row(
        [("node1", 3)],
        [
            (pod("p1", "p1"), "node1", ""),
            (pod("g1-1", "g1"), "node1", "pg1"),
            (pod("g1-2", "g2"), "node1", "pg1"),
        ],
        one(),
        ["p1"],
        all_groups=("pg1",),
    ),
    "PodGroup: Preempt group as a whole on single node": Row(
        [("node1", 3)],
        [
            (pod("g1-1", "g1"), "node1", "pg1"),
            (pod("g1-2", "g2"), "node1", "pg1"),
            (pod("p1", "p1", MID), "node1", ""),
        ],
        one(),
        ["g1-1", "g1-2"],
        all_groups=("pg1",),
    ),
    "PDB: Unit violation if any member violates": Row(
        [("node1", 3)],
        [
            (pod("g1-1", "g1", app="foo"), "node1", "pg1"),
            (pod("g1-2", "g2"), "node1", "pg1"),
            (pod("p1", "p1"), "node1", ""),
        ],
        one(),
        ["p1"],
        all_groups=("pg1",),
        budgets=(budget_foo(),),
    ),
    "Failure: Cannot preempt the victim with higher priority": Row(
        [("node1", 100)],
        [(pod("p1", "v1", HIGH), "node1", "")],
        [pod("p", priority=MID)],
        None,
        preemptor_priority=MID,
    ),
    "Failure: Cannot preempt the victim with equal priority": Row(
        [("node1", 100)],
        [(pod("p1", "v1", MID), "node1", "")],
        [pod("p", priority=MID)],
        None,
        preemptor_priority=MID,
    ),
    "Failure: Cannot preempt if node is empty": Row(
        [("node1", 100)], [], [pod("p", priority=MID)], None, preemptor_priority=MID
    ),
    "Gang scheduling: schedule as many pods as possible without preempting higher priority pods": Row(
        CAP1x4,
        [
            (pod("p1", "v1"), "node1", ""),
            (pod("p2", "v2"), "node2", ""),
            (pod("p3", "v3", HIGH), "node3", ""),
            (pod("p4", "v4", HIGH), "node4", ""),
        ],
        three(),
        ["p1", "p2"],
    ),
    "Gang scheduling: do not reprieve victim pod group of lower priority": Row(
        CAP1x3,
        [
            (pod("v1", priority=MID), "node1", "victim-pg"),
            (pod("v2", priority=MID), "node2", "victim-pg"),
            (pod("v3"), "node3", ""),
        ],
        three(),
        ["v1", "v2", "v3"],
        all_groups=("victim-pg",),
    ),
    "Gang scheduling: preempt a pod group victim but do not schedule full pod group": Row(
        CAP1x4,
        [
            (pod("v1", priority=MID), "node1", "victim-pg"),
            (pod("v2", priority=MID), "node2", "victim-pg"),
            (pod("v3", priority=HIGH), "node3", "victim-pg2"),
            (pod("v4", priority=HIGH), "node4", "victim-pg2"),
        ],
        three(),
        ["v1", "v2"],
        all_groups=("victim-pg", "victim-pg2"),
    ),
    # the "ReprieveFilter: OnVictimReprieved is not called ..." row without its filter: v4 fits with p1
    # (6+3 <= 10) but not once p2 is placed too (6+3+3 > 10), so only v4 goes
    "in place: a unit is checked against every placed pod in placing order": Row(
        [("node1", 10)],
        [
            (pod("v1", priority=10), "node1", ""),
            (pod("v2", priority=20), "node1", ""),
            (pod("v3", priority=30), "node1", ""),
            (pod("v4", priority=40, size_=6), "node1", ""),
        ],
        [pod("p1", priority=HIGH, size_=3), pod("p2", priority=HIGH, size_=3)],
        ["v4"],
        min_count=2,
    ),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_upstream_row(name: str) -> None:
    assert preempt(ROWS[name])[0] == ROWS[name].want


def test_the_preemptor_never_moves_during_the_reprieve() -> None:
    """Two one-slot nodes, ``a`` (more important) on node1 and ``b`` on node2; the placing puts the
    preemptor on node1. Giving ``a`` back would need the preemptor to move to node2: in place it
    cannot, so ``a`` goes and ``b`` stays (re-placing at each trial kept ``a`` and evicted ``b``)."""
    row = Row(
        [("node1", 1), ("node2", 1)],
        [(pod("a", priority=MID), "node1", ""), (pod("b"), "node2", "")],
        one(),
        ["a"],
    )
    victims, _, assignments = preempt(row)
    assert [(a.pod.name, a.node) for a in assignments] == [("p", "node1")]
    assert victims == ["a"]


# -- the invariants ---------------------------------------------------------------------------------------


@st.composite
def scenarios(draw: st.DrawFn) -> Row:
    nodes = [(f"n{i}", draw(st.integers(1, 4))) for i in range(draw(st.integers(1, 3)))]
    victims: list[tuple[PodInfo, str, str]] = []
    for i in range(draw(st.integers(0, 7))):
        node = draw(st.sampled_from([n for n, _ in nodes]))
        group = draw(st.sampled_from(["", "g1", "g2"]))
        victims.append(
            (
                pod(
                    f"v{i}",
                    f"{i:02d}",
                    draw(st.sampled_from([LOW, MID])),
                    size_=draw(st.integers(1, 2)),
                    start=float(draw(st.integers(0, 3))),
                    app=draw(st.sampled_from(["", "foo"])),
                ),
                node,
                group,
            )
        )
    preemptor = [
        pod(f"p{i}", priority=HIGH, size_=draw(st.integers(1, 3))) for i in range(draw(st.integers(1, 3)))
    ]
    return Row(
        nodes,
        victims,
        preemptor,
        None,
        all_groups=tuple(draw(st.sets(st.sampled_from(["g1", "g2"])))),
        min_count=draw(st.integers(1, len(preemptor))),
        budgets=(budget_foo(),) if draw(st.booleans()) else (),
    )


def fits_in_place(cluster: Cluster, assignments: Sequence[Assignment]) -> bool:
    """Every placed pod passes Filter on its proposed node, each added before the next is checked;
    the cluster is left as it was."""
    added: list[Assignment] = []
    try:
        for a in assignments:
            if cluster.filter(a) is not None:
                return False
            cluster.assume(a)
            added.append(a)
        return True
    finally:
        for a in reversed(added):
            cluster.forget(a)


@given(scenarios())
def test_after_the_reprieve_the_group_fits_in_place_and_the_victims_are_minimal(row: Row) -> None:
    """With exactly the victims off the cluster (the reprieve leaves it so), every placed pod fits
    on its proposed node; putting any one victim back breaks that; the preemptor's pods are off the
    nodes again."""
    victims, cluster, assignments = preempt(row)
    assume(victims is not None)
    units = candidate_units(row)
    chosen = [u for u in units if any(p.name in (victims or ()) for p in u.members)]
    held = {key for pods in cluster.on.values() for key in pods}
    assert held == {v.key for v, _, _ in row.victims} - {p.key for u in chosen for p in u.members}
    assert not held & {p.key for p in row.preemptor}
    assert fits_in_place(cluster, assignments)
    for unit in chosen:
        cluster.put_back(unit, assignments)
        assert not fits_in_place(cluster, assignments)
        cluster.take_off(unit, assignments)
