"""MultiKueueConfig events → the Workloads dispatched under it (``configHandler``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``configHandler``, ``queueWorkloadsForConfig``): when a config's ``spec.clusters`` changes or the
config is deleted, every Workload carrying a MultiKueue check that names the config
(``status.admissionChecks``) is reconciled after the events batch period, so copies on a cluster
taken out of the config are dealt with and a new cluster gets its copy. A new config queues nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.kueue_v1beta2 import MultiKueueConfig, Workload
from kbatch.controllers.kueue.multikueue.admissioncheck import checks_using_config
from kbatch.controllers.kueue.multikueue.context import WORKLOAD_CONTROLLER
from kbatch.runtime.reconcile import Request

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["ConfigWorkloads"]


def _clusters(config: MultiKueueConfig) -> list[str]:
    return list((config.spec.clusters if config.spec else None) or ())


class ConfigWorkloads:
    """An informer handler on MultiKueueConfig that queues the workload reconciler."""

    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def on_add(self, config: MultiKueueConfig) -> None:
        pass

    def on_update(self, old: MultiKueueConfig, new: MultiKueueConfig) -> None:
        if _clusters(old) != _clusters(new):
            self._queue(old.metadata.name or "")

    def on_delete(self, config: MultiKueueConfig) -> None:
        self._queue(config.metadata.name or "")

    def _queue(self, config: str) -> None:
        cache: Any = self.mk.ctx.cache
        checks = set(checks_using_config(cache, config))
        if not checks:
            return
        keys = sorted(
            (wl.metadata.namespace or "", wl.metadata.name or "")
            for wl in cache.list(Workload)
            if any(a.name in checks for a in (wl.status.admission_checks if wl.status else None) or ())
        )
        for key in keys:
            self.mk.enqueue(WORKLOAD_CONTROLLER, Request(*key), self.mk.options.events_batch_period)
