"""Pod GC decisions, pure (upstream ``pkg/controller/podgc/gc_controller.go``).

Each period (20 s) the controller:

1. ``terminated``: when more terminated pods (phase Succeeded or Failed) exist than
   ``terminatedPodGCThreshold`` (default 12,500; 0 disables), deletes the excess: evicted pods
   (phase Failed, reason ``Evicted``) first, then oldest ``creationTimestamp``, then name
   (``byEvictionAndCreationTimestamp``);
2. ``terminating``: a terminating pod (``deletionTimestamp`` set) bound to a node that is not
   ``Ready`` and carries a ``node.kubernetes.io/out-of-service`` taint (any effect, any value) is
   marked ``Failed`` (if not terminal yet) and force-deleted (``gcTerminating``; its feature gate
   NodeOutOfServiceVolumeDetach is GA since 1.28, so upstream runs it unconditionally; KEP-2268
   "Non-graceful node shutdown");
3. ``orphaned``: a pod bound to a node that does not exist, once the node has been missing for the
   quarantine time (40 s) and a fresh read confirms it, is marked ``Failed`` with the condition
   ``DisruptionTarget=True`` reason ``DeletionByPodGC`` message "PodGC: node no longer exists"
   (only if not terminal yet) and force-deleted;
4. ``unscheduled terminating``: a pod with a ``deletionTimestamp`` and no node is marked ``Failed``
   (if not terminal yet) and force-deleted.

Every deletion is upstream's ``markFailedAndDeletePodWithCondition``: a status patch for a pod not yet
terminal, then a delete with grace period 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "GC_PERIOD",
    "QUARANTINE",
    "TERMINATED_POD_GC_THRESHOLD",
    "PodFacts",
    "may_act",
    "orphaned",
    "out_of_service",
    "terminated_to_delete",
    "terminating_out_of_service",
    "unscheduled_terminating",
]

GC_PERIOD = 20.0
QUARANTINE = 40.0
TERMINATED_POD_GC_THRESHOLD = 12_500
ORPHAN_REASON = "DeletionByPodGC"
ORPHAN_MESSAGE = "PodGC: node no longer exists"
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"  # upstream v1.TaintNodeOutOfService


@dataclass(frozen=True, slots=True)
class PodFacts:
    namespace: str
    name: str
    creation: float
    phase: str
    node_name: str
    terminating: bool
    reason: str = ""  # status.reason
    generation: int | None = None  # metadata.generation (KEP-5067 observedGeneration)

    @property
    def evicted(self) -> bool:
        """Upstream ``eviction.PodIsEvicted``."""
        return self.phase == "Failed" and self.reason == "Evicted"

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")


def may_act(phase: str, node_name: str, terminating: bool, nodes: set[str]) -> bool:
    """Whether any decision below can pick a pod: terminal (``terminated``), bound to a node not in
    ``nodes`` (``orphaned``) or terminating (``unscheduled_terminating``). A sweep builds facts only
    for those; the rest (running on known nodes: nearly all pods) cannot change any answer."""
    return terminating or phase in ("Succeeded", "Failed") or bool(node_name and node_name not in nodes)


def terminated_to_delete(pods: Sequence[PodFacts], threshold: int) -> list[PodFacts]:
    if threshold <= 0:
        return []
    terminated = [p for p in pods if p.terminal]
    excess = len(terminated) - threshold
    if excess <= 0:
        return []
    return sorted(terminated, key=lambda p: (not p.evicted, p.creation, p.name, p.namespace))[:excess]


def out_of_service(ready: str | None, taint_keys: Iterable[str]) -> bool:
    """Whether ``gcTerminating`` may force-delete a node's terminating pods: the node is not
    ``Ready`` (``nodeutil.IsNodeReady``: no ``Ready=True`` condition) and has a taint with the
    out-of-service key (``taints.TaintKeyExists``: the effect and value do not matter)."""
    return ready != "True" and OUT_OF_SERVICE in taint_keys


def terminating_out_of_service(pods: Iterable[PodFacts], nodes: set[str]) -> list[PodFacts]:
    """Terminating pods bound to one of ``nodes`` (the :func:`out_of_service` ones), evicted first,
    then oldest, then by name (``byEvictionAndCreationTimestamp``, as upstream sorts them)."""
    picked = [p for p in pods if p.terminating and p.node_name in nodes]
    return sorted(picked, key=lambda p: (not p.evicted, p.creation, p.name, p.namespace))


def orphaned(pods: Iterable[PodFacts], nodes: set[str], missing_since: Mapping[str, float],
             now: float, quarantine: float = QUARANTINE) -> list[PodFacts]:
    """Pods whose node is absent and has been for ``quarantine`` seconds."""
    return [p for p in pods if p.node_name and p.node_name not in nodes
            and now - missing_since.get(p.node_name, now) >= quarantine]


def unscheduled_terminating(pods: Iterable[PodFacts]) -> list[PodFacts]:
    return [p for p in pods if p.terminating and not p.node_name]
