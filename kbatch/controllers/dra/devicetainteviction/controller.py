"""The ``device-taint-eviction`` controller: pods using devices with untolerated NoExecute taints are
evicted (``DisruptionTarget`` condition, reason ``DeletionByDeviceTaintManager``, then a delete), as
upstream's device taint eviction controller does; its DeviceTaintRules get their
``EvictionInProgress`` condition (:mod:`.rules`).

One queue serves both, as upstream's ``workItem`` (``podRef`` or ``ruleRef``): a request with a
namespace is a pod, one without is a DeviceTaintRule. A pod whose eviction waits for a toleration
is remembered; when that wait is called off (the taint went, the claim was deallocated, ...) the pod
gets upstream's "Cancelling deletion" event (``cancelWorkWithEvent``), unless the pod itself is
going. Each eviction is counted for the rules among its reasons, and their status is refreshed
``ruleStatusPeriod`` later."""

from __future__ import annotations

from typing import Any

from kbatch.api.base import format_time
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import DeviceTaintRule, ResourceClaim, ResourceSlice
from kbatch.controllers.dra import podgroupclaims
from kbatch.controllers.dra.devicetainteviction.rules import sync_rule_status
from kbatch.controllers.dra.devicetainteviction.status import RULE_STATUS_PERIOD
from kbatch.controllers.dra.devicetainteviction.sync import Eviction, has_claims
from kbatch.controllers.dra.devicetainteviction.view import BY_POOL, TaintView, pool_of
from kbatch.controllers.dra.resourceclaim.handlers import pod_group_keys
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["EVENT_REASON", "REASON", "DeviceTaintEviction"]

REASON = "DeletionByDeviceTaintManager"
MESSAGE = "Device Taint manager: deleting due to NoExecute taint"
EVENT_REASON = "DeviceTaintManagerEviction"  # emitPodDeletionEvent / emitCancelPodDeletionEvent
BY_GROUP = "dra-taint-pod-group"  # pods with claims by ``<namespace>/<PodGroup>`` (KEP-5729)


class DeviceTaintEviction:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.queue: Any = None  # the controller's queue, set by setup
        self.pending: dict[tuple[str, str], str] = {}  # (namespace, name) -> uid of a delayed eviction
        self.evicted: dict[str, int] = {}  # rule uid -> pods evicted for it (taintRuleStats)
        ctx.cache.add_index(ResourceSlice, BY_POOL, pool_of)
        self.groups = podgroupclaims.enabled(ctx.features)
        if self.groups:
            ctx.cache.add_index(Pod, BY_GROUP, pod_group_keys)

    # --- mappers ---------------------------------------------------------------------------

    def pod_request(self, pod: Any) -> list[Request]:
        if not pod.spec.node_name or not has_claims(pod):
            return []
        return [Request(pod.metadata.namespace or "", pod.metadata.name or "")]

    def all_pods(self, _: Any) -> list[Request]:
        return [
            Request(p.metadata.namespace or "", p.metadata.name or "")
            for p in self.ctx.cache.list(Pod)
            if p.spec.node_name and has_claims(p)
        ]

    def pool_pods(self, slice_: Any) -> list[Request]:
        """The pods of the claims allocated from the slice's pool (``handleSliceChange``), key order."""
        driver, pool = slice_.spec.driver, slice_.spec.pool.name
        out: set[Request] = set()
        for claim in self.ctx.cache.list(ResourceClaim):
            allocation = claim.status.allocation if claim.status else None
            results = allocation.devices.results if allocation and allocation.devices else None
            if any(r.driver == driver and r.pool == pool for r in results or ()):
                out.update(self.claim_pods(claim))
        return sorted(out)

    def rule_and_pods(self, rule: Any) -> list[Request]:
        """A rule's own status first (``handleRuleChange`` adds it at once), then every pod."""
        return [Request("", rule.metadata.name or ""), *self.all_pods(rule)]

    def claim_pods(self, claim: Any) -> list[Request]:
        """The pods in ``reservedFor`` and, with PodGroup claims (KEP-5729, "Finding Pods Using a
        ResourceClaim"), the pods of each PodGroup in it (by ``spec.schedulingGroup``)."""
        status = claim.status
        namespace = claim.metadata.namespace or ""
        out: list[Request] = []
        for ref in (status.reserved_for if status is not None else None) or ():
            if ref.resource == "pods" and not ref.api_group:
                out.append(Request(namespace, ref.name))
            elif self.groups and podgroupclaims.is_group_consumer(ref):
                members = self.ctx.cache.list(Pod, index=(BY_GROUP, f"{namespace}/{ref.name}"))
                out.extend(sorted(Request(namespace, p.metadata.name or "") for p in members))
        return out

    # --- reconcile -------------------------------------------------------------------------

    def reconcile(self, request: Request) -> Any:
        if not request.namespace:
            self._forget_deleted_rules()
            return sync_rule_status(self.ctx, request.name, self.evicted)
        return self._reconcile_pod(request)

    def _reconcile_pod(self, request: Request) -> Any:
        key = (request.namespace, request.name)
        try:
            pod = self.ctx.cache.get(Pod, request.name, request.namespace)
        except NotFound:
            self.pending.pop(key, None)  # gone: nothing to cancel, no event
            return None
        if pod.metadata.deletion_timestamp is not None:
            self.pending.pop(key, None)  # already being deleted: no need to evict
            return None
        eviction = TaintView(self.ctx).pod_eviction(pod) if has_claims(pod) else None
        if eviction is None:
            if self.pending.pop(key, None) == pod.metadata.uid:
                self.ctx.recorder.event(pod, "Normal", EVENT_REASON, "Cancelling deletion")
            return None
        self._refresh_rules(eviction)
        now = self.ctx.clock.now()
        if eviction.when > now:
            self.pending[key] = pod.metadata.uid or ""
            return Result(requeue_after=eviction.when - now)
        self.pending.pop(key, None)
        if self._evict(pod):
            for _, uid in eviction.rules:
                self.evicted[uid] = self.evicted.get(uid, 0) + 1
            self._refresh_rules(eviction)
        return None

    def _forget_deleted_rules(self) -> None:
        """A deleted rule's count goes with it (``handleRuleChange``: no leak, a recreated rule
        starts at 0)."""
        live = {r.metadata.uid for r in self.ctx.cache.list(DeviceTaintRule)}
        for uid in [u for u in self.evicted if u not in live]:
            del self.evicted[uid]

    def _refresh_rules(self, eviction: Eviction) -> None:
        """Status updates for the rules among the reasons, not at once: more changes may come."""
        for name, _ in sorted(eviction.rules):
            if self.queue is not None:
                self.queue.add_after(Request("", name), RULE_STATUS_PERIOD)

    def _evict(self, pod: Any) -> bool:
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
            return False
        # upstream emitPodDeletionEvent (the node taint manager's event is TaintManagerEviction)
        self.ctx.recorder.event(pod, "Normal", EVENT_REASON, "Marking for deletion")
        return True
