"""The order in which workload-aware preemption considers its victims (KEP-5710): which unit is more
important, and which units a PodDisruptionBudget protects. Pure functions over preemption units.

Sources (kubernetes/kubernetes, 1.37 line, ``pkg/scheduler/framework/preemption/``):

* importance: ``util.go`` ``MoreImportantVictim`` / ``victimRank`` / ``podIdentityLess`` (table
  ``util_test.go`` ``TestMoreImportantVictim``, ``TestLessByStartTimeThenIdentity``): higher priority;
  then the unit's kind (a CompositePodGroup above a PodGroup above a pod); then more pods; then the
  earlier start (each unit's earliest ``util.GetPodStartTime``, a pod not started counting as now);
  then the lower UID of the unit's first pod. A lone pod of a PodGroup (one without
  ``disruptionMode: all``) ranks as a PodGroup: ``types.go`` ``NewPodVictim`` gives it the
  PodGroup key type whenever the pod names a scheduling group (the TODO there says so).
* budgets: ``util.go`` ``FilterVictimsWithPDBViolation`` (table ``util_test.go``
  ``TestFilterVictimsWithPDBViolation``): the units, most important first, spend each matching
  budget's ``disruptionsAllowed`` pod by pod (a pod already in ``disruptedPods`` spends nothing); a
  unit is violating when any of its pods takes a budget below zero. Unlike the per-pod
  ``filterPodsWithPDBViolation`` an empty selector matches every pod, and pods without labels are
  matched too; a pod stops spending at the first budget it breaks. The budgets come parsed, each
  selector once per preemption attempt (:mod:`.budgets`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from kbatch.controllers.scheduler.budgets import Budget
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["COMPOSITE", "POD", "POD_GROUP", "VictimUnit", "importance_key", "pdb_split", "pod_start_time"]

POD, POD_GROUP, COMPOSITE = 1, 2, 3  # upstream ``victimRank``


class VictimUnit(Protocol):
    """What the order reads of a preemption unit."""

    @property
    def priority(self) -> int: ...
    @property
    def rank(self) -> int: ...
    @property
    def members(self) -> Sequence[PodInfo]: ...


U = TypeVar("U", bound=VictimUnit)


def pod_start_time(pod: PodInfo) -> float:
    """Upstream ``GetPodStartTime``: ``status.startTime``, else now (later than every start)."""
    return pod.start_time if pod.start_time is not None else float("inf")


def importance_key(unit: VictimUnit) -> tuple[int, int, int, float, str, str]:
    """Sort key, most important first (upstream ``MoreImportantVictim``); the first pod's key ends it
    so that equal UIDs still order deterministically."""
    members = unit.members
    earliest = min(pod_start_time(p) for p in members)
    return (-unit.priority, -unit.rank, -len(members), earliest, members[0].uid, members[0].key)


def _violates(pod: PodInfo, budgets: Sequence[Budget], allowed: list[int]) -> bool:
    """Spend the budgets ``pod`` matches (an empty selector matches every pod); True at the first
    one it takes below zero."""
    for i, budget in enumerate(budgets):
        if budget.spends(pod, empty_matches=True):
            allowed[i] -= 1
            if allowed[i] < 0:
                return True
    return False


def pdb_split(units: Sequence[U], budgets: Sequence[Budget]) -> tuple[list[U], list[U]]:
    """(violating, non-violating) units, each in the given order (upstream
    ``FilterVictimsWithPDBViolation``); ``budgets`` from :func:`.budgets.budget_selectors`."""
    allowed = [b.allowed for b in budgets]
    violating: list[U] = []
    fine: list[U] = []
    for unit in units:
        hits = [_violates(pod, budgets, allowed) for pod in unit.members]  # every pod spends
        (violating if any(hits) else fine).append(unit)
    return violating, fine
