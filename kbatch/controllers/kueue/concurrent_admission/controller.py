"""The concurrent-admission controller: a parent's Variants, and the parent following them.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/controller.go``
(``variantReconciler``: ``Reconcile``, ``setupWithManager``, ``clusterQueueFlavorsChanged``,
``parentsForClusterQueue``). The decisions are :func:`.plan.plan`'s; this module reads the parent,
its Variants (the Workloads it owns) and its ClusterQueue from the cache, applies the effects in
order through the client, and records upstream's events (``CreatedVariant``, ``DeletedVariant``,
``ActivatedVariant``, ``DeactivatedVariant``, ``PreemptionUngatedVariant``).

As upstream: a parent whose LocalQueue or ClusterQueue is missing fails the reconcile, which is
retried with the controller's back-off; a ClusterQueue whose flavors changed enqueues its parents
after ``UpdatesBatchPeriod`` (:class:`Batched`).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import AlreadyExists, Conflict, NotFound
from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue, Workload
from kbatch.controllers.kueue.concurrent_admission import variants as V
from kbatch.controllers.kueue.concurrent_admission.effects import (
    CreateVariant,
    DeleteVariant,
    Effect,
    SetActive,
    event_of,
    mutate_status,
)
from kbatch.controllers.kueue.concurrent_admission.plan import Inputs, plan
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.runtime.cache.indexer import BY_OWNER_UID
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = [
    "CONTROLLER",
    "Batched",
    "FlavorsChanged",
    "ParentOf",
    "ParentsOfClusterQueue",
    "VariantReconciler",
]

CONTROLLER = "kueue-concurrent-admission"  # upstream: concurrent-admission-controller


class ParentOf:
    """A Workload event → its parent: a parent itself, a Variant its owner (``shouldReconcile``)."""

    def __call__(self, wl: Any) -> list[Request]:
        namespace = wl.metadata.namespace or ""
        if V.is_parent(wl):
            return [Request(namespace, wl.metadata.name or "")]
        if V.is_variant(wl):
            return [Request(namespace, V.parent_name(wl))]
        return []


class FlavorsChanged:
    """``clusterQueueFlavorsChanged``: only updates whose resource groups' flavor names differ."""

    def create(self, obj: Any) -> bool:
        return False

    def delete(self, obj: Any) -> bool:
        return False

    def update(self, old: Any, new: Any) -> bool:
        return _flavor_names(old) != _flavor_names(new)


def _flavor_names(cq: Any) -> list[list[str]]:
    groups = (cq.spec.resource_groups if cq.spec else None) or ()
    return [[f.name or "" for f in rg.flavors or ()] for rg in groups]


class ParentsOfClusterQueue:
    """``parentsForClusterQueue``: the parents queued in the ClusterQueue's LocalQueues."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __call__(self, cq: Any) -> list[Request]:
        from kbatch.controllers.kueue.manager import BY_QUEUE, LQ_BY_CQ

        out = []
        for lq in self.cache.list(LocalQueue, index=(LQ_BY_CQ, cq.metadata.name or "")):
            key = f"{lq.metadata.namespace}/{lq.metadata.name}"
            for wl in self.cache.list(Workload, lq.metadata.namespace, index=(BY_QUEUE, key)):
                if V.is_parent(wl):
                    out.append(Request(wl.metadata.namespace or "", wl.metadata.name or ""))
        return out

    def __getstate__(self) -> Any:
        return self.cache

    def __setstate__(self, state: Any) -> None:
        self.cache = state


class Batched:
    """A mapper whose requests are enqueued after ``constants.UpdatesBatchPeriod`` (1 s): upstream's
    ClusterQueue handler adds each parent with ``q.AddAfter(req, UpdatesBatchPeriod)``, so a flavor
    change reaches the parents a second later and changes within that second are seen together."""

    maps_old_on_update = False

    def __init__(self, mgr: KueueManager, mapper: ParentsOfClusterQueue) -> None:
        self.mgr, self.mapper = mgr, mapper

    def __call__(self, obj: Any) -> list[Request]:
        for request in self.mapper(obj):
            self.mgr.enqueue_batched(CONTROLLER, request)
        return []


class VariantReconciler:
    """See the module docstring."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def reconcile(self, request: Request) -> Result | None:
        mgr = self.mgr
        parent = mgr.get(Workload, request.name, request.namespace)
        if parent is None or not V.is_parent(parent):
            return None
        cq = self._cluster_queue(parent)
        variants = mgr.ctx.cache.list(Workload, request.namespace, index=(BY_OWNER_UID, parent.metadata.uid))
        inputs = Inputs(
            V.flavor_order(cq),
            V.policy_of(cq) or V.Policy(),
            mgr.now(),
            mgr.observability,
            mgr.explicit_status,
            mgr.settings.on("AdmissionGatedBy"),
            mgr.settings.on("ShortWorkloadNames"),
        )
        decided = plan(parent, list(variants), inputs)
        for effect in decided.effects:
            self._apply(parent, effect)
        return Result(requeue_after=decided.requeue_after) if decided.requeue_after > 0 else None

    def _cluster_queue(self, parent: Workload) -> ClusterQueue:
        """``getClusterQueue``: a LocalQueue or ClusterQueue the queue manager does not know, or a
        ClusterQueue the cache does not hold, is an error, so the reconcile is retried with the
        controller's back-off (5 ms doubling to 1000 s) as upstream returns it."""
        mgr = self.mgr
        name = mgr.queues.cluster_queue_for(parent)
        if name is None or name not in mgr.queues.cluster_queues:
            key = f"{parent.metadata.namespace}/{parent.metadata.name}"
            raise LookupError(f"could not find cluster queue for workload {key}")
        cq = mgr.get(ClusterQueue, name)
        if cq is None:
            raise NotFound.of("clusterqueues.kueue.x-k8s.io", name)
        return cq

    # --- effects -----------------------------------------------------------------------------------
    def _apply(self, parent: Workload, effect: Effect) -> None:
        if isinstance(effect, CreateVariant):
            done = self._create(effect)
        elif isinstance(effect, DeleteVariant):
            with contextlib.suppress(NotFound):
                self.mgr.ctx.client.delete(Workload, effect.name, parent.metadata.namespace)
            done = True
        elif isinstance(effect, SetActive):
            done = self._set_active(parent, effect)
        else:
            done = self._write_status(parent, effect)
        event = event_of(effect, parent) if done else None
        if event is not None:
            name, reason, message = event
            about = parent
            if name != parent.metadata.name:
                about = self.mgr.get(Workload, name, parent.metadata.namespace) or parent
            self.mgr.recorder.event(about, "Normal", reason, message)

    def _create(self, e: CreateVariant) -> bool:
        try:
            self.mgr.ctx.client.create(e.workload)
        except AlreadyExists:
            return False
        return True

    def _set_active(self, parent: Workload, e: SetActive) -> bool:
        """``activateWl``/``deactivateWl`` (retried on conflict from the stored object); whether
        ``spec.active`` was written."""
        client, namespace = self.mgr.ctx.client, parent.metadata.namespace
        for _ in range(3):
            try:
                obj = edit(client.get(Workload, e.name, namespace))
            except NotFound:
                return False
            if obj.spec is None or (obj.spec.active is not False) == e.active:
                return False
            obj.spec.active = e.active
            try:
                client.update(obj)
            except Conflict:
                continue
            return True
        raise Conflict(f"workloads {e.name}: could not set spec.active")

    def _write_status(self, parent: Workload, e: Any) -> bool:
        mgr = self.mgr
        current = mgr.get(Workload, e.name, parent.metadata.namespace)
        if current is None:
            return False
        now, obs, explicit = mgr.now(), mgr.observability, mgr.explicit_status
        written = write_status(mgr, current, lambda st, obj: mutate_status(e, st, obj, now, obs, explicit))
        return written is not None
