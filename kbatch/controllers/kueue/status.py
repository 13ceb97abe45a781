"""Status and finalizers of ClusterQueues, LocalQueues, Cohorts and ResourceFlavors.

Upstream: kubernetes-sigs/kueue ``pkg/controller/core/{clusterqueue,localqueue,cohort,
resourceflavor}_controller.go`` (v0.19.2), reading the cache (``Usage``, ``LocalQueueUsage``,
``ClusterQueueReadiness``) and the queue manager (``Pending``).

* ClusterQueue: ``pendingWorkloads`` (queued, inflight and inadmissible), ``reservingWorkloads``,
  ``admittedWorkloads``, ``flavorsReservation``/``flavorsUsage`` per flavor of every resource group,
  resources in name order (``borrowed``: above nominal, zero outside a cohort), the ``Active``
  condition (``Ready``/``Stopped``/``FlavorNotFound``/…/``Terminating``) and, with fair sharing,
  ``fairSharing.weightedShare``; the ``resource-in-use`` finalizer is released once a deleted queue
  holds no workload.
* LocalQueue: the same counts and usage for its workloads; ``Active``: ``Ready`` ("Can submit new
  workloads to localQueue"), ``Stopped`` ("LocalQueue is stopped"), ``ClusterQueueDoesNotExist`` /
  ``ClusterQueueIsInactive`` ("Can't submit new workloads to clusterQueue"); with admission fair
  sharing, a Ready LocalQueue's ``fairSharing.admissionFairSharingStatus`` every sampling interval
  (:mod:`.admissionfairsharing.sampling`).
* Cohort: ``fairSharing.weightedShare`` with fair sharing.
* ResourceFlavor: the ``resource-in-use`` finalizer is released once no ClusterQueue uses the flavor.
"""

from __future__ import annotations

import contextlib
import functools
import typing
from types import SimpleNamespace
from typing import Any

from kbatch.api import edit
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_v1beta2 import ClusterQueue, Cohort, LocalQueue, ResourceFlavor
from kbatch.api.kueue_v1beta2.constants import RESOURCE_IN_USE_FINALIZER
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.admissionfairsharing.sampling import UsageSampler
from kbatch.controllers.kueue.manager import KueueManager
from kbatch.controllers.kueue.model.requests import FlavorResource, format_amount
from kbatch.controllers.kueue.scheduling.fairshare import dominant_resource_share
from kbatch.runtime.reconcile import Request, Result

__all__ = ["ClusterQueueStatus", "CohortStatus", "LocalQueueStatus", "ResourceFlavorFinalizer"]


def _usage(
    groups: Any, usage: dict[FlavorResource, int], quotas: dict[FlavorResource, Any] | None, borrowing: bool
) -> list[dict[str, Any]]:
    """``getUsage`` / ``filterLocalQueueUsage`` (``quotas`` None: a LocalQueue's, without borrowed)."""
    out = []
    for rg in groups:
        for flavor in rg.flavors:
            resources = []
            for res in sorted(rg.covered):
                used = usage.get((flavor, res), 0)
                entry: dict[str, Any] = {"name": res, "total": format_amount(res, used)}
                if quotas is not None:
                    q = quotas.get((flavor, res))
                    borrowed = used - (q.nominal if q is not None else 0) if borrowing else 0
                    entry["borrowed"] = format_amount(res, max(0, borrowed))
                resources.append(entry)
            out.append({"name": flavor, "resources": resources})
    return out


def _weighted(share: float) -> int:
    return 2**63 - 1 if share == float("inf") else int(-(-share // 1))


class _Writer:
    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr
        # queue -> (resourceVersion, the status in wire form) of the object as this controller last
        # wrote or found it current: a reconcile computing the same status for the same stored
        # version has nothing to write, and is answered without building and comparing models
        # (most reconciles: one per queue per batch period, many of them changing nothing)
        self.current: dict[tuple[str, str], tuple[str | None, dict[str, Any]]] = {}

    def _write_status(self, obj: Any, status: dict[str, Any]) -> None:
        key = (obj.metadata.namespace or "", obj.metadata.name or "")
        rv = obj.metadata.resource_version
        known = self.current.get(key)
        if known is not None and known[0] == rv and known[1] == status:
            return
        new_status = _status_model(obj.__class__).model_validate(status)
        if new_status == obj.status:
            self.current[key] = (rv, status)
            return
        self.current.pop(key, None)
        with contextlib.suppress(Conflict, NotFound):
            written = self.mgr.ctx.client.update_status(obj.model_copy(update={"status": new_status}))
            self.current[key] = (written.metadata.resource_version, status)

    def _drop_finalizer(self, obj: Any) -> None:
        obj = edit(obj)
        obj.metadata.finalizers = [
            f for f in obj.metadata.finalizers or () if f != RESOURCE_IN_USE_FINALIZER
        ] or None
        with contextlib.suppress(Conflict, NotFound):
            self.mgr.ctx.client.update(obj)

    def _condition(self, obj: Any, status: dict[str, Any], value: bool, reason: str, message: str) -> None:
        current = (obj.status.conditions if obj.status else None) or ()
        text, generation = ("True" if value else "False"), obj.metadata.generation
        active = next((c for c in current if c.type == "Active"), None)
        if active is not None and (
            active.status, active.reason, active.message, active.observed_generation
        ) == (text, reason, message, generation):  # as it is (the usual case): set_condition is a no-op
            status["conditions"] = [c.to_dict() for c in current]
            return
        holder = SimpleNamespace(
            conditions=[edit(c) for c in (obj.status.conditions if obj.status else None) or ()]
        )
        W.set_condition(holder, "Active", value, reason, message, obj.metadata.generation, self.mgr.now())  # type: ignore[arg-type]
        status["conditions"] = [c.to_dict() for c in holder.conditions]


@functools.cache
def _status_model(kind: Any) -> Any:
    """The model of ``kind``'s ``status`` field (memoised per kind)."""
    ann = kind.model_fields["status"].annotation
    return next(a for a in typing.get_args(ann) if a is not type(None))


class ClusterQueueStatus(_Writer):
    def reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        cq = self.mgr.get(ClusterQueue, request.name)
        if cq is None:
            return None
        node = mgr.cache.cluster_queues.get(request.name)
        state = mgr.cache.states.get(request.name)
        if cq.metadata.deletion_timestamp is not None and RESOURCE_IN_USE_FINALIZER in (
            cq.metadata.finalizers or ()
        ) and (node is None or not node.workloads):
            self._drop_finalizer(cq)
            return None
        if node is None or state is None:
            return None
        groups = node.settings.resource_groups
        borrowing = node.parent is not None
        status: dict[str, Any] = {
            "flavorsReservation": _usage(groups, node.usage, node.quotas, borrowing),
            "flavorsUsage": _usage(groups, state.admitted_usage, node.quotas, borrowing),
            "pendingWorkloads": mgr.queues.pending_in_cluster_queue(request.name),
            "reservingWorkloads": len(node.workloads),
            "admittedWorkloads": state.admitted_count,
        }
        reason, message = state.inactive_reason()
        self._condition(cq, status, state.active, reason, message)
        if mgr.settings.config.fair_sharing:
            status["fairSharing"] = {
                "weightedShare": _weighted(dominant_resource_share(node).precise_weighted_share())
            }
        self._write_status(cq, _clean(status))
        return None


def _ready(status: dict[str, Any]) -> bool:
    return any(c.get("type") == "Active" and c.get("status") == "True" for c in status["conditions"])


class LocalQueueStatus(_Writer):
    def __init__(self, mgr: KueueManager) -> None:
        super().__init__(mgr)
        self.sampler = UsageSampler(mgr.queues, mgr.cache, mgr.now)

    def reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        lq = self.mgr.get(LocalQueue, request.name, request.namespace)
        if lq is None:
            return None
        key = f"{request.namespace}/{request.name}"
        cq_name = (lq.spec.cluster_queue if lq.spec else None) or ""
        stopped = ((lq.spec.stop_policy if lq.spec else None) or "None") != "None"
        node = mgr.cache.cluster_queues.get(cq_name)
        usage = mgr.cache.local_queue_usage(cq_name, key)
        groups = node.settings.resource_groups if node is not None else ()
        status: dict[str, Any] = {
            "pendingWorkloads": 0 if stopped else mgr.queues.pending_in_local_queue(key),
            "reservingWorkloads": usage.reserving,
            "admittedWorkloads": usage.admitted_count,
            "flavorsReservation": _usage(groups, usage.reserved, None, False),
            "flavorsUsage": _usage(groups, usage.admitted, None, False),
        }
        if stopped:
            self._condition(lq, status, False, "Stopped", "LocalQueue is stopped")
        elif self.mgr.get(ClusterQueue, cq_name) is None:
            status.update(
                {
                    "reservingWorkloads": 0,
                    "admittedWorkloads": 0,
                    "flavorsReservation": [],
                    "flavorsUsage": [],
                }
            )
            self._condition(
                lq, status, False, "ClusterQueueDoesNotExist", "Can't submit new workloads to clusterQueue"
            )
        elif mgr.cache.active(cq_name):
            self._condition(lq, status, True, "Ready", "Can submit new workloads to localQueue")
        else:
            self._condition(
                lq, status, False, "ClusterQueueIsInactive", "Can't submit new workloads to clusterQueue"
            )
        if lq.status is not None and lq.status.fair_sharing is not None:
            status["fairSharing"] = lq.status.fair_sharing.to_dict()
        result = None
        if mgr.queues.afs is not None and _ready(status):
            result = self.sampler.reconcile(lq, key, cq_name, status)
        self._write_status(lq, _clean(status))
        return result


class CohortStatus(_Writer):
    def reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        cohort = self.mgr.get(Cohort, request.name)
        node = mgr.cache.cohorts.get(request.name)
        if cohort is None or node is None:
            return None
        status: dict[str, Any] = {}
        if mgr.settings.config.fair_sharing:
            status["fairSharing"] = {
                "weightedShare": _weighted(dominant_resource_share(node).precise_weighted_share())
            }
        self._write_status(cohort, status)
        return None


class ResourceFlavorFinalizer(_Writer):
    def reconcile(self, request: Request) -> Result | None:
        rf = self.mgr.get(ResourceFlavor, request.name)
        if rf is None or rf.metadata.deletion_timestamp is None:
            return None
        if RESOURCE_IN_USE_FINALIZER in (
            rf.metadata.finalizers or ()
        ) and not self.mgr.cache.clusterqueues_using_flavor(request.name):
            self._drop_finalizer(rf)
        return None


def _clean(status: dict[str, Any]) -> dict[str, Any]:
    """Wire form: empty lists dropped as ``omitempty`` does."""
    return {k: v for k, v in status.items() if v != [] and v is not None}
