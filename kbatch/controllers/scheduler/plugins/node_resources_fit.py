"""NodeResourcesFit (PreFilter + Filter + Score): requests against allocatable.

Upstream ``pkg/scheduler/framework/plugins/noderesources/fit.go``: a node fits when it has room
for one more pod (reason "Too many pods") and, for every resource the pod requests, allocatable
minus what is already requested covers it (reason "Insufficient <resource>", one per resource).
Code Unschedulable, so preemption may help.

Queueing hints (``fit.go`` ``EventsToRegister``, KEP-4247): a deleted pod that was bound (or
nominated) may free room, as may a bound pod whose requests of a resource the pod wants shrank
(in-place resize; and the pod's own scale-down); a node added that could hold the pod when empty,
or whose allocatable grew in a resource the pod requests (or in pods) while it could hold it.

Scoring (``least_allocated.go`` / ``most_allocated.go``, ``resource_allocation.go``): for each
scored resource (default cpu and memory, weight 1 each) with a non-zero allocatable, with the
pod's request added to what the node already has (cpu/memory use the non-zero defaults of 100m /
200Mi for containers that request nothing), LeastAllocated scores ``(alloc - req) * 100 // alloc``
and MostAllocated ``req * 100 // alloc``; the node score is their weighted mean.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kbatch.api.pod_resources import CPU, MEMORY, PODS
from kbatch.api.resource_v1.constants import DEVICE_CLASS_PREFIX
from kbatch.controllers.dra.extended import is_dra_extended_name
from kbatch.controllers.scheduler.config import SchedulerConfigError, decode_int, invalid, plugin_args
from kbatch.controllers.scheduler.events import (
    QUEUE,
    QUEUE_SKIP,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    on_node,
    on_pod,
)
from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import NodeShape, PodInfo

__all__ = [
    "LEAST_ALLOCATED",
    "MOST_ALLOCATED",
    "TOO_MANY_PODS",
    "NodeResourcesFit",
    "dra_scored",
    "new",
    "resource_score",
    "scalar_allocatable_requested",
]

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
TOO_MANY_PODS = "Too many pods"


EPHEMERAL_STORAGE = "ephemeral-storage"
# upstream ``fitsRequest`` checks cpu, memory and ephemeral-storage first, then the scalar resources
_CHECK_ORDER = {CPU: 0, MEMORY: 1, EPHEMERAL_STORAGE: 2}


def insufficient(pod: PodInfo, node: NodeInfo, dra: Callable[[str], Any] | None = None) -> list[str]:
    """The failure reasons of ``pod`` on ``node`` (empty when it fits), in upstream's order.

    ``dra`` resolves an extended resource name to the DeviceClass backing it (KEP-5004,
    ``DRAExtendedResource``): a resource the node has no allocatable of (absent or 0) that a class
    maps is left to DynamicResources, as upstream ``fitsRequest``; a node that advertises it is
    checked here (the device plugin path)."""
    requested, allocatable = node.requested, node.shape.allocatable
    reasons: list[str] = []
    if requested.get(PODS, 0) + 1 > allocatable.get(PODS, 0):
        reasons.append(TOO_MANY_PODS)
    short: list[str] | None = None  # allocated only for a node the pod does not fit
    for name, want in pod.requests.items():
        if want > 0 and name != PODS and requested.get(name, 0) + want > allocatable.get(name, 0):
            if dra is not None and _backed_by_dra(name, allocatable, dra):
                continue
            if short is None:
                short = []
            short.append(name)
    if short is not None:
        if len(short) > 1:  # rare: only a pod short of several resources pays for the sort (stable)
            short.sort(key=lambda n: _CHECK_ORDER.get(n, 3))
        reasons.extend(f"Insufficient {name}" for name in short)
    return reasons


def _backed_by_dra(name: str, allocatable: Mapping[str, int], dra: Callable[[str], Any]) -> bool:
    """Upstream ``fitsRequest``: no allocatable of the resource on the node, and a DeviceClass maps it."""
    return allocatable.get(name, 0) == 0 and is_dra_extended_name(name) and dra(name) is not None


def is_scalar_resource(name: str) -> bool:
    """Upstream ``v1helper.IsScalarResourceName``: an extended resource (a qualified name outside
    the ``kubernetes.io`` namespace), a hugepages size, a ``kubernetes.io/``-prefixed native resource
    or an attachable-volumes count; not cpu, memory, ephemeral-storage, pods or storage."""
    if name.startswith(("hugepages-", "attachable-volumes-")):
        return True
    return "/" in name and not name.startswith("requests.")


DraTotals = Callable[[str, NodeInfo], tuple[int, int]]


def dra_scored(resources: tuple[str, ...]) -> bool:
    """Whether any scored resource could be backed by DRA (an extended resource name, or the implicit
    ``deviceclass.resource.kubernetes.io/<class>``): only then do the scorers look at devices."""
    return any(is_scalar_resource(n) and is_dra_extended_name(n) for n in resources)


def scalar_allocatable_requested(
    node: NodeInfo, name: str, pod_request: int, dra: DraTotals | None,
) -> tuple[int, int]:
    """Upstream ``calculateResourceAllocatableRequest`` for a scalar resource the pod requests:
    the node's allocatable and requested, or, on a node with none of it, the devices backing it
    through DRA and how many are allocated (DRAExtendedResource); (0, 0) when neither."""
    alloc = node.shape.allocatable.get(name)
    if not alloc and dra is not None:
        capacity, taken = dra(name, node)
        if capacity > 0:
            return capacity, taken + pod_request
    if alloc is None:
        return 0, 0
    return alloc, node.requested.get(name, 0) + pod_request


def resource_score(
    strategy: str, node: NodeInfo, pod_nonzero: Mapping[str, int], pod_requests: Mapping[str, int],
    resources: tuple[tuple[str, int], ...], dra: DraTotals | None = None,
) -> int:
    """The weighted mean per-resource score of ``node`` if ``pod`` were added; a scalar resource
    (extended, hugepages) counts only when the pod requests it, as upstream's "bypass extended
    resource if the pod does not request" (least_allocated_test.go); ``dra``: the DRA-backed totals
    of a resource the node does not advertise (see :func:`scalar_allocatable_requested`)."""
    allocatable = node.shape.allocatable
    total = weights = 0
    for name, weight in resources:
        if name in (CPU, MEMORY):
            alloc = allocatable.get(name, 0)
            req = node.nonzero_requested.get(name, 0) + pod_nonzero.get(name, 0)
        elif name == EPHEMERAL_STORAGE:
            alloc = allocatable.get(name, 0)
            req = node.requested.get(name, 0) + pod_requests.get(name, 0)
        elif pod_requests.get(name, 0) > 0 and is_scalar_resource(name):
            alloc, req = scalar_allocatable_requested(node, name, pod_requests[name], dra)
        else:
            # upstream ``calculateResourceAllocatableRequest`` (resource_allocation.go): a scalar
            # resource the pod does not request, and any other name (pods, storage), is not scored
            continue
        if alloc <= 0:
            continue
        if strategy == MOST_ALLOCATED:
            score = min(req, alloc) * 100 // alloc
        else:
            score = (alloc - req) * 100 // alloc if req <= alloc else 0
        total += score * weight
        weights += weight
    return total // weights if weights else 0


class NodeResourcesFit:
    name = "NodeResourcesFit"
    node_static = False
    per_node_score = True  # a node's score depends on that node alone; normalize is the identity

    def __init__(
        self,
        strategy: str = LEAST_ALLOCATED,
        resources: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1)),
        weight: int = 1,
        handle: Any = None,
    ) -> None:
        if strategy not in (LEAST_ALLOCATED, MOST_ALLOCATED):
            raise ValueError(f'unknown scoring strategy "{strategy}"; '
                             f"use {LEAST_ALLOCATED} or {MOST_ALLOCATED}")
        self.strategy = strategy
        self.resources = resources
        self.weight = weight
        self.handle = handle
        self._dra = self._device_class if handle is not None else None  # bound once: Filter is hot
        self._scores_dra = handle is not None and dra_scored(tuple(n for n, _ in resources))

    def _device_class(self, name: str) -> Any:
        """The DeviceClass mapping ``name`` (the DynamicResources plugin's resolver; None without it)."""
        resolve = self.handle.device_class_resolver
        return resolve(name) if resolve is not None else None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        reasons = insufficient(pod, node, self._dra)
        return Status.unschedulable(self.name, *reasons) if reasons else None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        dra = self.handle.dra_extended_totals if self._scores_dra else None
        return resource_score(self.strategy, node, pod.nonzero_requests, pod.requests, self.resources, dra)

    def normalize(self, scores: list[int]) -> list[int]:
        return scores

    # -- queueing hints ------------------------------------------------------------------------
    def _after_node_change(self, pod: PodInfo, old: NodeShape | None, new: NodeShape) -> QueueingHint:
        return after_node_change(pod, old, new, self._dra)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            on_pod(ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN, after_pod_event),
            on_node(ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE, self._after_node_change),
            # DRAExtendedResource: a DeviceClass added or changed may map a resource the pod lacked
            # (upstream fit.go registers DeviceClass Add/Update with the gate on)
            ClusterEventWithHint(ClusterEvent("DeviceClass", ActionType.ADD | ActionType.UPDATE),
                                 after_class_event),
        ]


def after_pod_event(pod: PodInfo, old: PodInfo | None, new: PodInfo | None) -> QueueingHint:
    """Upstream ``isSchedulableAfterPodEvent``: a delete frees room when the pod was bound or
    nominated; a scale-down when it is the pod itself or a bound pod that shrank a resource the
    pod requests."""
    if new is None:
        assert old is not None
        return QUEUE if old.node_name or old.nominated_node else QUEUE_SKIP
    if new.key == pod.key and new.uid == pod.uid:
        return QUEUE
    if not new.node_name or old is None:
        return QUEUE_SKIP
    for name, want in pod.requests.items():
        if want > 0 and name != PODS and old.requests.get(name, 0) > new.requests.get(name, 0):
            return QUEUE
    return QUEUE_SKIP


def after_class_event(pod: PodInfo, old: Any, new: Any) -> QueueingHint:
    """Upstream ``isSchedulableAfterDeviceClassEvent``: an update that keeps the class's
    ``extendedResourceName`` does nothing; an added class queues the pod requesting its implicit
    name; a class mapping a name the pod requests queues it."""
    if new is None:
        return QUEUE_SKIP
    mapped = new.spec.extended_resource_name if new.spec is not None else None
    if old is not None:
        if (old.spec.extended_resource_name if old.spec is not None else None) == mapped:
            return QUEUE_SKIP
    elif DEVICE_CLASS_PREFIX + (new.metadata.name or "") in pod.requests:
        return QUEUE
    return QUEUE if mapped and mapped in pod.requests else QUEUE_SKIP


def after_node_change(pod: PodInfo, old: NodeShape | None, new: NodeShape,
                      dra: Callable[[str], Any] | None = None) -> QueueingHint:
    """Upstream ``isSchedulableAfterNodeChange``: the pod must fit the node when it is empty (an
    extended resource a DeviceClass maps, ``dra``, is DynamicResources' to check there, as
    upstream's ``isFit`` with the DRA manager); an added node then queues it, an updated one only if
    allocatable grew in a resource the pod requests or in pods (``haveAnyRequestedResourcesIncreased``)."""
    if insufficient(pod, NodeInfo(new), dra):
        return QUEUE_SKIP
    if old is None:
        return QUEUE
    before, after = old.allocatable, new.allocatable
    if after.get(PODS, 0) > before.get(PODS, 0):
        return QUEUE
    for name, want in pod.requests.items():
        if want > 0 and name != PODS and after.get(name, 0) > before.get(name, 0):
            return QUEUE
    return QUEUE_SKIP


_STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, "RequestedToCapacityRatio")


def new(args: Mapping[str, Any], handle: Any) -> NodeResourcesFit:
    """The registry's factory. Args as upstream's ``NodeResourcesFitArgs``: ``scoringStrategy``
    (``type``: LeastAllocated (default) or MostAllocated; ``resources``: ``[{name, weight}]``, default
    cpu and memory with weight 1). RequestedToCapacityRatio and ``ignoredResources`` are not modelled."""
    args = plugin_args("NodeResourcesFit", args, ("scoringStrategy", "ignoredResources",
                                                  "ignoredResourceGroups"))
    if args.get("ignoredResources") or args.get("ignoredResourceGroups"):
        raise SchedulerConfigError("NodeResourcesFit: ignoredResources and ignoredResourceGroups are not "
                                   "modelled by kbatch")
    scoring = plugin_args("NodeResourcesFit.scoringStrategy", args.get("scoringStrategy") or {},
                          ("type", "resources", "requestedToCapacityRatio"))
    kind = scoring.get("type", LEAST_ALLOCATED)
    if kind not in _STRATEGIES:
        raise SchedulerConfigError(f'scoringStrategy.type: Unsupported value: "{kind}": supported values: '
                                   + ", ".join(f'"{s}"' for s in _STRATEGIES))
    if kind == "RequestedToCapacityRatio":
        raise SchedulerConfigError("NodeResourcesFit: the RequestedToCapacityRatio strategy is not "
                                   "modelled by kbatch")
    resources: list[tuple[str, int]] = []
    for i, item in enumerate(scoring.get("resources") or ()):
        name = item.get("name")
        weight = decode_int(item.get("weight", 1), "ResourceSpec.scoringStrategy.resources.weight", 64)
        if not name:
            raise SchedulerConfigError(f"scoringStrategy.resources[{i}].name: Required value")
        if weight is None or not 1 <= weight <= 100:
            # upstream validateResources (apis/config/validation/validation_pluginargs.go)
            raise invalid(f"scoringStrategy.resources[{i}].weight", weight or 0,
                          f"resource weight of {name} not in valid range (0, 100]")
        resources.append((name, weight))
    return NodeResourcesFit(strategy=kind, resources=tuple(resources) or ((CPU, 1), (MEMORY, 1)),
                            handle=handle)
