"""NodeResourcesBalancedAllocation (PreScore + Score): favour nodes whose resources fill evenly.

Upstream ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go`` with the shared
``resource_allocation.go`` scorer (``useRequested: true``), read at kubernetes master of the 1.36/1.37
cycle (the layout with ``k8s.io/kube-scheduler/framework`` and DRA extended-resource scoring):

* for each configured resource (``args.resources``, default cpu and memory), the fraction
  ``(node's requested + pod's request) / allocatable``, capped at 1, over the resources whose
  allocatable is not 0. Requests are the pods' real requests, not the 100m/200Mi non-zero defaults
  NodeResourcesFit scores with. A scalar resource (extended, hugepages) the pod does not request is
  left out; ``pods`` and other names are never scored;
* two fractions: ``std = |f1 - f2| / 2``; more: the population standard deviation; fewer: 0;
* score ``int((1 - std) * 100)`` (truncated), in 0..100, no normalization.

A pod requesting none of the resources (best-effort) is skipped at PreScore (kubernetes#129138:
otherwise every best-effort pod would pile onto the most balanced node); Score without PreScore
gives such a pod 0 everywhere, which ranks the nodes alike.

An extended resource backed by DRA (``DeviceClass.spec.extendedResourceName`` or the implicit
``deviceclass.resource.kubernetes.io/<class>``, KEP-5004) that the pod requests and the node does not
advertise is scored from the node's devices of that class: allocatable is their count, requested the
allocated ones plus the pod's request (upstream ``getDRAPreScoredParams`` and
``calculateDRAExtendedResourceAllocatableRequest``;
:mod:`kbatch.controllers.dra.dynamicresources.extended_totals`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.api.pod_resources import CPU, MEMORY
from kbatch.controllers.scheduler.config import SchedulerConfigError, plugin_args
from kbatch.controllers.scheduler.framework import MAX_NODE_SCORE, Code, CycleState, Status
from kbatch.controllers.scheduler.plugins.node_resources_fit import (
    EPHEMERAL_STORAGE,
    DraTotals,
    dra_scored,
    is_scalar_resource,
    scalar_allocatable_requested,
)
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["NAME", "BalancedAllocation", "balanced_score", "new"]

NAME = "NodeResourcesBalancedAllocation"
DEFAULT_RESOURCES = (CPU, MEMORY)
_SKIP = Status(Code.SKIP, (), NAME)


def _allocatable_requested(node: NodeInfo, name: str, pod_request: int, dra: DraTotals | None,
                           ) -> tuple[int, int]:
    """Upstream ``calculateResourceAllocatableRequest`` with ``useRequested``: (allocatable,
    requested with the pod); (0, 0) for a resource left out of the score."""
    if name in (CPU, MEMORY, EPHEMERAL_STORAGE):
        alloc = node.shape.allocatable.get(name, 0)
        return alloc, node.requested.get(name, 0) + pod_request
    if pod_request and is_scalar_resource(name):
        return scalar_allocatable_requested(node, name, pod_request, dra)
    return 0, 0


def balanced_score(fractions: Sequence[float]) -> int:
    """Upstream ``balancedResourceScorer`` over the fractions (each already capped at 1)."""
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        # plain left-to-right float sums, as upstream's loops (``math.fsum`` or 3.12's compensated
        # ``sum`` could round differently and change a truncated score by one)
        total = 0.0
        for f in fractions:
            total += f
        mean = total / len(fractions)
        squares = 0.0
        for f in fractions:
            squares += (f - mean) * (f - mean)
        std = math.sqrt(squares / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


class BalancedAllocation:
    name = NAME
    node_static = False
    # a node's score depends on that node alone and needs nothing from PreScore (whose only effect
    # is the best-effort Skip, equivalent to this Score's 0 on every node): the batch heap may use it
    per_node_score = True

    def __init__(self, resources: tuple[str, ...] = DEFAULT_RESOURCES, weight: int = 1, handle: Any = None,
                 ) -> None:
        self.resources = resources
        self.weight = weight
        self.handle = handle
        self._scores_dra = handle is not None and dra_scored(resources)

    def _best_effort(self, pod: PodInfo) -> bool:
        return not any(pod.requests.get(name, 0) for name in self.resources)

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        return _SKIP if self._best_effort(pod) else None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        if self._best_effort(pod):
            return 0
        fractions: list[float] = []
        dra = self.handle.dra_extended_totals if self._scores_dra else None
        for name in self.resources:
            alloc, requested = _allocatable_requested(node, name, pod.requests.get(name, 0), dra)
            if alloc > 0:
                fractions.append(min(requested / alloc, 1.0))
        return balanced_score(fractions)

    def normalize(self, scores: list[int]) -> list[int]:
        return scores


def _resources(args: Mapping[str, Any]) -> tuple[str, ...]:
    """``args.resources`` defaulted and validated as upstream (``SetDefaults_NodeResources
    BalancedAllocationArgs``: empty -> cpu and memory, a weight of 0 -> 1;
    ``ValidateNodeResourcesBalancedAllocationArgs``: names unique, every weight 1)."""
    items = args.get("resources") or ()
    if not isinstance(items, list | tuple):
        raise SchedulerConfigError(f"resources: Invalid value: expected a list, got {type(items).__name__}")
    names: list[str] = []
    for i, item in enumerate(items):
        item = plugin_args(f"{NAME}.resources[{i}]", item if isinstance(item, Mapping) else {},
                           ("name", "weight"))
        name, weight = item.get("name"), item.get("weight") or 1
        if not isinstance(name, str) or not name:
            raise SchedulerConfigError(f"resources[{i}].name: Required value")
        if name in names:
            raise SchedulerConfigError(f'resources[{i}].name: Duplicate value: "{name}"')
        if weight != 1:
            raise SchedulerConfigError(f"resources[{i}].weight: Invalid value: {weight!r}: must be 1")
        names.append(name)
    return tuple(names) or DEFAULT_RESOURCES


def new(args: Mapping[str, Any], handle: Any) -> BalancedAllocation:
    """The registry's factory. Args as upstream's ``NodeResourcesBalancedAllocationArgs``:
    ``resources`` (``[{name, weight}]``, weight 1 only; default cpu and memory)."""
    return BalancedAllocation(_resources(plugin_args(NAME, args, ("resources",))), handle=handle)
