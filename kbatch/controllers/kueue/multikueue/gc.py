"""MultiKueue's garbage collector: remote copies whose manager Workload is gone.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``
(``clustersReconciler.runGC``, ``remoteClient.runGC``): every ``gcInterval`` (``0``: never), for each
connected worker, every Workload labelled with this manager's origin whose manager Workload is missing
or being deleted is removed, after its controlling job (found by the owner's kind among the
adapters, and only when it carries our origin).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.multikueue import ORIGIN_LABEL
from kbatch.controllers.kueue.multikueue.adapters import delete_if_owned
from kbatch.controllers.kueue.multikueue.remote import ConnectionFailed, RemoteCluster

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["GarbageCollector"]


class GarbageCollector:
    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def start(self) -> None:
        if self.mk.options.gc_interval > 0:
            self._schedule()

    def _schedule(self) -> None:
        # housekeeping, like pod GC's sweep: it runs forever, so it is not pending work
        ctx = self.mk.ctx
        at = ctx.clock.now() + self.mk.options.gc_interval
        ctx.timers.schedule_call(at, self._tick, None, periodic=True)

    def _tick(self, _: object = None) -> None:
        self.run()
        self._schedule()

    def run(self) -> None:
        clusters = self.mk.clusters
        if clusters is None:
            return
        for name in sorted(clusters.states):
            state = clusters.connected(name)
            if state is not None and state.client is not None:
                with contextlib.suppress(ConnectionFailed):
                    self._collect(state.client)

    def _collect(self, remote: RemoteCluster) -> None:
        origin = self.mk.options.origin
        for wl in remote.list(Workload, {ORIGIN_LABEL: origin}):
            local = self.mk.get(Workload, wl.metadata.name or "", wl.metadata.namespace)
            if local is not None and local.metadata.deletion_timestamp is None:
                continue
            owner = wl.metadata.controller_ref()
            if owner is not None:
                adapter = self.mk.adapters.get(f"{owner.api_version}, Kind={owner.kind}")
                if adapter is not None:
                    delete_if_owned(adapter, remote, wl.metadata.namespace or "", owner.name, origin)
            with contextlib.suppress(NotFound):
                remote.delete(Workload, wl.metadata.name or "", wl.metadata.namespace)
