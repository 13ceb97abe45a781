"""MultiKueue manager quota automation, the decisions (KEP 9988, gate
``MultiKueueManagerQuotaAutomation``, alpha, off): pure functions from a manager ClusterQueue, its
MultiKueueConfig and the workers' queues to the ClusterQueue's quotas and its condition.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/clusterqueue.go``
(``cqReconciler.Reconcile``, ``aggregateWorkerQuotas``) and
``keps/9988-multikueue-manager-quota-automation`` ("Defining related worker ClusterQueues"):

1. the config's ``quotaManagement`` unset or ``Manual`` → ``False``/``NotRequested``;
2. the manager ClusterQueue without exactly one ResourceGroup holding exactly one flavor →
   ``False``/``UnsupportedConfiguration``;
3. the *related* worker ClusterQueues of each connected worker of the config: those some worker
   LocalQueue points to whose namespace and name are those of a manager LocalQueue pointing to the
   ClusterQueue (dispatching pairs LocalQueues by key, ClusterQueue names play no part); each counted
   once per worker however many LocalQueues lead to it;
4. per resource, the sum of their nominal quotas across every flavor and ResourceGroup, all workers
   added up (cohorts, borrowing and lending limits ignored, as the KEP says);
5. a summed resource the manager's ``coveredResources`` lacks → ``False``/``UnsupportedConfiguration``
   "manager-side coveredResources is missing resources configured on workers: [a b]";
6. else the single flavor's quotas become one ``nominalQuota`` per covered resource, in the covered
   order (``0`` where no worker has any; limits dropped), and the condition is
   ``True``/``QuotaAutomated``.

The effects (reading the workers, writing the ClusterQueue) are in :mod:`.quota_reconciler`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue, MultiKueueConfig, ResourceQuota
from kbatch.api.kueue_v1beta2.multikueue import QUOTA_AUTOMATION_CONDITION, QUOTA_MANAGEMENT_MANUAL
from kbatch.api.meta import Condition
from kbatch.api.policy_helpers import cmp_condition_state
from kbatch.api.quantity import Quantity

__all__ = [
    "AUTOMATED",
    "CONFIG_NOT_FOUND",
    "NOT_ONE_FLAVOR",
    "NOT_REQUESTED",
    "AutomationState",
    "QueueKey",
    "WorkerQueues",
    "aggregate",
    "automated_quotas",
    "precondition",
    "related_worker_queues",
    "same_state",
    "worker_totals",
]

QueueKey = tuple[str, str]  # a LocalQueue's (namespace, name)
UNSUPPORTED = "UnsupportedConfiguration"


@dataclass(frozen=True)
class AutomationState:
    """The ``MultiKueueManagerQuotaAutomation`` condition of a manager ClusterQueue."""

    status: str
    reason: str
    message: str

    def condition(self, generation: int | None = None) -> Condition:
        return Condition(type=QUOTA_AUTOMATION_CONDITION, status=self.status, reason=self.reason,
                         message=self.message, observed_generation=generation)


AUTOMATED = AutomationState(
    "True", "QuotaAutomated", "ClusterQueue quota is automatically managed based on MultiKueue workers."
)
NOT_REQUESTED = AutomationState(
    "False", "NotRequested", "MultiKueue manager quota automation has not been requested."
)
CONFIG_NOT_FOUND = AutomationState("False", UNSUPPORTED, "The referenced MultiKueueConfig was not found.")
NOT_ONE_FLAVOR = AutomationState(
    "False",
    UNSUPPORTED,
    "Quota automation requires that the manager-side ClusterQueue has exactly one ResourceFlavor",
)


@dataclass(frozen=True)
class WorkerQueues:
    """What one connected worker has: its LocalQueues and ClusterQueues."""

    local_queues: tuple[LocalQueue, ...]
    cluster_queues: tuple[ClusterQueue, ...]


def precondition(cq: ClusterQueue, config: MultiKueueConfig) -> AutomationState | None:
    """Steps 1-2: the condition that stops automation here, or ``None`` to go on."""
    mode = (config.spec.quota_management if config.spec else None) or QUOTA_MANAGEMENT_MANUAL
    if mode == QUOTA_MANAGEMENT_MANUAL:
        return NOT_REQUESTED
    groups = (cq.spec.resource_groups if cq.spec else None) or []
    if len(groups) != 1 or len(groups[0].flavors or ()) != 1:
        return NOT_ONE_FLAVOR
    return None


def related_worker_queues(manager_lqs: Iterable[QueueKey], worker_lqs: Iterable[LocalQueue]) -> set[str]:
    """Step 3: the names of the worker's ClusterQueues related to the manager's (by LocalQueue key)."""
    keys = set(manager_lqs)
    return {
        lq.spec.cluster_queue or ""
        for lq in worker_lqs
        if lq.spec is not None and (lq.metadata.namespace or "", lq.metadata.name or "") in keys
    }


def _add(into: dict[str, Quantity], name: str, value: Quantity | None) -> None:
    into[name] = into.get(name, Quantity(0)).add(value if value is not None else Quantity(0))


def worker_totals(related: set[str], worker_cqs: Iterable[ClusterQueue]) -> dict[str, Quantity]:
    """Step 4 on one worker: per resource, the nominal quotas of its related ClusterQueues summed over
    every ResourceGroup and flavor."""
    total: dict[str, Quantity] = {}
    for cq in worker_cqs:
        if (cq.metadata.name or "") not in related:
            continue
        for group in (cq.spec.resource_groups if cq.spec else None) or ():
            for flavor in group.flavors or ():
                for res in flavor.resources or ():
                    _add(total, res.name or "", res.nominal_quota)
    return total


def aggregate(manager_lqs: Iterable[QueueKey], workers: Iterable[WorkerQueues]) -> dict[str, Quantity]:
    """Steps 3-4 over every connected worker (``aggregateWorkerQuotas``)."""
    keys = set(manager_lqs)
    total: dict[str, Quantity] = {}
    for worker in workers:
        related = related_worker_queues(keys, worker.local_queues)
        for name, value in worker_totals(related, worker.cluster_queues).items():
            _add(total, name, value)
    return total


def automated_quotas(cq: ClusterQueue, totals: dict[str, Quantity]) -> list[ResourceQuota] | AutomationState:
    """Steps 5-6: the single flavor's new quotas, or the condition refusing them. ``cq`` passed
    :func:`precondition`."""
    assert cq.spec is not None and cq.spec.resource_groups  # precondition held
    covered = list(cq.spec.resource_groups[0].covered_resources or ())
    missing = sorted(set(totals) - set(covered))  # sets.List: sorted
    if missing:
        message = (
            f"manager-side coveredResources is missing resources configured on workers: [{' '.join(missing)}]"
        )
        return AutomationState("False", UNSUPPORTED, message)
    return [ResourceQuota(name=name, nominal_quota=totals.get(name, Quantity(0))) for name in covered]


def same_state(old: Condition | None, state: AutomationState | None) -> bool:
    """``cmpConditionState``: status, reason and message (not the times nor the generation)."""
    return cmp_condition_state(old, None if state is None else state.condition())
