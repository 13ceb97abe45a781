"""Which Kueue objects' events enqueue which reconciles: the decisions of upstream's handlers.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core``. Each function answers one handler's
question from the old and the new object (``None`` for a create's old or a delete's new); the
effects (cache, queues, enqueues) stay in :mod:`.manager`.

* ``workloadQueueHandler`` (``workload_controller.go``): the Workloads of a ClusterQueue's or a
  LocalQueue's LocalQueues are reconciled on its create and delete, and on an update only while
  it is being deleted or when a stop policy (and, for a ClusterQueue, ``admissionChecksStrategy``)
  changed: :func:`cluster_queue_wakes_workloads`, :func:`local_queue_wakes_workloads`.
* ``qCQHandler`` (``localqueue_controller.go``): a ClusterQueue's LocalQueues' status reconciles,
  on its create and delete, and on an update only when ``status.conditions`` changed:
  :func:`cluster_queue_wakes_local_queues`.
* ``ResourceFlavorReconciler.Create/Update/Delete`` (``resourceflavor_controller.go``): a flavor's
  own reconcile on create and on updates while it is being deleted, never on delete
  (:data:`FLAVOR_EVENTS`); its ``cqHandler``: the flavors a deleted ClusterQueue, or one whose
  flavors changed, used and no ClusterQueue uses now (:func:`released_flavors`).
* ``CohortReconciler.Update`` (``cohort_controller.go``): a Cohort update reconciles it only when
  its spec changed (:data:`COHORT_EVENTS`); ``cohortCqHandler``: a ClusterQueue event reconciles
  the Cohorts above it, the root excluded (``Cache.ClusterQueueAncestors``): :func:`cohort_ancestors`.
* ``AdmissionCheckReconciler`` (``admissioncheck_controller.go``): a check's own reconcile on
  create, delete and on updates while it is being deleted (:data:`CHECK_EVENTS`); ``acCqHandler``
  via ``NotifyClusterQueueUpdate``: after a ClusterQueue event that changes the set of checks it
  names, the checks of the old and the new ClusterQueue no ClusterQueue names now
  (:func:`released_checks`).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue
from kbatch.controllers.kueue.model.quota import has_cycle, path_to_root
from kbatch.runtime.predicate import Funcs

__all__ = [
    "CHECK_EVENTS",
    "COHORT_EVENTS",
    "FLAVOR_EVENTS",
    "cluster_queue_wakes_local_queues",
    "cluster_queue_wakes_workloads",
    "cohort_ancestors",
    "flavors_of",
    "local_queue_wakes_workloads",
    "released_checks",
    "released_flavors",
]


def _deleting(obj: Any) -> bool:
    return obj.metadata.deletion_timestamp is not None


# ResourceFlavorReconciler: Create -> true, Update -> only while deleting, Delete -> false.
FLAVOR_EVENTS = Funcs(create=True, update=_deleting, delete=False)

# AdmissionCheckReconciler: Create -> true, Update -> only while deleting, Delete -> true.
CHECK_EVENTS = Funcs(create=True, update=_deleting, delete=True)


class _SpecChanged:
    """``CohortReconciler.Update``: an update passes only when the spec changed (so the Cohort
    status controller's own writes do not come back to it); creates and deletes pass."""

    __slots__ = ()

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return bool(old.spec != new.spec)

    def delete(self, obj: Any) -> bool:
        return True


COHORT_EVENTS = _SpecChanged()


def _strategy(cq: ClusterQueue) -> Any:
    return cq.spec.admission_checks_strategy if cq.spec else None


def _stop(obj: ClusterQueue | LocalQueue) -> str | None:
    return obj.spec.stop_policy if obj.spec else None


def cluster_queue_wakes_workloads(old: ClusterQueue | None, new: ClusterQueue | None) -> bool:
    """``workloadQueueHandler`` for a ClusterQueue event."""
    if old is None or new is None:
        return True
    return _deleting(new) or _strategy(old) != _strategy(new) or _stop(old) != _stop(new)


def local_queue_wakes_workloads(old: LocalQueue | None, new: LocalQueue | None) -> bool:
    """``workloadQueueHandler`` for a LocalQueue event."""
    if old is None or new is None:
        return True
    return _deleting(new) or _stop(old) != _stop(new)


def cluster_queue_wakes_local_queues(old: ClusterQueue | None, new: ClusterQueue | None) -> bool:
    """``qCQHandler`` for a ClusterQueue event."""
    if old is None or new is None:
        return True
    return (old.status.conditions if old.status else None) != (new.status.conditions if new.status else None)


def flavors_of(cq: ClusterQueue) -> set[str]:
    """``utilqueue.AllFlavors``: every flavor named in the ClusterQueue's resource groups."""
    groups = (cq.spec.resource_groups if cq.spec else None) or ()
    return {f.name for rg in groups for f in rg.flavors or () if f.name}


def released_flavors(old: ClusterQueue, new: ClusterQueue | None, in_use: Any) -> list[str]:
    """``ResourceFlavorReconciler.NotifyClusterQueueUpdate`` and ``cqHandler.Generic``: after a
    ClusterQueue is deleted (``new`` is None) or its flavor set changes, the flavors the old one
    named that no ClusterQueue uses any more (``in_use(flavor)`` lists the users), whose
    ``resource-in-use`` finalizer may now go."""
    if new is not None and flavors_of(old) == flavors_of(new):
        return []
    return [f for f in sorted(flavors_of(old)) if not in_use(f)]


def cohort_ancestors(cq: ClusterQueue, cohorts: dict[str, Any]) -> list[str]:
    """``Cache.ClusterQueueAncestors``: the ClusterQueue's Cohort and the Cohorts above it, the root
    excluded; none when the Cohort is unknown or its ancestry has a cycle."""
    node = cohorts.get((cq.spec.cohort_name if cq.spec else None) or "")
    if node is None or has_cycle(node):
        return []
    chain = [node.name, *(c.name for c in path_to_root(node))]
    return chain[:-1]



def checks_of(cq: ClusterQueue) -> list[str]:
    """The checks ``spec.admissionChecksStrategy`` names, in its order (``getAcNames``)."""
    strategy = _strategy(cq)
    return [rule.name for rule in (strategy.admission_checks if strategy else None) or () if rule.name]


def released_checks(old: ClusterQueue | None, new: ClusterQueue | None, in_use: Any) -> list[str]:
    """``AdmissionCheckReconciler.NotifyClusterQueueUpdate`` and ``acCqHandler.Generic``: unless both
    objects name the same checks (in any order), each check of the old and of the new ClusterQueue
    that no ClusterQueue names now (``in_use(check)`` lists the users), in name order."""
    before, after = (checks_of(old) if old else []), (checks_of(new) if new else [])
    if old is not None and new is not None and sorted(before) == sorted(after):
        return []
    return sorted({c for c in (*before, *after) if not in_use(c)})
