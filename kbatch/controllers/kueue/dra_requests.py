"""The DRA path of Kueue's workload controller: a pending Workload's device requests, read from
the informer cache, as the queues count them and as the controller reports what it refuses.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller.go``
(``Reconcile``'s DRA block — with the gate off, ``KueueDRARejectWorkloadsWhenDRADisabled`` refuses
every Workload with DRA claims; for a pending Workload that ``NeedsDRAReconcile`` — ``KueueDRAIntegration``
on, not on hold, a pod set naming a ResourceClaim or ResourceClaimTemplate — the per-pod-set
resources of ``GetResourceRequestsForResourceClaimTemplates`` are handed to the queue manager with
``WithPreprocessedDRAResources``; a refused Workload gets QuotaReserved=False, reason ``Inadmissible``
(``Misconfigured`` with ``UnadmittedWorkloadsObservability``), and Requeued=False ``Inadmissible``,
and is not queued; an internal error — a template that cannot be read — is also returned, so the
reconcile is retried with back-off) and ``pkg/dra/extended_resources.go`` (``NeedsDRAReconcile``).

kbatch computes the same resources wherever the queue manager builds a pending Workload's ``Info``
(:class:`DraResolver` is the queue manager's ``dra`` hook), so every path that queues a Workload —
its events, LimitRange events, requeues — counts its devices; upstream routes those through the
reconcile instead, with the same result.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.api.resource_v1.claim import ResourceClaimSpec, ResourceClaimTemplate
from kbatch.controllers.kueue.model.dra import (
    CLAIMS_REFUSED,
    DRA_DISABLED_REFUSED,
    DraOutcome,
    has_dra,
    has_resource_claim,
    requests_for_templates,
)

__all__ = ["DraResolver", "DraRetry"]


class DraRetry(Exception):
    """A DRA internal error: the reconcile is retried with the controller's back-off."""


def _on_hold(wl: Workload) -> bool:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == Cond.QUOTA_RESERVED:
            return c.status == "False" and c.reason == Reason.ON_HOLD
    return False


class DraResolver:
    """See the module docstring. Pickles as its cache and settings."""

    __slots__ = ("cache", "enabled", "mapping", "reject_when_disabled")

    def __init__(
        self, cache: Any, mapping: dict[str, str], enabled: bool, reject_when_disabled: bool
    ) -> None:
        self.cache = cache
        self.mapping = mapping
        self.enabled = enabled  # KueueDRAIntegration
        self.reject_when_disabled = reject_when_disabled  # KueueDRARejectWorkloadsWhenDRADisabled

    def needs(self, wl: Workload) -> bool:
        """``NeedsDRAReconcile`` (the extended-resource half is not modelled): with the gate off,
        only to refuse it (``KueueDRARejectWorkloadsWhenDRADisabled``)."""
        if not (self.enabled or self.reject_when_disabled):
            return False
        return has_dra(wl) and not _on_hold(wl)

    def template(self, namespace: str, name: str) -> ResourceClaimSpec | None:
        try:
            tmpl = self.cache.get(ResourceClaimTemplate, name, namespace)
        except NotFound:
            return None
        return tmpl.spec.spec

    def __call__(self, wl: Workload) -> DraOutcome | None:
        """The Workload's DRA outcome, or ``None`` when the DRA path does not apply to it."""
        if not self.needs(wl):
            return None
        if not self.enabled:
            return DRA_DISABLED_REFUSED
        if has_resource_claim(wl):
            return CLAIMS_REFUSED
        return requests_for_templates(wl, self.template, self.mapping)

    def __getstate__(self) -> Any:
        return self.cache, self.mapping, self.enabled, self.reject_when_disabled

    def __setstate__(self, state: Any) -> None:
        self.cache, self.mapping, self.enabled, self.reject_when_disabled = state
