"""A Workload's unhealthy nodes: what ``status.unhealthyNodes`` says and which nodes it runs on.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workload/workload.go`` (``HasUnhealthyNodes``,
``HasUnhealthyNode``, ``UnhealthyNodeNames``, ``HasTopologyAssignmentWithUnhealthyNode``,
``NeedsSecondPass``, ``TASAssignedNodeNames``, ``OwnedBySinglePod``) and
``pkg/util/tas/tas.go`` (``LowestLevelValues``, ``IsLowestLevelHostname``).

The nodes of a Workload are the lowest-level values of its pod sets' topology assignments whose
lowest level is ``kubernetes.io/hostname``; only an admitted Workload that is neither finished nor
evicted has nodes (the ``metadata.admittedWorkloadNodes`` index).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from kbatch.api.kueue_v1beta2 import Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.tas.delayed import needs_delayed_pass
from kbatch.controllers.kueue.tas.snapshot import HOSTNAME

__all__ = [
    "EVICTED_EVENT",
    "assigned_nodes",
    "evict_for_node_failures",
    "has_assignment_with_unhealthy_node",
    "hostname_nodes",
    "needs_second_pass",
    "owned_by_single_pod",
    "unhealthy_node_names",
]


EVICTED_EVENT = "EvictedDueToNodeFailures"  # ``workloadevict.Evict``'s event reason


def evict_for_node_failures(message: str, now: datetime) -> Callable[[WorkloadStatus, Workload], bool]:
    """The status change of ``workloadevict.Evict`` with reason ``NodeFailures`` (nothing when the
    Workload is already evicted)."""

    def mutate(status: WorkloadStatus, obj: Workload) -> bool:
        if W.has(status, Cond.EVICTED):
            return False
        W.prepare_eviction(
            status, Reason.NODE_FAILURES, message, obj.metadata.generation, now, Reason.NODE_FAILURES
        )
        return True

    return mutate


def unhealthy_node_names(wl: Workload) -> list[str]:
    """``UnhealthyNodeNames``, in the order they were recorded."""
    return [n.name or "" for n in (wl.status.unhealthy_nodes if wl.status else None) or ()]


def _lowest_values(wl: Workload, hostname_only: bool) -> list[str]:
    admission = wl.status.admission if wl.status else None
    out: list[str] = []
    for psa in (admission.pod_set_assignments if admission else None) or ():
        if psa.topology_assignment is None:
            continue
        levels, domains = assignment_domains(psa.topology_assignment)
        if hostname_only and (not levels or levels[-1] != HOSTNAME):
            continue
        out += [values[-1] for values, count in domains if values and (count > 0 or not hostname_only)]
    return out


def _admitted(wl: Workload) -> bool:
    return W.has(wl.status, Cond.ADMITTED)


def assigned_nodes(wl: Workload) -> set[str]:
    """``TASAssignedNodeNames`` of a Workload the ``admittedWorkloadNodes`` index holds."""
    if W.has(wl.status, Cond.FINISHED) or W.has(wl.status, Cond.EVICTED) or not _admitted(wl):
        return set()
    return hostname_nodes(wl)


def hostname_nodes(wl: Workload) -> set[str]:
    """The nodes a Workload's admission gives pods at the hostname level, whatever its state
    (``HasTASAssignmentOnNode``)."""
    return set(_lowest_values(wl, hostname_only=True))


def has_assignment_with_unhealthy_node(wl: Workload) -> bool:
    """``HasTopologyAssignmentWithUnhealthyNode``."""
    unhealthy = set(unhealthy_node_names(wl))
    if not unhealthy or not _admitted(wl):
        return False
    return any(v in unhealthy for v in _lowest_values(wl, hostname_only=False))


def needs_second_pass(wl: Workload) -> bool:
    """``NeedsSecondPass``: after a node failure, or for delayed topology requests whose checks
    are Ready (:mod:`.delayed`)."""
    if W.has(wl.status, Cond.FINISHED) or W.has(wl.status, Cond.EVICTED):
        return False
    if not W.has(wl.status, Cond.QUOTA_RESERVED):
        return False
    return needs_delayed_pass(wl) or has_assignment_with_unhealthy_node(wl)


def owned_by_single_pod(wl: Workload) -> bool:
    """``OwnedBySinglePod``: exactly one owner, a v1 Pod."""
    refs = wl.metadata.owner_references or ()
    return len(refs) == 1 and refs[0].kind == "Pod" and refs[0].api_version == "v1"
