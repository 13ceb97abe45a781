"""Kueue's concurrent admission (``ConcurrentAdmission``, alpha, off by default).

Upstream: kubernetes-sigs/kueue v0.19.2, KEP ``keps/8691-concurrent-admission``;
``pkg/controller/concurrentadmission``, ``pkg/workload/concurrentadmission`` and the
``ConcurrentAdmission`` branches of the queue manager, the cache, the flavor assigner, the scheduler
and the workload controller. A Workload of a ClusterQueue with ``spec.concurrentAdmissionPolicy``
becomes a *parent*: never queued itself, it gets one *Variant* per flavor of the ClusterQueue's
resource group; the Variants compete for admission, the admitted one's admission is copied to the
parent (so its job starts on that flavor), and a more favourable Variant may later take over
(migration).

=============================  ======================================================
:mod:`.variants`               labels, annotations, names, the policy (pure)
:mod:`.effects`                what the controller writes, and the status changes
:mod:`.plan`                   one reconcile's decisions (pure)
:mod:`.siblings`               the scheduler's sibling and migration checks (pure)
:mod:`.controller`             ``kueue-concurrent-admission``: applies a plan
=============================  ======================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["setup"]


def setup(mgr: KueueManager) -> None:
    """Adds the controller (upstream: ``SetupControllers``, with the gate on)."""
    from kbatch.controllers.kueue.concurrent_admission.controller import (
        CONTROLLER,
        Batched,
        FlavorsChanged,
        ParentOf,
        ParentsOfClusterQueue,
        VariantReconciler,
    )

    ctx = mgr.ctx
    mgr.controllers[CONTROLLER] = (
        ctx.build(CONTROLLER)
        .describe("Kueue's concurrent admission: a parent Workload's Variants")
        .watches(Workload, ParentOf())
        .watches(ClusterQueue, Batched(mgr, ParentsOfClusterQueue(ctx.cache)), FlavorsChanged())
        .complete(VariantReconciler(mgr))
    )
