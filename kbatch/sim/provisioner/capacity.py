"""Does the cluster's free capacity hold every pod of a request at once? The pure half of the
simulated provisioner.

Upstream the cluster-autoscaler's check-capacity class runs its scheduling simulation over a snapshot
of the cluster (kubernetes/autoscaler ``cluster-autoscaler/provisioningrequest/orchestrator`` and
``checkcapacity/provisioningclass.go``: ``TrySchedulePods`` with ``breakOnFailure``; every pod must
land, or the capacity is not found). kbatch's simulation counts what kube-scheduler's Fit,
NodeUnschedulable, NodeAffinity (``nodeSelector``) and TaintToleration filters count: a node's
allocatable less the requests of the pods bound to it, nodes that are schedulable, the pod's
``nodeSelector`` and ``NoSchedule``/``NoExecute`` taints. Pods are placed one after another,
first fit over nodes in name order, each placement taking its share (the snapshot the autoscaler
forks). Affinity terms, topology spread, host ports and DRA claims are not simulated (docs/simulation.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kbatch.api.core_v1 import Node, Pod, PodSpec, Taint, Toleration
from kbatch.api.pod_resources import ContainerRequests, Resources, add_into, fits, pod_requests
from kbatch.api.quantity import Quantity
from kbatch.api.tolerations import tolerates

__all__ = ["FreeNode", "PodShape", "all_fit", "free_nodes", "shape_of"]


def _units(amounts: Mapping[str, Quantity] | None) -> Resources:
    return {k: v.milli_value() if k == "cpu" else v.value() for k, v in (amounts or {}).items()}


def _container(resources: object) -> Resources:
    if resources is None:
        return {}
    merged = dict(getattr(resources, "limits", None) or {})  # limits stand in for missing requests
    merged.update(getattr(resources, "requests", None) or {})
    return _units(merged)


@dataclass(frozen=True, slots=True)
class PodShape:
    """What the simulation needs of one pod: its requests, node selector and tolerations."""

    requests: Mapping[str, int]
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()


def shape_of(spec: PodSpec) -> PodShape:
    """A pod template's shape: ``PodRequests`` (containers, the init containers' max rule, pod-level
    resources, overhead), as kube-scheduler's Fit plugin counts it."""
    containers = [_container(c.resources) for c in spec.containers or ()]
    inits = [
        ContainerRequests(_container(c.resources), c.restart_policy == "Always")
        for c in spec.init_containers or ()
    ]
    level = _units(spec.resources.requests) if spec.resources is not None else None
    requests = pod_requests(containers, inits, level or None, _units(spec.overhead) or None)
    return PodShape({**requests, "pods": 1}, dict(spec.node_selector or {}), tuple(spec.tolerations or ()))


@dataclass(slots=True)
class FreeNode:
    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    allocatable: Mapping[str, int]
    requested: Resources


def free_nodes(nodes: Iterable[Node], pods_on: Mapping[str, Sequence[Pod]]) -> list[FreeNode]:
    """The schedulable nodes in name order, each with what its non-terminated pods request (a node not
    Ready carries the node lifecycle controller's ``not-ready`` taint, which the pods must tolerate)."""
    out = []
    for node in sorted(nodes, key=lambda n: n.metadata.name or ""):
        if node.spec is not None and node.spec.unschedulable:
            continue
        name = node.metadata.name or ""
        requested: Resources = {}
        for pod in pods_on.get(name, ()):
            phase = pod.status.phase if pod.status else None
            if phase not in ("Succeeded", "Failed") and pod.spec is not None:
                add_into(requested, shape_of(pod.spec).requests)
        allocatable = _units((node.status.allocatable or node.status.capacity) if node.status else None)
        taints = tuple(node.spec.taints or ()) if node.spec else ()
        out.append(FreeNode(name, dict(node.metadata.labels or {}), taints, allocatable, requested))
    return out


def _tolerates(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    """``Toleration.ToleratesTaint`` of any of ``tolerations`` (k8s.io/api core/v1 ``toleration.go``)."""
    return any(tolerates(t, taint) for t in tolerations)


def _feasible(node: FreeNode, pod: PodShape) -> bool:
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    if any(
        t.effect in ("NoSchedule", "NoExecute") and not _tolerates(pod.tolerations, t) for t in node.taints
    ):
        return False
    return not fits(node.requested, node.allocatable, pod.requests)


def all_fit(nodes: list[FreeNode], pods: Iterable[PodShape]) -> bool:
    """Whether every pod finds a node, each placement consuming its requests (``nodes`` is changed:
    pass a fresh list)."""
    for pod in pods:
        node = next((n for n in nodes if _feasible(n, pod)), None)
        if node is None:
            return False
        add_into(node.requested, pod.requests)
    return True
