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
from kbatch.api.resource_v1 import (
    TAINT_EFFECT_NO_EXECUTE,
    DeviceTaintRule,
    DeviceTaintRuleStatus,
    ResourceClaim,
    ResourceSlice,
)
from kbatch.controllers.dra.devicetainteviction.status import (
    CONDITION,
    RULE_STATUS_PERIOD,
    TAINT_EFFECT_NONE,
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
    if effect == TAINT_EFFECT_NONE:
        view = TaintView(ctx, simulate=uid)
        published, allocated = _devices(view, rule)
        return RuleCounts(*_pending(view, uid), evicted, published, allocated)
    if effect == TAINT_EFFECT_NO_EXECUTE:
        return RuleCounts(*_pending(TaintView(ctx), uid), evicted)
    return RuleCounts(evicted_pods=evicted)


def _not_yet(ctx: Any, rule: Any, existing: Condition | None) -> Result | bool | None:
    """Whether to wait: a condition for this generation stays for ``RULE_STATUS_PERIOD`` (a Result
    says how long is left), and for effects other than NoExecute for good (upstream evaluates them
    when the rule is added or its spec changes only); False: evaluate now."""
    if existing is None or existing.observed_generation != rule.metadata.generation:
        return False
    if rule.spec.taint.effect != TAINT_EFFECT_NO_EXECUTE:
        return None
    if existing.last_transition_time is None:
        return False
    since = ctx.clock.now() - (existing.last_transition_time - ctx.clock.to_datetime(0)).total_seconds()
    return Result(requeue_after=RULE_STATUS_PERIOD - since) if since < RULE_STATUS_PERIOD else False


def _write(ctx: Any, rule: Any, conditions: list[Condition], fields: tuple[str, str, str]) -> None:
    status, reason, message = fields
    condition = Condition.model_validate(
        {
            "type": CONDITION,
            "status": status,
            "reason": reason,
            "message": message,
            "observedGeneration": rule.metadata.generation,
            "lastTransitionTime": format_time(ctx.clock.now_datetime()),
        }
    )
    changed = edit(rule)
    kept = [c for c in conditions if c.type != CONDITION]
    changed.status = DeviceTaintRuleStatus(conditions=[*kept, condition])
    try:
        ctx.client.update_status(changed)
    except NotFound:
        return


def sync_rule_status(ctx: Any, name: str, evicted: Mapping[str, int]) -> Result | None:
    """Reconcile one rule's condition; ``evicted`` counts this controller's evictions per rule uid.
    Written only when status, reason, message or observed generation change."""
    try:
        rule = ctx.cache.get(DeviceTaintRule, name)
    except NotFound:
        return None
    conditions = list((rule.status.conditions if rule.status else None) or ())
    existing = next((c for c in conditions if c.type == CONDITION), None)
    wait = _not_yet(ctx, rule, existing)
    if wait is not False:
        return wait if isinstance(wait, Result) else None
    counts = _counts(ctx, rule, evicted.get(rule.metadata.uid or "", 0))
    fields = rule_condition(rule.spec.taint.effect, counts)
    current = None if existing is None else (existing.status, existing.reason, existing.message)
    if current != fields or existing is None or existing.observed_generation != rule.metadata.generation:
        _write(ctx, rule, conditions, fields)
    return None
