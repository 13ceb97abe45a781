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
reconcile is retried with back-off; then ``ResolveExtendedResourceQuota`` when
``KueueDRAIntegrationExtendedResource`` is on, merged with ``mergeDRAResources``) and
``pkg/dra/extended_resources.go`` (``NeedsDRAReconcile``). Each reconcile reads the ResourceSlices
afresh (``NewResourceSliceCache`` per reconcile), here the informer cache's, in name order.

kbatch computes the same resources wherever the queue manager builds a pending Workload's ``Info``
(:class:`DraResolver` is the queue manager's ``dra`` hook), so every path that queues a Workload —
its events, LimitRange events, requeues — counts its devices; upstream routes those through the
reconcile instead, with the same result.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kbatch.api.errors import FieldError, NotFound
from kbatch.api.kueue_config_dra import DeviceClassMapping
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.api.resource_v1.claim import ResourceClaimSpec, ResourceClaimTemplate
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.controllers.kueue.model.dra import (
    CLAIMS_REFUSED,
    DRA_DISABLED_REFUSED,
    DraOutcome,
    has_dra,
    has_resource_claim,
    mapper,
    requests_for_templates,
)
from kbatch.controllers.kueue.model.dra_capacity import capacity_requests
from kbatch.controllers.kueue.model.dra_counters import counter_requests
from kbatch.controllers.kueue.model.dra_devices import (
    ClusterDevices,
    slices_for,
    validate_selectors_against_devices,
)
from kbatch.controllers.kueue.model.dra_extended import (
    ExtendedResourceCache,
    requests_extended,
    resolve_extended,
)
from kbatch.controllers.kueue.model.dra_sources import PodSetCharges, SourceConfigs
from kbatch.controllers.kueue.model.requests import set_binary_formatted

__all__ = ["DraGates", "DraResolver", "DraRetry", "merge_requests"]


class DraRetry(Exception):
    """A DRA internal error: the reconcile is retried with the controller's back-off."""


def _on_hold(wl: Workload) -> bool:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == Cond.QUOTA_RESERVED:
            return c.status == "False" and c.reason == Reason.ON_HOLD
    return False


def merge_requests(a: dict[str, dict[str, int]], b: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """``mergeDRAResources``: per pod set, per resource, the sum."""
    out = {k: dict(v) for k, v in a.items()}
    for ps, res in b.items():
        merged = out.setdefault(ps, {})
        for name, n in res.items():
            merged[name] = merged.get(name, 0) + n
    return out


class DraGates:
    """The gates the DRA path reads."""

    __slots__ = ("capacity", "counters", "enabled", "extended", "reject_when_disabled")

    def __init__(
        self,
        enabled: bool,
        reject_when_disabled: bool,
        extended: bool = False,
        counters: bool = False,
        capacity: bool = False,
    ) -> None:
        self.enabled = enabled  # KueueDRAIntegration
        self.reject_when_disabled = reject_when_disabled  # KueueDRARejectWorkloadsWhenDRADisabled
        self.extended = extended  # KueueDRAIntegrationExtendedResource
        self.counters = counters  # KueueDRAIntegrationPartitionableDevices
        self.capacity = capacity  # KueueDRAIntegrationConsumableCapacity

    def __getstate__(self) -> Any:
        return self.enabled, self.reject_when_disabled, self.extended, self.counters, self.capacity

    def __setstate__(self, state: Any) -> None:
        self.enabled, self.reject_when_disabled, self.extended, self.counters, self.capacity = state


class DraResolver:
    """See the module docstring. ``backed`` is the extended resources DeviceClasses back
    (``draBackedResources``), kept by :class:`~kbatch.controllers.kueue.dra_handlers.DeviceClassHandler`.
    Pickles as its cache, mappings, source configs and gates."""

    __slots__ = ("backed", "cache", "gates", "mapping", "sources")

    def __init__(self, cache: Any, mappings: Sequence[DeviceClassMapping], gates: DraGates) -> None:
        self.cache = cache
        self.mapping = mapper(mappings)
        self.sources = SourceConfigs.of(mappings)
        self.gates = gates
        self.backed = ExtendedResourceCache()
        self._register_formats()

    def _register_formats(self) -> None:
        """main.go registers the counter- and capacity-based resources for binary display when
        ``KueueDRAIntegration`` is on."""
        names = self.sources.binary_resources(self.mapping) if self.gates.enabled else frozenset()
        set_binary_formatted(names)

    @property
    def enabled(self) -> bool:
        return self.gates.enabled

    @property
    def drivers(self) -> frozenset[str]:
        """The counter and capacity sources' drivers (the ResourceSlice reconciler's)."""
        return frozenset(d for ds in self._drivers_by_class().values() for d in ds)

    def _drivers_by_class(self) -> dict[str, tuple[str, ...]]:
        """Per sourced DeviceClass, its counter sources' drivers, then its capacity sources'."""
        s = self.sources
        return {
            dc: tuple(src.driver for _, src in s.counters.get(dc, ()))
            + tuple(src.driver for src in s.capacity.get(dc, ()))
            for dc in sorted(set(s.counters) | set(s.capacity))
        }

    def needs(self, wl: Workload) -> bool:
        """``NeedsDRAReconcile``: with the gate off, only to refuse it
        (``KueueDRARejectWorkloadsWhenDRADisabled``)."""
        g = self.gates
        if not (g.enabled or g.reject_when_disabled) or _on_hold(wl):
            return False
        if not g.enabled or has_dra(wl):
            return has_dra(wl)
        return g.extended and requests_extended(wl, self.backed)

    def template(self, namespace: str, name: str) -> ResourceClaimSpec | None:
        try:
            tmpl = self.cache.get(ResourceClaimTemplate, name, namespace)
        except NotFound:
            return None
        return tmpl.spec.spec

    def device_class(self, name: str) -> DeviceClass | None:
        try:
            return self.cache.get(DeviceClass, name)  # type: ignore[no-any-return]
        except NotFound:
            return None

    def class_selectors(self, name: str) -> list[str] | None:
        dc = self.device_class(name)
        if dc is None:
            return None
        return [s.cel.expression for s in dc.spec.selectors or () if s.cel is not None and s.cel.expression]

    def slices(self, driver: str | None) -> list[ResourceSlice]:
        slices: list[ResourceSlice] = self.cache.list(ResourceSlice)
        return slices if driver is None else [s for s in slices if s.spec.driver == driver]

    def classes_for(self, name: str) -> list[DeviceClass]:
        """DeviceClasses whose ``extendedResourceName`` is ``name`` (upstream's field index)."""
        if not self.backed.has(name):
            return []
        found = (self.device_class(dc) for dc in sorted(self.backed.resources[name]))
        return [dc for dc in found if dc is not None and dc.spec.extended_resource_name == name]

    def sourced(self, device_class: str) -> str | None:
        """Which sources charge ``device_class`` instead of its devices, their gate on."""
        if self.gates.counters and self.sources.counters.get(device_class):
            return "counter"
        if self.gates.capacity and self.sources.capacity.get(device_class):
            return "capacity"
        return None

    def check_devices(self, spec: ResourceClaimSpec, base: str) -> list[FieldError]:
        """``validateCELSelectorsAgainstDevices`` against the informer cache's slices."""
        sources = self._drivers_by_class()
        return validate_selectors_against_devices(
            spec, base, lambda reqs: ClusterDevices(slices_for(reqs, sources, self.slices), self.device_class)
        )

    def _charges(self, wl: Workload) -> Iterator[PodSetCharges]:
        """The counter pass, then the capacity pass (each with its gate; kbatch always serves the
        ResourceSlice API)."""
        if self.gates.counters and self.sources.counters:
            yield counter_requests(wl, self.template, self.sources, self.class_selectors, self.slices)
        if self.gates.capacity and self.sources.capacity:
            yield capacity_requests(
                wl, self.template, self.sources, self.mapping, self.class_selectors, self.slices
            )

    def __call__(self, wl: Workload) -> DraOutcome | None:
        """The Workload's DRA outcome, or ``None`` when the DRA path does not apply to it."""
        if not self.needs(wl):
            return None
        if not self.gates.enabled:
            return DRA_DISABLED_REFUSED
        if has_resource_claim(wl):
            return CLAIMS_REFUSED
        outcome = requests_for_templates(
            wl, self.template, self.mapping, self.check_devices, lambda dc: self.sourced(dc) is not None
        )
        if outcome.inadmissible:
            return outcome
        requests, replaced = outcome.requests, outcome.replaced
        if self.gates.extended:
            ext = resolve_extended(wl, self.classes_for, self.mapping, self.sourced)
            if ext.errors:
                return DraOutcome(errors=ext.errors)
            requests, replaced = merge_requests(requests, ext.requests), ext.replaced
        for charges, errors in self._charges(wl):
            if errors:
                return DraOutcome(errors=errors)
            requests = merge_requests(requests, charges)
        return DraOutcome(requests, replaced=replaced)

    def __getstate__(self) -> Any:
        return self.cache, self.mapping, self.sources, self.gates, self.backed

    def __setstate__(self, state: Any) -> None:
        self.cache, self.mapping, self.sources, self.gates, self.backed = state
        self._register_formats()
