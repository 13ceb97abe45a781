"""The DeviceTaintRule status half of the controller (upstream ``maybeUpdateRuleStatus``,
``countPendingPods``, ``countTaintedDevices``): count, word the condition (:mod:`.status`), write
it when it changed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api import edit
from kbatch.api.base import format_time
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.meta import Condition
from kbatch.api.resource_v1 import DeviceTaintRule, DeviceTaintRuleStatus, ResourceClaim, ResourceSlice
from kbatch.controllers.dra.devicetainteviction.status import (
    CONDITION,
    RULE_STATUS_PERIOD,
    RuleCounts,
    rule_condition,
)
from kbatch.controllers.dra.devicetainteviction.view import TaintView
from kbatch.controllers.dra.taints import rule_evicts_device
from kbatch.runtime.reconcile import Result

__all__ = ["sync_rule_status"]


def _pending(view: TaintView, uid: str) -> tuple[int, int]:
    """Pods not yet being deleted whose eviction has the rule among its reasons, and their namespaces."""
    pods, namespaces = 0, set()
    for pod in view.ctx.cache.list(Pod):
        if pod.metadata.deletion_timestamp is not None or not pod.spec.resource_claims:
            continue
        eviction = view.pod_eviction(pod)
        if eviction is not None and any(u == uid for _, u in eviction.rules):
            pods += 1
            namespaces.add(pod.metadata.namespace)
    return pods, len(namespaces)


def _devices(view: TaintView, rule: Any) -> tuple[int, int]:
    """Devices of the published slices (each pool's newest generation) and allocated devices the
    rule selects."""
    published = 0
    pools = {(s.spec.driver, s.spec.pool.name) for s in view.ctx.cache.list(ResourceSlice)}
    for driver, pool in sorted(pools):
        for slice_ in view.pool_slices(driver, pool):
            published += sum(
                1 for d in slice_.spec.devices or () if rule_evicts_device(rule, driver, pool, d.name)
            )
    allocated = 0
    for claim in view.ctx.cache.list(ResourceClaim):
        allocation = claim.status.allocation if claim.status is not None else None
        for r in (allocation.devices.results or ()) if allocation and allocation.devices else ():
            allocated += rule_evicts_device(rule, r.driver, r.pool, r.device)
    return published, allocated


def _counts(ctx: Any, rule: Any, evicted: int) -> RuleCounts:
    effect, uid = rule.spec.taint.effect, rule.metadata.uid
    if effect == "None":
        view = TaintView(ctx, simulate=uid)
        published, allocated = _devices(view, rule)
        return RuleCounts(*_pending(view, uid), evicted, published, allocated)
    if effect == "NoExecute":
        return RuleCounts(*_pending(TaintView(ctx), uid), evicted)
    return RuleCounts(evicted_pods=evicted)


def sync_rule_status(ctx: Any, name: str, evicted: Mapping[str, int]) -> Result | None:
    """Reconcile one rule's condition; ``evicted`` counts this controller's evictions per rule uid."""
    try:
        rule = ctx.cache.get(DeviceTaintRule, name)
    except NotFound:
        return None
    conditions = list((rule.status.conditions if rule.status else None) or ())
    existing = next((c for c in conditions if c.type == CONDITION), None)
    now = ctx.clock.now()
    generation = rule.metadata.generation
    if existing is not None and existing.observed_generation == generation and existing.last_transition_time:
        since = now - (existing.last_transition_time - ctx.clock.to_datetime(0)).total_seconds()
        if since < RULE_STATUS_PERIOD:
            return Result(requeue_after=RULE_STATUS_PERIOD - since)
    counts = _counts(ctx, rule, evicted.get(rule.metadata.uid or "", 0))
    status, reason, message = rule_condition(rule.spec.taint.effect, counts)
    if existing is not None and (
        existing.status,
        existing.reason,
        existing.message,
        existing.observed_generation,
    ) == (status, reason, message, generation):
        return None
    condition = Condition.model_validate(
        {
            "type": CONDITION,
            "status": status,
            "reason": reason,
            "message": message,
            "observedGeneration": generation,
            "lastTransitionTime": format_time(ctx.clock.now_datetime()),
        }
    )
    changed = edit(rule)
    changed.status = DeviceTaintRuleStatus(
        conditions=[*(c for c in conditions if c.type != CONDITION), condition]
    )
    try:
        ctx.client.update_status(changed)
    except NotFound:
        return None
    return None
