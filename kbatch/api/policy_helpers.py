"""Pure PodDisruptionBudget helpers shared by the eviction subresource, the disruption controller and
the scheduler's preemption, and the ``metav1.Condition`` helpers every controller shares.

Upstream (semantics only): ``k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go``
(``UpdateDisruptionAllowedCondition``, ``ConditionsAreUpToDate``), apimachinery
``meta.SetStatusCondition``, ``pkg/api/v1/pod`` (``IsPodReady``, ``UpdatePodCondition``) and the
policy/v1 lister expansion ``GetPodPodDisruptionBudgets`` (an empty selector matches every pod of the
namespace, a missing one none, an unparsable one none); Kueue's MultiKueue ``cmpConditionState``
(kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/admissioncheck.go``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from kbatch.api.errors import StatusError
from kbatch.api.meta import Condition
from kbatch.api.policy_v1 import (
    DISRUPTION_ALLOWED,
    INSUFFICIENT_PODS,
    SUFFICIENT_PODS,
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
)
from kbatch.api.selectors import selector_from_model

__all__ = [
    "cmp_condition_state",
    "conditions_up_to_date",
    "find_condition",
    "matching_pdbs",
    "pdb_matches",
    "pod_condition",
    "pod_is_ready",
    "set_status_condition",
    "update_disruption_allowed_condition",
]


def find_condition(conditions: Iterable[Condition] | None, type_: str) -> Condition | None:
    return next((c for c in conditions or () if c.type == type_), None)


def cmp_condition_state(a: Condition | None, b: Condition | None) -> bool:
    """``cmpConditionState``: two conditions are in the same state when both are absent, or both are
    present with equal status, reason and message; the times and observedGeneration do not count."""
    if a is None or b is None:
        return a is b
    return (a.status, a.reason, a.message) == (b.status, b.reason, b.message)


def set_status_condition(conditions: list[Condition], new: Condition, now: datetime) -> list[Condition]:
    """``meta.SetStatusCondition``: add, or update in place; ``lastTransitionTime`` moves to ``now``
    only when the status changes (or was never set); reason, message and observedGeneration always."""
    old = find_condition(conditions, new.type)
    if old is None:
        added = new.model_copy()
        added.last_transition_time = new.last_transition_time or now
        return [*conditions, added]
    if old.status != new.status:
        old.status = new.status
        old.last_transition_time = new.last_transition_time or now
    old.reason, old.message, old.observed_generation = new.reason, new.message, new.observed_generation
    return conditions


def update_disruption_allowed_condition(status: PodDisruptionBudgetStatus, now: datetime) -> None:
    """``UpdateDisruptionAllowedCondition``: True/SufficientPods when a disruption is allowed, else
    False/InsufficientPods (message empty), observedGeneration from the status."""
    allowed = status.disruptions_allowed > 0
    cond = Condition(type=DISRUPTION_ALLOWED, status="True" if allowed else "False",
                     reason=SUFFICIENT_PODS if allowed else INSUFFICIENT_PODS, message="",
                     observed_generation=status.observed_generation)
    status.conditions = set_status_condition(list(status.conditions or ()), cond, now)


def conditions_up_to_date(pdb: PodDisruptionBudget) -> bool:
    """``ConditionsAreUpToDate``: the DisruptionAllowed condition agrees with the status."""
    status = pdb.status or PodDisruptionBudgetStatus()
    cond = find_condition(status.conditions, DISRUPTION_ALLOWED)
    if cond is None or status.observed_generation != pdb.metadata.generation:
        return False
    if status.disruptions_allowed > 0:
        return cond.status == "True" and cond.reason == SUFFICIENT_PODS
    return cond.status == "False" and cond.reason == INSUFFICIENT_PODS


def pod_condition(pod: Any, type_: str) -> Any:
    status = pod.status
    return next((c for c in (status.conditions if status else None) or () if c.type == type_), None)


def pod_is_ready(pod: Any) -> bool:
    """``podutil.IsPodReady``: the Ready condition is True (what PDBs call healthy)."""
    cond = pod_condition(pod, "Ready")
    return cond is not None and cond.status == "True"


def pdb_matches(pdb: PodDisruptionBudget, labels: Mapping[str, str] | None) -> bool:
    try:
        selector = selector_from_model(pdb.spec.selector)
    except StatusError:
        return False  # an invalid selector matches nothing
    return selector.matches(labels or {})


def matching_pdbs(pdbs: Iterable[PodDisruptionBudget], namespace: str,
                  labels: Mapping[str, str] | None) -> list[PodDisruptionBudget]:
    """The PDBs of ``namespace`` whose selector picks a pod with ``labels``, in the order given."""
    return [p for p in pdbs if (p.metadata.namespace or "") == namespace and pdb_matches(p, labels)]
