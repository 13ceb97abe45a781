"""Node lifecycle: condition taints (``node-lifecycle``: TaintNodesByCondition's NoSchedule taints, the
rate-limited not-ready / unreachable NoExecute ones, node health, node events) and NoExecute
taint-based eviction (``taint-eviction-controller``), as kube-controller-manager names them."""

from __future__ import annotations

from typing import Any

from kbatch.controllers.nodelifecycle.controller import NodeLifecycle, TaintEviction
from kbatch.controllers.nodelifecycle.taints import (
    NOT_READY,
    UNREACHABLE,
    condition_taints,
    plan_eviction,
    wanted_taints,
)
from kbatch.controllers.nodelifecycle.zones import EvictionConfig
from kbatch.runtime.context import ControllerContext

__all__ = [
    "NOT_READY",
    "UNREACHABLE",
    "EvictionConfig",
    "NodeLifecycle",
    "TaintEviction",
    "condition_taints",
    "plan_eviction",
    "setup",
    "setup_taint_eviction",
    "wanted_taints",
]


def setup(ctx: ControllerContext) -> NodeLifecycle:
    """Catalog factory for ``node-lifecycle``: nodes, and node Leases (a renewal re-checks its node).

    Options (``ControlPlane(options={"node-lifecycle": {...}})``, kube-controller-manager's flags):
    ``node_monitor_grace_period`` (50 s), ``node_monitor_period`` (5 s), ``node_eviction_rate`` (0.1 nodes/s),
    ``secondary_node_eviction_rate`` (0.01), ``unhealthy_zone_threshold`` (0.55),
    ``large_cluster_size_threshold`` (50)."""
    from kbatch.api.coordination_v1 import Lease
    from kbatch.api.core_v1 import Node

    reconciler = NodeLifecycle(ctx)
    reconciler.controller = (ctx.build().describe("marks silent nodes NotReady; taints nodes by condition")
                             .for_(Node).watches(Lease, _node_of_lease).periodic().complete(reconciler))
    return reconciler


def _node_of_lease(lease: Any) -> list[Any]:
    """A node Lease (``kube-node-lease``) event → its node's request."""
    from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE
    from kbatch.runtime.reconcile import Request

    return [Request("", lease.metadata.name)] if lease.metadata.namespace == NODE_LEASE_NAMESPACE else []


def setup_taint_eviction(ctx: ControllerContext) -> TaintEviction:
    """Catalog factory for ``taint-eviction-controller``: a pod enqueues itself when it appears, goes,
    or changes tolerations or node; a node's ``NoExecute`` taint change enqueues the pods bound to it
    now (:mod:`.triggers`, upstream ``PodUpdated``, ``NodeUpdated``, ``handleNodeUpdate``)."""
    from kbatch.api.core_v1 import Node, Pod
    from kbatch.controllers.nodelifecycle.triggers import NoExecuteTaintsChanged, TolerationsOrNodeChanged
    from kbatch.runtime.handler import new_object_only
    from kbatch.runtime.mappers import PodsOnNode, bound_to_a_node
    from kbatch.runtime.predicate import predicate_func

    reconciler = TaintEviction(ctx)
    (ctx.build()
        .describe("evicts pods that do not tolerate NoExecute taints")
        .for_(Pod, predicate_func(bound_to_a_node), TolerationsOrNodeChanged())
        .watches(Node, new_object_only(PodsOnNode(ctx.cache)), NoExecuteTaintsChanged())
        .complete(reconciler))
    return reconciler
