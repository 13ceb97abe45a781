"""NodeResourcesFit (PreFilter + Filter + Score): requests against allocatable.

Upstream ``pkg/scheduler/framework/plugins/noderesources/fit.go``: a node fits when it has room
for one more pod (reason "Too many pods") and, for every resource the pod requests, allocatable
minus what is already requested covers it (reason "Insufficient <resource>", one per resource).
Code Unschedulable, so preemption may help.

Scoring (``least_allocated.go`` / ``most_allocated.go``, ``resource_allocation.go``): for each
scored resource (default cpu and memory, weight 1 each) with a non-zero allocatable, with the
pod's request added to what the node already has (cpu/memory use the non-zero defaults of 100m /
200Mi for containers that request nothing), LeastAllocated scores ``(alloc - req) * 100 // alloc``
and MostAllocated ``req * 100 // alloc``; the node score is their weighted mean.
"""

from __future__ import annotations

from collections.abc import Mapping

from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.resources import CPU, MEMORY, PODS
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["LEAST_ALLOCATED", "MOST_ALLOCATED", "TOO_MANY_PODS", "NodeResourcesFit", "resource_score"]

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
TOO_MANY_PODS = "Too many pods"


def insufficient(pod: PodInfo, node: NodeInfo) -> list[str]:
    """The failure reasons of ``pod`` on ``node`` (empty when it fits)."""
    requested, allocatable = node.requested, node.shape.allocatable
    reasons: list[str] = []
    if requested.get(PODS, 0) + 1 > allocatable.get(PODS, 0):
        reasons.append(TOO_MANY_PODS)
    for name, want in pod.requests.items():
        if want > 0 and name != PODS and requested.get(name, 0) + want > allocatable.get(name, 0):
            reasons.append(f"Insufficient {name}")
    return reasons


def resource_score(
    strategy: str, node: NodeInfo, pod_nonzero: Mapping[str, int], pod_requests: Mapping[str, int],
    resources: tuple[tuple[str, int], ...],
) -> int:
    """The weighted mean per-resource score of ``node`` if ``pod`` were added."""
    allocatable = node.shape.allocatable
    total = weights = 0
    for name, weight in resources:
        alloc = allocatable.get(name, 0)
        if alloc <= 0:
            continue
        if name in (CPU, MEMORY):
            req = node.nonzero_requested.get(name, 0) + pod_nonzero.get(name, 0)
        else:
            req = node.requested.get(name, 0) + pod_requests.get(name, 0)
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
    ) -> None:
        if strategy not in (LEAST_ALLOCATED, MOST_ALLOCATED):
            raise ValueError(f"unknown scoring strategy {strategy!r}; "
                             f"use {LEAST_ALLOCATED} or {MOST_ALLOCATED}")
        self.strategy = strategy
        self.resources = resources
        self.weight = weight

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        reasons = insufficient(pod, node)
        return Status.unschedulable(self.name, *reasons) if reasons else None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        return resource_score(self.strategy, node, pod.nonzero_requests, pod.requests, self.resources)

    def normalize(self, scores: list[int]) -> list[int]:
        return scores
