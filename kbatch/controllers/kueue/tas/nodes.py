"""Node events that may let an inadmissible TAS Workload fit: retry the inadmissible Workloads.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/tas/resource_flavor.go``
(``NotifyNodeUpdate``: an update counts only when the node's unschedulable flag, allocatable, labels,
taints, condition statuses or annotations changed; ``nodeHandler``: a node matching a TAS flavor's
node labels and levels (old or new) reconciles that flavor; ``Reconcile``: a TAS flavor retries
the inadmissible Workloads of every active ClusterQueue). Upstream batches through the reconcile's
1 s delay; kbatch's requeue is batched by the ``kueue-requeue`` controller the same way.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Node

__all__ = ["TASNodeHandler"]


def _conditions(node: Node) -> dict[str, str]:
    return {c.type or "": c.status or "" for c in (node.status.conditions if node.status else None) or ()}


def _allocatable(node: Node) -> Any:
    return node.status.allocatable if node.status else None


def _scheduling_changed(old: Node, new: Node) -> bool:
    """``checkNodeSchedulingPropertiesChanged``."""
    os, ns = old.spec, new.spec
    return (
        (os.unschedulable if os else None) != (ns.unschedulable if ns else None)
        or _allocatable(old) != _allocatable(new)
        or (old.metadata.labels or {}) != (new.metadata.labels or {})
        or (os.taints if os else None) != (ns.taints if ns else None)
        or _conditions(old) != _conditions(new)
        or (old.metadata.annotations or {}) != (new.metadata.annotations or {})
    )


class TASNodeHandler:
    """The Node informer's handler (registered with TopologyAwareScheduling)."""

    def __init__(self, mgr: Any) -> None:
        self.mgr = mgr

    def on_add(self, node: Node) -> None:
        self._changed(node)

    def on_update(self, old: Node, new: Node) -> None:
        # most updates are status heartbeats of clusters without TAS flavors: look at those first
        if self._node_labels() and _scheduling_changed(old, new):
            self._changed(old, new)

    def on_delete(self, node: Node) -> None:
        self._changed(node)

    def _node_labels(self) -> list[dict[str, str]]:
        """The TAS flavors' node labels."""
        flavors = self.mgr.cache.flavors
        specs = [flavors[name].spec for name in sorted(flavors)]
        return [spec.node_labels or {} for spec in specs if spec is not None and spec.topology_name]

    def _changed(self, *nodes: Node) -> None:
        mgr = self.mgr
        if any(_matches(n, labels) for labels in self._node_labels() for n in nodes):
            active = [cq for cq in sorted(mgr.cache.cluster_queues) if mgr.cache.active(cq)]
            mgr.notify_retry_inadmissible(active)


def _matches(node: Node, labels: dict[str, str]) -> bool:
    """``NodeMatchesFlavor`` on the flavor's node labels (the levels are checked when the snapshot
    is built: a node lacking one is not part of the topology either way)."""
    have = node.metadata.labels or {}
    return all(have.get(k) == v for k, v in labels.items())
