"""Which informer events reach the device taint eviction controller, as upstream's handlers decide.

Upstream (semantics only): kubernetes ``pkg/controller/devicetainteviction/device_taint_eviction.go``
(v1.37, DRADeviceTaints and DRADeviceTaintRules GA, on):

* ``handlePodChange``: a pod's add and delete; an update only when ``spec.nodeName``,
  ``status.resourceClaimStatuses`` or the special claim of ``status.extendedResourceClaimStatus``
  changed ("pods get updated quite frequently"; the eviction's own
  ``DisruptionTarget`` write must not queue the pod again);
* ``handleClaimChange``: a claim added with an allocation, deleted, or updated while allocated
  before or after (an unallocated claim's updates change nothing); the pods in ``reservedFor``, old
  and new;
* ``handleSliceChange``: only a change of the pool's ``NoExecute`` device taints matters. kbatch
  passes a slice's add and delete and an update whose ``NoExecute`` taints or pool generation
  changed, and queues the pods of claims allocated from that pool (upstream narrows further, to
  claims using a modified device whose eviction time moved: the reconcile finds the rest unchanged);
* ``handleRuleChange``: a DeviceTaintRule's add queues its status; a spec change re-evaluates every
  allocated claim (kbatch: every scheduled pod with claims).

Module-level classes: the CLI's state image pickles predicates.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CLAIM_ALLOCATED", "POD_CLAIMS_CHANGED", "SLICE_TAINTS_CHANGED", "no_execute_taints"]


class _Deletes:
    def delete(self, obj: Any) -> bool:
        return True


class _PodClaimsChanged(_Deletes):
    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        if old.spec.node_name != new.spec.node_name:
            return True
        return bool(_claim_statuses(old) != _claim_statuses(new))


def _claim_statuses(pod: Any) -> Any:
    """The pod's recorded claims: its template claims and the scheduler's special claim
    (``status.extendedResourceClaimStatus``, kubernetes#141290)."""
    if not pod.status:
        return None
    ext = pod.status.extended_resource_claim_status
    return pod.status.resource_claim_statuses, ext.resource_claim_name if ext is not None else None


def _allocated(claim: Any) -> bool:
    return claim.status is not None and claim.status.allocation is not None


class _ClaimAllocated(_Deletes):
    def create(self, obj: Any) -> bool:
        return _allocated(obj)

    def update(self, old: Any, new: Any) -> bool:
        return _allocated(old) or _allocated(new)


def no_execute_taints(slice_: Any) -> list[tuple[str, Any]]:
    """(device, taint) for every ``NoExecute`` device taint the slice publishes, in device order."""
    out = []
    for device in slice_.spec.devices or ():
        for taint in device.taints or ():
            if taint.effect == "NoExecute":
                out.append((device.name, taint))
    return out


class _SliceTaintsChanged(_Deletes):
    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        if old.spec.pool.generation != new.spec.pool.generation:
            return True
        return no_execute_taints(old) != no_execute_taints(new)


POD_CLAIMS_CHANGED = _PodClaimsChanged()
CLAIM_ALLOCATED = _ClaimAllocated()
SLICE_TAINTS_CHANGED = _SliceTaintsChanged()
