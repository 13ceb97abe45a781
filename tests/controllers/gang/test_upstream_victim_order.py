"""Upstream's victim-order tables for workload-aware preemption, against
:mod:`kbatch.controllers.scheduler.victim_order`.

Source: kubernetes/kubernetes ``pkg/scheduler/framework/preemption/util_test.go`` (1.37 line, the
CompositePodGroup version) — every row of ``TestMoreImportantVictim``,
``TestLessByStartTimeThenIdentity`` and ``TestFilterVictimsWithPDBViolation`` — with ``util.go``
(``MoreImportantVictim``, ``FilterVictimsWithPDBViolation``) beside it. Upstream builds ``victim``
values directly; here a :class:`V` carries the same fields (priority, key type, pods, earliest
start). Upstream's ``before``/``now`` are Unix 500 and 1000; a victim without a start time is given
none (every pod "not started").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.controllers.scheduler.budgets import budget_selectors
from kbatch.controllers.scheduler.types import PodInfo
from kbatch.controllers.scheduler.victim_order import COMPOSITE, POD, POD_GROUP, importance_key, pdb_split

BEFORE, NOW = 500.0, 1000.0


@dataclass(frozen=True)
class V:
    """An upstream ``victim``: priority, key type (rank), pods; ``start`` is the earliest start."""

    priority: int = 0
    rank: int = POD
    size: int = 1
    start: float | None = None
    uid: str = ""
    pods: tuple[PodInfo, ...] = field(default=())

    @property
    def members(self) -> tuple[PodInfo, ...]:
        if self.pods:
            return self.pods
        return tuple(PodInfo("default", f"p{i}", uid=self.uid, start_time=self.start)
                     for i in range(self.size))


def more_important(a: V, b: V) -> bool:
    return importance_key(a) < importance_key(b)


IMPORTANCE = [  # TestMoreImportantVictim, then TestLessByStartTimeThenIdentity
    ("vi1 has higher priority", V(20), V(10), True),
    ("vi2 has higher priority", V(10), V(20), False),
    ("vi1 is PG, vi2 is Pod, same priority", V(10, POD_GROUP), V(10, POD), True),
    ("vi1 is Pod, vi2 is PG, same priority", V(10, POD), V(10, POD_GROUP), False),
    ("both Pods, vi1 older", V(10, start=BEFORE), V(10, start=NOW), True),
    ("both Pods, vi2 older", V(10, start=NOW), V(10, start=BEFORE), False),
    ("both PGs, vi1 larger", V(10, POD_GROUP, 2), V(10, POD_GROUP, 1), True),
    ("both PGs, vi2 larger", V(10, POD_GROUP, 1), V(10, POD_GROUP, 2), False),
    ("both PGs, same size, vi1 older", V(10, POD_GROUP, 2, BEFORE), V(10, POD_GROUP, 2, NOW), True),
    ("both PGs, same size, vi2 older", V(10, POD_GROUP, 2, NOW), V(10, POD_GROUP, 2, BEFORE), False),
    ("CPG vs Pod, same priority (CPG wins)", V(10, COMPOSITE), V(10, POD), True),
    ("Pod vs CPG, same priority (CPG wins)", V(10, POD), V(10, COMPOSITE), False),
    ("CPG vs PG, same priority (CPG wins)", V(10, COMPOSITE), V(10, POD_GROUP), True),
    ("PG vs CPG, same priority (CPG wins)", V(10, POD_GROUP), V(10, COMPOSITE), False),
    ("CPG vs PG, PG higher priority (higher priority wins)", V(10, COMPOSITE), V(20, POD_GROUP), False),
    ("PG vs CPG, PG higher priority (higher priority wins)", V(20, POD_GROUP), V(10, COMPOSITE), True),
    ("CPG vs PG, CPG smaller size, same priority (CPG rank wins over size)",
     V(10, COMPOSITE, 1), V(10, POD_GROUP, 2), True),
    ("CPG vs PG, CPG newer start time, same priority (CPG rank wins over start time)",
     V(10, COMPOSITE, start=NOW), V(10, POD_GROUP, start=BEFORE), True),
    ("both CPGs, vi1 larger (larger size wins)", V(10, COMPOSITE, 2), V(10, COMPOSITE, 1), True),
    ("both CPGs, vi2 larger (larger size wins)", V(10, COMPOSITE, 1), V(10, COMPOSITE, 2), False),
    ("both CPGs, same size, vi1 older (earlier start time wins)",
     V(10, COMPOSITE, start=BEFORE), V(10, COMPOSITE, start=NOW), True),
    ("both CPGs, same size, vi2 older (earlier start time wins)",
     V(10, COMPOSITE, start=NOW), V(10, COMPOSITE, start=BEFORE), False),
    ("earlier start time wins", V(start=BEFORE, uid="uid-a"), V(start=NOW, uid="uid-b"), True),
    ("later start time loses", V(start=NOW, uid="uid-a"), V(start=BEFORE, uid="uid-b"), False),
    ("equal start time, lower UID wins", V(start=NOW, uid="aaa"), V(start=NOW, uid="zzz"), True),
    ("equal start time, higher UID loses", V(start=NOW, uid="zzz"), V(start=NOW, uid="aaa"), False),
    ("equal start time, equal UID returns false", V(start=NOW, uid="same-uid"), V(start=NOW, uid="same-uid"),
     False),
    ("nil start times, falls back to UID comparison", V(uid="aaa"), V(uid="zzz"), True),
]


@pytest.mark.parametrize(("name", "vi1", "vi2", "want"), IMPORTANCE, ids=[row[0] for row in IMPORTANCE])
def test_more_important_victim(name: str, vi1: V, vi2: V, want: bool) -> None:
    assert more_important(vi1, vi2) is want


def pdb(match: dict[str, Any] | None, allowed: int = 0, disrupted: tuple[str, ...] = (),
        namespace: str = "default") -> PodDisruptionBudget:
    spec = {} if match is None else {"selector": match}
    status: dict[str, Any] = {"disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = {name: "2026-01-01T00:00:00Z" for name in disrupted}
    return PodDisruptionBudget.model_validate({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "b", "namespace": namespace}, "spec": spec, "status": status})


def victim(*pods: tuple[str, str, dict[str, str]]) -> V:
    """A victim of ``(namespace, name, labels)`` pods (upstream's ``st.MakePod()...Obj()``)."""
    return V(pods=tuple(PodInfo(ns, name, labels=labels) for ns, name, labels in pods))


FOO = {"app": "foo"}
SEL = {"matchLabels": FOO}
NO_MATCH = victim(("", "p1", FOO))  # upstream's pod has no namespace
MATCH = victim(("default", "p1", FOO))
MATCH2 = victim(("default", "p2", FOO))
NO_LABELS = victim(("default", "p1", {}))
GROUP = victim(("default", "p1", FOO), ("default", "p2", FOO))
MULTI = victim(("default", "p1", {"app": "foo", "tier": "backend"}))

BUDGETS = [  # TestFilterVictimsWithPDBViolation: (name, victims, pdbs, violating, non-violating)
    ("no victims, no PDBs", [], [], [], []),
    ("victim with no matching PDBs", [NO_MATCH], [pdb({"matchLabels": {"app": "bar"}})], [], [NO_MATCH]),
    ("victim matching PDB, adequate DisruptionsAllowed", [MATCH], [pdb(SEL, 1)], [], [MATCH]),
    ("victim matching PDB, no DisruptionsAllowed", [MATCH], [pdb(SEL, 0)], [MATCH], []),
    ("podgroup victim with multiple pods, all violating", [GROUP], [pdb(SEL, 0)], [GROUP], []),
    ("podgroup victim with multiple pods, none violating", [GROUP], [pdb(SEL, 2)], [], [GROUP]),
    ("multiple victims matching the same PDB", [MATCH, MATCH2], [pdb(SEL, 1)], [MATCH2],
     [MATCH]),
    ("pod in DisruptedPods is ignored", [MATCH], [pdb(SEL, 0, ("p1",))], [], [MATCH]),
    ("PDB with empty selector", [MATCH], [pdb({}, 0)], [MATCH], []),
    ("PDB with nil selector", [MATCH], [pdb(None, 0)], [], [MATCH]),
    ("unlabeled victim matching PDB", [NO_LABELS],
     [pdb({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}, 0)], [NO_LABELS], []),
    ("Multiple PDBs", [MULTI], [pdb(SEL, 1), pdb({"matchLabels": {"tier": "backend"}}, 0)],
     [MULTI], []),
]


@pytest.mark.parametrize(("name", "victims", "pdbs", "violating", "fine"), BUDGETS,
                         ids=[r[0] for r in BUDGETS])
def test_filter_victims_with_pdb_violation(name: str, victims: list[V], pdbs: list[PodDisruptionBudget],
                                           violating: list[V], fine: list[V]) -> None:
    got_violating, got_fine = pdb_split(victims, budget_selectors(pdbs))
    assert [id(v) for v in got_violating] == [id(v) for v in violating]
    assert [id(v) for v in got_fine] == [id(v) for v in fine]


victims_st = st.builds(V, st.integers(0, 3), st.sampled_from([POD, POD_GROUP, COMPOSITE]), st.integers(1, 3),
                       st.one_of(st.none(), st.sampled_from([BEFORE, NOW])), st.sampled_from(["a", "b"]))


@given(victims_st, victims_st, victims_st)
def test_importance_is_a_strict_order_refining_priority_then_kind(a: V, b: V, c: V) -> None:
    """Irreflexive, asymmetric, transitive; a higher priority, then a higher kind, always wins."""
    assert not more_important(a, a)
    assert not (more_important(a, b) and more_important(b, a))
    if more_important(a, b) and more_important(b, c):
        assert more_important(a, c)
    if a.priority != b.priority:
        assert more_important(a, b) is (a.priority > b.priority)
    elif a.rank != b.rank:
        assert more_important(a, b) is (a.rank > b.rank)
    elif a.size != b.size:
        assert more_important(a, b) is (a.size > b.size)


@given(st.lists(st.tuples(st.sampled_from(["foo", "bar"]), st.integers(1, 3)), max_size=6), st.integers(0, 4))
def test_budget_split_partitions_in_order_and_spends_the_budget(shapes: list[tuple[str, int]],
                                                                allowed: int) -> None:
    """Every unit lands in exactly one list, order kept; with one budget, the units it protects are
    exactly those whose pods would take the running count below zero."""
    units = [V(pods=tuple(PodInfo("default", f"u{i}-{k}", labels={"app": app}) for k in range(n)))
             for i, (app, n) in enumerate(shapes)]
    violating, fine = pdb_split(units, budget_selectors([pdb(SEL, allowed)]))
    assert sorted(map(id, violating + fine)) == sorted(map(id, units))
    assert [u for u in units if any(u is v for v in violating)] == violating
    spent, want = 0, []
    for unit, (app, n) in zip(units, shapes, strict=True):
        spent += n if app == "foo" else 0
        if app == "foo" and spent > allowed:
            want.append(unit)
    assert [id(u) for u in violating] == [id(u) for u in want]
