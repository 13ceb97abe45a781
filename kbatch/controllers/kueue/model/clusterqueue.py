"""A ClusterQueue as the scheduler sees it: its policies as values, and its node in the quota tree.

Upstream: kubernetes-sigs/kueue ``pkg/cache/scheduler/{clusterqueue,clusterqueue_snapshot,resource}.go``
(v0.19.2). :func:`settings_of` turns a ClusterQueue object into :class:`CQSettings` (defaults as
``updateClusterQueue`` applies them: preemption ``Never``/``Never``, fungibility ``MayStopSearch``/
``TryNextFlavor``); :class:`ClusterQueueNode` is the quota-tree node holding the workloads that
reserve quota in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.kueue_v1beta2 import ClusterQueue
from kbatch.api.selectors import Selector, selector_from_model
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import Node, Quota, journaled_pop, journaled_set
from kbatch.controllers.kueue.model.requests import FlavorResource, amount

__all__ = [
    "CQSettings",
    "CheckRules",
    "ClusterQueueNode",
    "Preemption",
    "ResourceGroup",
    "admission_check_rules",
    "applicable_checks",
    "fair_weight",
    "quotas_of",
    "settings_of",
]


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    covered: frozenset[str]
    flavors: tuple[str, ...]

    def __reduce__(self) -> tuple[Any, tuple[tuple[str, ...], tuple[str, ...]]]:
        """Pickled with ``covered`` sorted: a saved image's bytes must not follow the hash seed (pickle
        writes a frozenset of strings in its hash order)."""
        return _resource_group, (tuple(sorted(self.covered)), self.flavors)


def _resource_group(covered: tuple[str, ...], flavors: tuple[str, ...]) -> ResourceGroup:
    return ResourceGroup(frozenset(covered), flavors)


@dataclass(frozen=True, slots=True)
class Preemption:
    within_cluster_queue: str = "Never"
    reclaim_within_cohort: str = "Never"
    borrow_within_cohort: str = "Never"
    max_priority_threshold: int | None = None


CheckRules = tuple[tuple[str, frozenset[str]], ...]  # (check, flavors it applies to; empty: all)


@dataclass(frozen=True, slots=True)
class CQSettings:
    """What a ClusterQueue's spec decides, settled."""

    name: str
    cohort: str = ""
    resource_groups: tuple[ResourceGroup, ...] = ()
    queueing_strategy: str = "BestEffortFIFO"
    namespace_selector: Selector | None = None  # None: no namespace at all
    preemption: Preemption = field(default_factory=Preemption)
    when_can_borrow: str = "MayStopSearch"
    when_can_preempt: str = "TryNextFlavor"
    preference: str | None = None
    stop_policy: str = "None"
    fair_weight: float = 1.0
    admission_checks: CheckRules = ()
    admission_mode: str | None = None

    def rg_by_resource(self, resource: str) -> ResourceGroup | None:
        for rg in self.resource_groups:
            if resource in rg.covered:
                return rg
        return None

    def all_flavors(self) -> list[str]:
        return [f for rg in self.resource_groups for f in rg.flavors]

    def checks_for(self, admission: Any) -> list[str]:
        """The admission checks a workload with ``admission`` (None: no quota yet) needs."""
        if not self.admission_checks:
            return []
        return applicable_checks(self.admission_checks, frozenset(self.all_flavors()), admission)


def admission_check_rules(spec: Any) -> CheckRules:
    """A ClusterQueue spec's ``admissionChecksStrategy`` rules, sorted."""
    strategy = spec.admission_checks_strategy if spec is not None else None
    if strategy is None:
        return ()
    rules = strategy.admission_checks or ()
    return tuple(sorted((r.name or "", frozenset(r.on_flavors or ())) for r in rules))


def applicable_checks(rules: CheckRules, every: frozenset[str], admission: Any) -> list[str]:
    """``workload.AdmissionChecksForWorkload`` (pkg/workload/workload.go, v0.19.2), in name order: a
    rule without flavors stands for ``every`` flavor of the ClusterQueue. With an admission, the
    rules sharing a flavor with its pod sets (``HasAllRequiredChecks`` asks for these); without one
    (the flavors are not known yet), only the rules covering every flavor."""
    if admission is None:
        return [name for name, flavors in rules if (flavors or every) >= every]
    assigned = {f for psa in admission.pod_set_assignments or () for f in (psa.flavors or {}).values()}
    return [name for name, flavors in rules if (flavors or every) & assigned]


def fair_weight(fs: Any) -> float:
    """``parseFairWeight``: the weight as a float, 1 when unset."""
    if fs is None or fs.weight is None:
        return 1.0
    return float(fs.weight.as_fraction())


def quotas_of(resource_groups: Iterable[Any] | None) -> dict[FlavorResource, Quota]:
    """``createResourceQuotas``: quotas by (flavor, resource)."""
    out: dict[FlavorResource, Quota] = {}
    for rg in resource_groups or ():
        for f in rg.flavors or ():
            for r in f.resources or ():
                name = r.name or ""
                out[(f.name or "", name)] = Quota(
                    amount(name, r.nominal_quota) if r.nominal_quota is not None else 0,
                    amount(name, r.borrowing_limit) if r.borrowing_limit is not None else None,
                    amount(name, r.lending_limit) if r.lending_limit is not None else None,
                )
    return out


def settings_of(cq: ClusterQueue) -> CQSettings:
    spec = cq.spec
    if spec is None:
        return CQSettings(cq.metadata.name or "")
    pre = spec.preemption
    bwc = pre.borrow_within_cohort if pre is not None else None
    preemption = Preemption(
        (pre.within_cluster_queue if pre else None) or "Never",
        (pre.reclaim_within_cohort if pre else None) or "Never",
        (bwc.policy if bwc else None) or "Never",
        bwc.max_priority_threshold if bwc else None,
    )
    ff = spec.flavor_fungibility
    return CQSettings(
        name=cq.metadata.name or "",
        cohort=spec.cohort_name or "",
        resource_groups=tuple(
            ResourceGroup(
                frozenset(rg.covered_resources or ()), tuple(f.name or "" for f in rg.flavors or ())
            )
            for rg in spec.resource_groups or ()
        ),
        queueing_strategy=spec.queueing_strategy or "BestEffortFIFO",
        namespace_selector=(
            selector_from_model(spec.namespace_selector) if spec.namespace_selector is not None else None
        ),
        preemption=preemption,
        when_can_borrow=(ff.when_can_borrow if ff else None) or "MayStopSearch",
        when_can_preempt=(ff.when_can_preempt if ff else None) or "TryNextFlavor",
        preference=ff.preference if ff else None,
        stop_policy=spec.stop_policy or "None",
        fair_weight=fair_weight(spec.fair_sharing),
        admission_checks=admission_check_rules(spec),
        admission_mode=spec.admission_scope.admission_mode if spec.admission_scope else None,
    )


class ClusterQueueNode(Node):
    """A ClusterQueue in the quota tree. ``workloads`` are those reserving quota in it (by key);
    ``generation`` is upstream's ``AllocatableResourceGeneration`` (bumped when a workload leaves
    or the quotas change); ``active`` whether it may admit.

    :attr:`workloads_revision` names the current content of ``workloads``, for data derived from
    it (the preemption candidates' order): every change takes a number never used in the tree
    (``Tree.next_revision``), journaled with the change, so a rollback restores the number with the
    content. Equal revisions, equal content."""

    __slots__ = ("_revision", "active", "admitted_usage", "generation", "settings", "workloads")

    def __init__(self, settings: CQSettings, tree: Any) -> None:
        super().__init__(settings.name, tree)
        self.settings = settings
        self.workloads: dict[str, WorkloadInfo] = {}
        self._revision: dict[str, int] = {"workloads": tree.next_revision()}
        self.admitted_usage: dict[FlavorResource, int] = {}
        self.generation = 0
        self.active = False
        self.fair_weight = settings.fair_weight

    @property
    def preemption(self) -> Preemption:
        return self.settings.preemption

    def quota(self, fr: FlavorResource) -> Quota:
        return self.quotas.get(fr) or Quota()

    @property
    def workloads_revision(self) -> int:
        return self._revision["workloads"]

    def put_workload(self, info: WorkloadInfo) -> None:
        journal = self.tree.journal
        journaled_set(journal, self.workloads, info.key, info)
        journaled_set(journal, self._revision, "workloads", self.tree.next_revision())

    def drop_workload(self, key: str) -> None:
        if key in self.workloads:
            journal = self.tree.journal
            journaled_pop(journal, self.workloads, key)
            journaled_set(journal, self._revision, "workloads", self.tree.next_revision())
