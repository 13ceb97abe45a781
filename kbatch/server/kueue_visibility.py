"""Kueue's visibility API on ``kbatch serve``: the handlers of ``visibility.kueue.x-k8s.io``'s
``clusterqueues/NAME/pendingworkloads`` and ``namespaces/NS/localqueues/NAME/pendingworkloads``
(declared by the kueue family, ``families/kueue/visibility.py``; answered from the pure
:mod:`kbatch.controllers.kueue.visibility`).

Upstream, kueue-controller-manager runs the visibility server with a pointer to its queue manager and
registers it as the APIServices ``v1beta2`` and ``v1beta1.visibility.kueue.x-k8s.io``
(kueue ``pkg/visibility/server.go``, ``config/components/visibility/``). Here the Kueue controller
publishes its manager on the control plane (``cp.published``, under ``KUEUE_MANAGER``); where no
Kueue manager runs in this process (``--controllers`` without ``kueue``), or its ``VisibilityOnDemand``
gate is off, the APIService has no backend: the aggregator's 503.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import NotFound, ServiceUnavailable
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.manager import KUEUE_MANAGER, KueueManager
from kbatch.controllers.kueue.visibility import (
    cluster_queue_summary,
    local_queue_summary,
    pending_options,
    pending_snapshot,
)
from kbatch.controllers.kueue.visibility.summary import GROUP, summary

if TYPE_CHECKING:
    from kbatch.server.virtual import VirtualCall

__all__ = ["kueue_manager", "serve_cluster_queue_pending", "serve_local_queue_pending"]

Obj = dict[str, Any]


def kueue_manager(call: VirtualCall) -> KueueManager:
    """The Kueue manager running in this process, or the 503 of an APIService without a backend."""
    cp = getattr(call.backend, "control_plane", None)
    mgr = cp.published.get(KUEUE_MANAGER) if cp is not None else None
    if mgr is None or not mgr.settings.on("VisibilityOnDemand"):
        raise ServiceUnavailable("the server is currently unable to handle the request")
    return mgr


def _pending(mgr: KueueManager, cq_name: str) -> list[Workload] | None:
    cq = mgr.queues.cluster_queues.get(cq_name)
    return None if cq is None else [info.obj for info in pending_snapshot(cq)]


def serve_cluster_queue_pending(call: VirtualCall) -> Obj:
    """``GET clusterqueues/NAME/pendingworkloads`` (``pendingWorkloadsInCqREST.Get``)."""
    mgr = kueue_manager(call)
    opts = pending_options(call.params)
    name = call.name or ""
    pending = _pending(mgr, name)
    if pending is None:
        raise NotFound.of(f"clusterqueue.{GROUP}", name)
    return summary(call.resource.api_version, cluster_queue_summary(pending, opts))


def serve_local_queue_pending(call: VirtualCall) -> Obj:
    """``GET namespaces/NS/localqueues/NAME/pendingworkloads`` (``pendingWorkloadsInLqREST.Get``): a
    LocalQueue the manager does not know is a 404; one whose ClusterQueue it does not know has none."""
    mgr = kueue_manager(call)
    opts = pending_options(call.params)
    namespace, name = call.namespace or "", call.name or ""
    lq = mgr.queues.local_queues.get(f"{namespace}/{name}")
    if lq is None:
        raise NotFound.of(f"localqueue.{GROUP}", name)
    pending = _pending(mgr, lq.cluster_queue) or []
    return summary(call.resource.api_version, local_queue_summary(pending, namespace, name, opts))
