"""The cluster as the scheduler sees it: per-node aggregates kept up to date incrementally.

Upstream keeps a cache of ``NodeInfo`` (``pkg/scheduler/backend/cache``) and takes a cheap
snapshot per cycle. kbatch's loop is single-threaded, so the cache *is* the snapshot: adding or
removing a pod updates its node's ``requested`` sums in O(resources), and every change bumps that
node's ``generation`` (and static changes bump ``static_generation``), which is what lets the
framework reuse filter results for nodes that did not change.

Nodes are kept in name order; nothing iterates a set or a dict whose order could depend on
arrival.

The snapshot also holds the **nominator** (upstream ``pkg/scheduler/backend/queue/nominator.go``):
pending pods that preemption nominated to a node (``status.nominatedNodeName``), by node. They are
not on the node; the framework adds those of equal or higher priority when it filters that node for
another pod (:meth:`Snapshot.nominated_for`), so the room a preemptor freed stays reserved for it.
A change of nominations bumps ``generation`` (a cached failure may no longer hold), never
``static_generation``.

It also keeps PodTopologySpread's counts of pods matching a selector per node and per topology
domain (:mod:`.selector_counts`), updated as pods are added and removed on known nodes.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping

from kbatch.api.pod_resources import PODS, Resources, add_into, subtract_into
from kbatch.controllers.scheduler.selector_counts import SelectorCounts, SelectorIndex
from kbatch.controllers.scheduler.types import LabelSelector, NodeShape, PodInfo

__all__ = ["NodeInfo", "Snapshot"]


class NodeInfo:
    """A node and the pods bound (or assumed) to it, with their request sums."""

    __slots__ = ("counts", "generation", "nonzero_requested", "pods", "requested", "shape")

    def __init__(self, shape: NodeShape) -> None:
        self.shape = shape
        self.pods: dict[str, PodInfo] = {}
        self.requested: Resources = {}
        self.nonzero_requested: Resources = {}
        self.generation = 0
        # plugins' memo of counts over this node's pods (PodTopologySpread: pods matching a
        # selector), emptied whenever a pod is added or removed
        self.counts: dict[object, int] = {}

    @property
    def name(self) -> str:
        return self.shape.name

    def add_pod(self, pod: PodInfo, key: str | None = None) -> None:
        self.pods[key or pod.key] = pod
        if self.counts:
            self.counts = {}
        add_into(self.requested, pod.requests)
        self.requested[PODS] = self.requested.get(PODS, 0) + 1
        add_into(self.nonzero_requested, pod.nonzero_requests)
        self.generation += 1

    def remove_pod(self, key: str) -> PodInfo | None:
        pod = self.pods.pop(key, None)
        if pod is not None:
            if self.counts:
                self.counts = {}
            subtract_into(self.requested, pod.requests)
            self.requested[PODS] -= 1
            subtract_into(self.nonzero_requested, pod.nonzero_requests)
            self.generation += 1
        return pod

    def clone(self) -> NodeInfo:
        """A copy for what-if evaluation (preemption); pods are shared, sums are not."""
        copy = NodeInfo(self.shape)
        copy.pods = dict(self.pods)
        copy.requested = dict(self.requested)
        copy.nonzero_requested = dict(self.nonzero_requested)
        copy.generation = self.generation
        return copy

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)}, requested={self.requested})"


def _footprint(pod: PodInfo) -> tuple[object, ...]:
    return (pod.requests, pod.nonzero_requests, pod.host_ports, pod.labels, pod.affinity, pod.anti_affinity,
            pod.preferred_affinity, pod.preferred_anti_affinity, pod.spread_constraints,
            pod.terminating)  # PodTopologySpread does not count terminating pods


class Snapshot:
    """Nodes by name, in name order, and where each pod is."""

    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._order: list[str] = []
        self._pod_node: dict[str, str] = {}
        self._orphans: dict[str, PodInfo] = {}  # bound to a node the snapshot does not know (yet)
        self.with_anti_affinity: dict[str, PodInfo] = {}  # placed pods with required anti-affinity
        # placed pods whose terms InterPodAffinity scores against others (required affinity,
        # preferred affinity or anti-affinity; upstream NodeInfo.PodsWithAffinity)
        self.with_affinity: dict[str, PodInfo] = {}
        self.static_generation = 0  # bumped whenever any node's labels/taints/allocatable change
        self.generation = 0  # bumped on every change
        # the nominator: node -> pod key -> nominated pending pod (read-only outside), pod key -> node
        self.nominated: dict[str, dict[str, PodInfo]] = {}
        self._nominated_node: dict[str, str] = {}
        # told of every nomination dropped or replaced (KEP-5690 ``RemoveNominatedPod``: plugins
        # holding capacity for a nominated pod release it); a bound method, for the image's pickle
        self.on_unnominate: Callable[[PodInfo], None] | None = None
        self._selectors = SelectorIndex(self._node_labels)  # a bound method: the image pickles it

    def _node_labels(self, name: str) -> Mapping[str, str]:
        return self._nodes[name].shape.labels

    # nodes -----------------------------------------------------------------------------------
    def set_node(self, shape: NodeShape) -> NodeInfo:
        info = self._nodes.get(shape.name)
        if info is None:
            info = NodeInfo(shape)
            self._nodes[shape.name] = info
            bisect.insort(self._order, shape.name)
            # pods that arrived before their node (informer order) are attached now
            for key in [k for k in self._orphans if self._pod_node.get(k) == shape.name]:
                pod = self._orphans.pop(key)
                info.add_pod(pod, key)
                self._selectors.change(pod, shape.name, 1)
        else:
            if info.shape.labels != shape.labels:
                self._selectors.relabelled()
            info.shape = shape
            info.generation += 1
        self.static_generation += 1
        self.generation += 1
        return info

    def remove_node(self, name: str) -> None:
        info = self._nodes.get(name)
        if info is None:
            return
        for pod in info.pods.values():
            self._selectors.change(pod, name, -1)
        del self._nodes[name]
        self._order.pop(bisect.bisect_left(self._order, name))
        for key, pod in info.pods.items():
            self._orphans[key] = pod
        self.static_generation += 1
        self.generation += 1

    def get(self, name: str) -> NodeInfo | None:
        return self._nodes.get(name)

    def nodes(self) -> list[NodeInfo]:
        return [self._nodes[n] for n in self._order]

    def __iter__(self) -> Iterator[NodeInfo]:
        return (self._nodes[n] for n in self._order)

    def __len__(self) -> int:
        return len(self._order)

    # pods ------------------------------------------------------------------------------------
    def add_pod(self, pod: PodInfo, node_name: str) -> None:
        """Account ``pod`` on ``node_name`` (bound or assumed); replaces an earlier entry. The binding
        of an assumed pod with the same footprint changes nothing the plugins read: the entry is
        replaced without a new generation (upstream's cache confirms an assumed pod the same way)."""
        key = pod.key  # one string for every map below (100k pods: ~60 bytes each saved)
        if self._pod_node.get(key) == node_name and self._confirms(key, pod, node_name):
            return
        self.remove_pod(key)
        self._pod_node[key] = node_name
        if pod.anti_affinity:
            self.with_anti_affinity[key] = pod
        if pod.affinity or pod.preferred_affinity or pod.preferred_anti_affinity:
            self.with_affinity[key] = pod
        info = self._nodes.get(node_name)
        if info is None:
            self._orphans[key] = pod
        else:
            info.add_pod(pod, key)
            self._selectors.change(pod, node_name, 1)
        self.generation += 1

    def _confirms(self, key: str, pod: PodInfo, node_name: str) -> bool:
        """``pod`` replaces the entry of ``key`` on ``node_name`` in place when what filters and scores
        read of a pod on a node is the same: requests, host ports, labels, (anti-)affinity terms."""
        info = self._nodes.get(node_name)
        old = info.pods.get(key) if info is not None else None
        if old is None or _footprint(old) != _footprint(pod):
            return False
        assert info is not None
        info.pods[key] = pod
        return True

    def remove_pod(self, key: str) -> PodInfo | None:
        node = self._pod_node.pop(key, None)
        if node is None:
            return None
        self.generation += 1
        self.with_anti_affinity.pop(key, None)
        self.with_affinity.pop(key, None)
        info = self._nodes.get(node)
        if info is None:
            return self._orphans.pop(key, None)
        removed = info.remove_pod(key)
        if removed is not None:
            self._selectors.change(removed, node, -1)
        return removed

    def node_of(self, key: str) -> str | None:
        return self._pod_node.get(key)

    def selector_counts(self, namespace: str, selector: LabelSelector) -> SelectorCounts:
        """Pods of ``namespace`` matching the non-empty ``selector``, not terminating, per node and
        per topology domain (PodTopologySpread's ``countPodsMatchSelector`` over every node)."""
        return self._selectors.get(namespace, selector, self._placed)

    def keeps_counts(self, counts: SelectorCounts) -> bool:
        """Whether ``counts`` is still kept up to date (not dropped from the index since it was got)."""
        return self._selectors.holds(counts)

    def _placed(self) -> Iterator[tuple[str, PodInfo]]:
        for name in self._order:
            for pod in self._nodes[name].pods.values():
                yield name, pod

    # nominated pods (upstream nominator) -----------------------------------------------------
    def nominate(self, pod: PodInfo, node_name: str) -> None:
        """Reserve ``node_name`` for the pending ``pod`` (upstream ``addNominatedPod``: any earlier
        nomination of the pod is dropped first; an empty name only clears)."""
        if node_name and self._nominated_node.get(pod.key) == node_name:
            held = self.nominated[node_name]
            if held[pod.key].labels != pod.labels or held[pod.key].requests != pod.requests:
                self.generation += 1  # what the filters see of it changed
            held[pod.key] = pod  # the newest view; the same room
            return
        self.unnominate(pod.key)
        if not node_name:
            return
        self._nominated_node[pod.key] = node_name
        self.nominated.setdefault(node_name, {})[pod.key] = pod
        self.generation += 1

    def unnominate(self, key: str) -> PodInfo | None:
        """Drop ``key``'s nomination (upstream ``DeleteNominatedPodIfExists``); returns the pod."""
        node = self._nominated_node.pop(key, None)
        if node is None:
            return None
        pods = self.nominated[node]
        pod = pods.pop(key)
        if not pods:
            del self.nominated[node]
        self.generation += 1
        if self.on_unnominate is not None:
            self.on_unnominate(pod)
        return pod

    def has_nominations(self) -> bool:
        return bool(self._nominated_node)

    def nominated_node(self, key: str) -> str | None:
        return self._nominated_node.get(key)

    def nominated_for(self, node_name: str, pod: PodInfo) -> list[PodInfo]:
        """The pods nominated to ``node_name`` that ``pod`` must leave room for: priority at least
        ``pod``'s, ``pod`` itself excluded (upstream ``addGENominatedPods``), in key order."""
        pods = self.nominated.get(node_name)
        if not pods:
            return []
        return [p for key, p in sorted(pods.items()) if p.priority >= pod.priority and key != pod.key]
