"""PodDisruptionBudgets as scheduler preemption reads them: each budget's selector parsed once per
preemption attempt (:func:`budget_selectors`), not once per candidate victim, for both splits of the
victims into those whose eviction would break a budget and the others.

Sources (kubernetes/kubernetes, 1.37 line):

* the per-pod split of DefaultPreemption (:func:`.plugins.default_preemption.pdb_violating`):
  ``filterPodsWithPDBViolation`` in ``pkg/scheduler/framework/plugins/defaultpreemption/
  default_preemption.go``; an empty selector matches nothing there (and a pod without labels
  matches no budget, which that split checks itself);
* the unit split of workload-aware preemption (:func:`.victim_order.pdb_split`):
  ``FilterVictimsWithPDBViolation`` in ``pkg/scheduler/framework/preemption/util.go``; an empty
  selector matches every pod there.

In both a budget counts only for pods of its namespace, an invalid selector
(``LabelSelectorAsSelector`` fails) matches nothing, a pod already in ``status.disruptedPods``
spends nothing, and each split starts from every budget's ``status.disruptionsAllowed``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import StatusError
from kbatch.api.selectors import NOTHING, selector_from_model
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["Budget", "budget_selectors"]


@dataclass(frozen=True, slots=True)
class Budget:
    """One PodDisruptionBudget, its selector parsed: what the splits read of it."""

    namespace: str
    empty: bool  # the selector is empty (matches everything in the eviction API)
    matches: Callable[[Mapping[str, str] | None], bool]
    disrupted: frozenset[str]  # status.disruptedPods' names
    allowed: int  # status.disruptionsAllowed

    def spends(self, pod: PodInfo, empty_matches: bool) -> bool:
        """Whether evicting ``pod`` spends this budget; ``empty_matches``: whether an empty selector
        matches every pod (the unit split) or none (the per-pod split)."""
        if self.namespace != pod.namespace:
            return False
        if self.empty:
            if not empty_matches:
                return False
        elif not self.matches(pod.labels):
            return False
        return pod.name not in self.disrupted


def budget_selectors(pdbs: Iterable[Any]) -> list[Budget]:
    """``pdbs`` (policy/v1 PodDisruptionBudget objects) as :class:`Budget` records, in their order."""
    out = []
    for pdb in pdbs:
        try:
            selector = selector_from_model(pdb.spec.selector if pdb.spec else None)
        except StatusError:
            selector = NOTHING  # an invalid selector matches nothing
        status = pdb.status
        out.append(Budget(
            namespace=pdb.metadata.namespace or "",
            empty=selector.empty,
            matches=selector.compile(),
            disrupted=frozenset((status.disrupted_pods if status else None) or ()),
            allowed=(status.disruptions_allowed if status else 0) or 0,
        ))
    return out
