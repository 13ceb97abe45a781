"""What enqueues a ResourceQuota: the quota's own events and the QuotaMonitor's replenishment.

Upstream (semantics only), kubernetes ``pkg/controller/resourcequota`` (v1.37):

* ``resource_quota_controller.go`` ``NewController``: a quota's add and delete queue it; an update
  only when ``spec.hard`` changed (``quota.Equals``), since status writes are the controller's own.
* ``resource_quota_monitor.go`` ``controllerFor``: one informer per quotable resource, with no
  ``AddFunc`` (admission charged the create already). Every delete replenishes; of updates only a pod
  that stops counting (``QuotaV1Pod(old) && !QuotaV1Pod(new)``, ``pkg/quota/v1/evaluator/core/pods.go``:
  terminal, or past ``deletionTimestamp + deletionGracePeriodSeconds``), a Service whose quota type
  changes (``GetQuotaServiceType``: ``NodePort``/``LoadBalancer`` or neither, ``services.go``) and a
  claim whose ``status.allocatedResources.storage`` changes (``RequiresQuotaReplenish``,
  ``persistent_volume_claims.go``, RecoverVolumeExpansionFailure on by default since 1.34).
* ``resource_quota_controller.go`` ``replenishQuota``: only the namespace's quotas whose
  ``status.hard`` names a resource the kind's evaluator matches (``MatchingResources``) are queued.
* ``Run``: ``enqueueAll`` at start and every ``--resource-quota-sync-period`` (5 m), on one
  controller-wide period rather than one per quota (:data:`SWEEP`).

Predicates and mappers are module-level classes: the CLI's state image pickles them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from kbatch.api.core_v1 import ResourceQuota
from kbatch.api.quota_usage import counts_for_quota, matching_resources
from kbatch.runtime.reconcile import Request

if TYPE_CHECKING:
    from kbatch.runtime.context import ControllerContext

__all__ = ["HARD_CHANGED", "OBJECT_GONE", "SWEEP", "ClaimAllocationChanged", "PodStopsCounting",
           "Replenish", "ServiceTypeChanged", "quota_service_type"]

SWEEP = Request("", "")  # enqueueAll (no quota is named "")
_QUOTA_SERVICE_TYPES = ("NodePort", "LoadBalancer")
_TERMINAL = ("Succeeded", "Failed")


class _Clocked(Protocol):
    ctx: ControllerContext


class _ObjectGone:
    """Deletes only: the monitor's informers register no ``AddFunc``."""

    def create(self, obj: Any) -> bool:
        return False

    def update(self, old: Any, new: Any) -> bool:
        return False

    def delete(self, obj: Any) -> bool:
        return True


class _HardChanged(_ObjectGone):
    """Creates, deletes and ``spec.hard`` changes (upstream ignores status writes)."""

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return bool(_hard(old) != _hard(new))


def _hard(rq: Any) -> Any:
    return rq.spec.hard if rq.spec else None


class PodStopsCounting(_ObjectGone):
    """Deletes, and an update after which the pod no longer counts (``QuotaV1Pod``), judged now: a
    pod marked for deletion still counts for its grace period, so the mark itself replenishes nothing."""

    def __init__(self, owner: _Clocked) -> None:
        self.owner = owner

    def update(self, old: Any, new: Any) -> bool:
        status = new.status
        if new.metadata.deletion_timestamp is None and (status is None or status.phase not in _TERMINAL):
            return False  # the new pod counts (the hot path: most pod updates stop here, no clock read)
        now = self.owner.ctx.clock.now_datetime()
        return counts_for_quota(old, now) and not counts_for_quota(new, now)


def quota_service_type(service: Any) -> str:
    """``GetQuotaServiceType``: the type quota distinguishes, or ``""``."""
    kind = service.spec.type if service.spec else None
    return kind if kind in _QUOTA_SERVICE_TYPES else ""


class ServiceTypeChanged(_ObjectGone):
    """Deletes, and a Service whose quota type changes."""

    def update(self, old: Any, new: Any) -> bool:
        return quota_service_type(old) != quota_service_type(new)


def _allocated_storage(claim: Any) -> Any:
    allocated = claim.status.allocated_resources if claim.status else None
    return (allocated or {}).get("storage")


class ClaimAllocationChanged(_ObjectGone):
    """Deletes, and a claim whose ``status.allocatedResources.storage`` changes."""

    def update(self, old: Any, new: Any) -> bool:
        return bool(_allocated_storage(old) != _allocated_storage(new))


class Replenish:
    """``replenishQuota``: an object of ``group_resource`` → the quotas of its namespace that track it."""

    def __init__(self, owner: _Clocked, group_resource: str) -> None:
        self.owner, self.group_resource = owner, group_resource

    def __call__(self, obj: Any) -> list[Request]:
        namespace = obj.metadata.namespace or ""
        out = []
        for rq in self.owner.ctx.cache.list(ResourceQuota, namespace):
            hard = (rq.status.hard if rq.status else None) or {}
            if matching_resources(self.group_resource, hard):
                out.append(Request(namespace, rq.metadata.name or ""))
        return out


HARD_CHANGED = _HardChanged()
OBJECT_GONE = _ObjectGone()
