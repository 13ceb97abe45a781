"""The ``device-taint-eviction`` controller: pods using devices with untolerated NoExecute taints are
evicted (``DisruptionTarget`` condition, reason ``DeletionByDeviceTaintManager``, then a delete), as
upstream's device taint eviction controller does. Requests are pods with resource claims; a slice,
rule or claim change re-checks the pods using the claims."""

from __future__ import annotations

from typing import Any

from kbatch.api.base import format_time
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.controllers.dra.devicetainteviction.sync import eviction_time
from kbatch.controllers.dra.taints import device_taints
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["REASON", "DeviceTaintEviction"]

REASON = "DeletionByDeviceTaintManager"
BY_POOL = "dra-slice-pool"  # ResourceSlice: "<driver>/<pool name>"
MESSAGE = "Device Taint manager: deleting due to NoExecute taint"


def _pool_of(slice_: Any) -> list[str]:
    return [f"{slice_.spec.driver}/{slice_.spec.pool.name}"]


class DeviceTaintEviction:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        ctx.cache.add_index(ResourceSlice, BY_POOL, _pool_of)

    def pod_request(self, pod: Any) -> list[Request]:
        if not pod.spec.resource_claims or not pod.spec.node_name:
            return []
        return [Request(pod.metadata.namespace or "", pod.metadata.name or "")]

    def all_pods(self, _: Any) -> list[Request]:
        return [
            Request(p.metadata.namespace or "", p.metadata.name or "")
            for p in self.ctx.cache.list(Pod)
            if p.spec.resource_claims and p.spec.node_name
        ]

    def claim_pods(self, claim: Any) -> list[Request]:
        status = claim.status
        return (
            [
                Request(claim.metadata.namespace or "", r.name)
                for r in (status.reserved_for or ())
                if r.resource == "pods"
            ]
            if status is not None
            else []
        )

    def _device(self, driver: str, pool: str, name: str) -> Any:
        """The device a result names, from its pool's slices (a pool's later slice wins, in the
        cache's key order); read per result, not by walking every slice of the cluster per pod."""
        found = None
        for slice_ in self.ctx.cache.list(ResourceSlice, index=(BY_POOL, f"{driver}/{pool}")):
            for device in slice_.spec.devices or ():
                if device.name == name:
                    found = device
        return found

    def reconcile(self, request: Request) -> Any:
        try:
            pod = self.ctx.cache.get(Pod, request.name, request.namespace)
        except NotFound:
            return None
        if (
            not pod.spec.node_name
            or pod.metadata.deletion_timestamp is not None
            or not pod.spec.resource_claims
        ):
            return None
        from kbatch.api.resource_v1 import DeviceTaintRule

        rules = {r.metadata.name: r for r in self.ctx.cache.list(DeviceTaintRule)}
        origin = self.ctx.clock.to_datetime(0)
        due: float | None = None
        for claim in self._claims(pod):
            for result in claim.status.allocation.devices.results or ():
                device = self._device(result.driver, result.pool, result.device)
                if device is None:
                    continue
                taints = [
                    (t, (t.time_added - origin).total_seconds() if t.time_added else None)
                    for t in device_taints(device, result.driver, result.pool, rules)
                ]
                when = eviction_time(taints, result.tolerations or ())
                if when is not None:
                    due = when if due is None else min(due, when)
        if due is None:
            return None
        now = self.ctx.clock.now()
        if due > now:
            return Result(requeue_after=due - now)
        self._evict(pod)
        return None

    def _claims(self, pod: Any) -> list[Any]:
        statuses = (
            {s.name: s.resource_claim_name for s in (pod.status.resource_claim_statuses or ())}
            if pod.status is not None
            else {}
        )
        out = []
        for entry in pod.spec.resource_claims or ():
            name = entry.resource_claim_name or statuses.get(entry.name)
            if not name:
                continue
            try:
                claim = self.ctx.cache.get(ResourceClaim, name, pod.metadata.namespace)
            except NotFound:
                continue
            if (
                claim.status is not None
                and claim.status.allocation is not None
                and claim.status.allocation.devices
            ):
                out.append(claim)
        return out

    def _evict(self, pod: Any) -> None:
        now = format_time(self.ctx.clock.now_datetime())
        condition = {
            "type": "DisruptionTarget",
            "status": "True",
            "reason": REASON,
            "message": MESSAGE,
            "lastTransitionTime": now,
        }
        try:
            self.ctx.client.patch_status(
                Pod,
                pod.metadata.name,
                {"status": {"conditions": [condition]}},
                pod.metadata.namespace,
                patch_type="strategic",
            )
            self.ctx.client.delete(Pod, pod.metadata.name, pod.metadata.namespace)
        except NotFound:
            return
        # upstream emitPodDeletionEvent (the node taint manager's event is TaintManagerEviction)
        self.ctx.recorder.event(pod, "Normal", "DeviceTaintManagerEviction", "Marking for deletion")
