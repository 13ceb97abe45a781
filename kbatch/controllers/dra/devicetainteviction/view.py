"""What the eviction controller reads from its cache to decide: devices by pool (only the slices of
a pool's newest generation count, upstream ``pool.getDevice``), the evicting DeviceTaintRules, the
claims of a pod. A simulation (effect ``None``) reads the same world with one rule made
``NoExecute``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import TAINT_EFFECT_NO_EXECUTE, DeviceTaintRule, ResourceClaim, ResourceSlice
from kbatch.controllers.dra import podgroupclaims
from kbatch.controllers.dra.devicetainteviction.sync import (
    Eviction,
    TaintSource,
    device_eviction,
    merge,
    pod_claim_names,
    reserved_for,
)
from kbatch.controllers.dra.taints import rule_evicts_device

__all__ = ["BY_POOL", "TaintView", "pool_of"]

BY_POOL = "dra-slice-pool"  # ResourceSlice: "<driver>/<pool name>"


def pool_of(slice_: Any) -> list[str]:
    return [f"{slice_.spec.driver}/{slice_.spec.pool.name}"]


class TaintView:
    """``simulate``: the uid of a rule to treat as ``NoExecute`` whatever its effect."""

    def __init__(self, ctx: Any, simulate: str | None = None) -> None:
        self.ctx = ctx
        self.groups = podgroupclaims.enabled(ctx.features)  # KEP-5729: PodGroup reservations count
        self.origin = ctx.clock.to_datetime(0)
        rules = sorted(ctx.cache.list(DeviceTaintRule), key=lambda r: r.metadata.name or "")
        self.rules = [
            r for r in rules if r.spec.taint.effect == TAINT_EFFECT_NO_EXECUTE or r.metadata.uid == simulate
        ]

    def seconds(self, when: Any) -> float | None:
        return None if when is None else (when - self.origin).total_seconds()

    def pool_slices(self, driver: str, pool: str) -> list[Any]:
        slices = self.ctx.cache.list(ResourceSlice, index=(BY_POOL, f"{driver}/{pool}"))
        newest = max((s.spec.pool.generation or 0 for s in slices), default=0)
        return [s for s in slices if (s.spec.pool.generation or 0) == newest]

    def device(self, driver: str, pool: str, name: str) -> Any:
        for slice_ in self.pool_slices(driver, pool):
            for device in slice_.spec.devices or ():
                if device.name == name:
                    return device
        return None

    def _sources(self, result: Any) -> list[TaintSource]:
        device = self.device(result.driver, result.pool, result.device)
        own = [TaintSource(t, self.seconds(t.time_added)) for t in (device.taints or ())] if device else []
        for rule in self.rules:
            if rule_evicts_device(rule, result.driver, result.pool, result.device):
                t = rule.spec.taint
                taint = SimpleNamespace(key=t.key, value=t.value, effect=TAINT_EFFECT_NO_EXECUTE)
                own.append(
                    TaintSource(taint, self.seconds(t.time_added), (rule.metadata.name, rule.metadata.uid))
                )
        return own

    def claim_eviction(self, claim: Any) -> Eviction | None:
        return merge(
            device_eviction(self._sources(r), r.tolerations or ())
            for r in claim.status.allocation.devices.results or ()
        )

    def pod_eviction(self, pod: Any) -> Eviction | None:
        """``podEvictionTime``: None for a pod not scheduled or with no tainted claim it uses."""
        if not pod.spec.node_name:
            return None
        return merge(self.claim_eviction(c) for c in self.used_claims(pod))

    def used_claims(self, pod: Any) -> list[Any]:
        out = []
        for name, check_owner in pod_claim_names(pod):
            try:
                claim = self.ctx.cache.get(ResourceClaim, name, pod.metadata.namespace)
            except NotFound:
                continue
            allocation = claim.status.allocation if claim.status is not None else None
            group = podgroupclaims.group_name(pod) if self.groups else ""
            if allocation is not None and allocation.devices and reserved_for(claim, pod, check_owner, group):
                out.append(claim)
        return out
