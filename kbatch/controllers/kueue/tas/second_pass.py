"""The scheduler's second pass for Workloads with an unhealthy node: replace it, or evict.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/queue/second_pass_queue.go`` and
``manager.go`` (``QueueSecondPassIfNeeded``: a Workload that needs a second pass is queued after a
back-off of 1 s, doubling per failed attempt up to 30 s; ``heads`` takes the ready ones first),
``pkg/workload/workload.go`` (``NeedsSecondPass``), ``pkg/scheduler/scheduler.go`` (the entry of a
Workload holding quota keeps its flavors; ``TASFailedNodeReplacementFailFast`` — beta, on —
evicts it when the replacement does not fit: reason ``NodeFailures``, "Workload was evicted as
there was no replacement for unhealthy node(s): a,b"; without it the attempt is retried with the
``SecondPassFailed`` warning; ``admit`` writes the new topology assignment and clears
``status.unhealthyNodes``), ``pkg/scheduler/flavorassigner`` (only the pod sets naming an unhealthy
node are searched again; no preemption is sought for them).

A Workload whose delayed topology requests wait for it (:mod:`.delayed`: its ProvisioningRequest
checks are Ready) has those pod sets searched by :func:`assign_delayed`, on the same queue.

The replacement search is :mod:`.replacement`; it runs at the start of a scheduling cycle, before
the heads of the ClusterQueues, on the cycle's TAS snapshot, and what it takes is charged there
(what the unhealthy node held is released from the next cycle on, as upstream's net usage). The
scheduler (``kueue/scheduler.py``) writes the outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from kbatch.api.kueue_v1beta2 import Admission, TopologyAssignment, Workload
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.tas.cycle import (
    FlavorRequest,
    TASCycle,
    add_assumed,
    pod_set_request,
    toleration_keys,
)
from kbatch.controllers.kueue.tas.delayed import DELAYED_READY, pending_pod_sets, update_conflict, updates_for
from kbatch.controllers.kueue.tas.placement import Placement
from kbatch.controllers.kueue.tas.replacement import find_replacement
from kbatch.controllers.kueue.tas.request import is_explicit
from kbatch.controllers.kueue.tas.snapshot import TASFlavorSnapshot, TopologyResult
from kbatch.controllers.kueue.tas.unhealthy import (
    needs_second_pass,
    owned_by_single_pod,
    unhealthy_node_names,
)

__all__ = ["NO_REPLACEMENT", "SecondPassQueue", "assign_delayed", "backoff", "replace_unhealthy_node"]

Domains = Sequence[tuple[tuple[str, ...], int]]
INITIAL_BACKOFF, MAX_BACKOFF = 1.0, 30.0
NO_REPLACEMENT = "Workload was evicted as there was no replacement for unhealthy node(s): %s"


def backoff(iteration: int) -> float:
    """``secondPassQueue.nextDelay``: 1 s, 2 s, 4 s, … capped at 30 s."""
    return min(INITIAL_BACKOFF * 2 ** max(iteration - 1, 0), MAX_BACKOFF)


@dataclass(slots=True)
class _Pending:
    ready_at: datetime
    iteration: int


class SecondPassQueue:
    """The Workloads waiting for a second pass, by key, with when they are due."""

    def __init__(self) -> None:
        self.pending: dict[str, _Pending] = {}

    def queue_if_needed(self, key: str, wl: Workload, iteration: int, now: datetime) -> float | None:
        """``QueueSecondPassIfNeeded``: the delay after which the scheduler must look, when the
        Workload was queued now."""
        if needs_second_pass(wl):
            if key in self.pending:
                return None
            delay = backoff(iteration + 1)
            self.pending[key] = _Pending(now + timedelta(seconds=delay), iteration + 1)
            return delay
        if iteration > 0:
            self.pending.pop(key, None)
        return None

    def take_ready(self, now: datetime) -> list[tuple[str, int]]:
        """``takeAllReady``, in key order."""
        ready = sorted(k for k, p in self.pending.items() if p.ready_at <= now)
        return [(k, self.pending.pop(k).iteration) for k in ready]


def _tas_flavor(tas: TASCycle, flavors: Mapping[str, str] | None) -> str | None:
    names = sorted(f for f in set((flavors or {}).values()) if tas.levels(f) is not None)
    return names[0] if names else None


def replace_unhealthy_node(tas: TASCycle, wl: Workload, keep_pod_owned: bool = True) -> tuple[Admission, str]:
    """The admission with each pod set on the first unhealthy node placed again, or the reason
    why not (``FindTopologyAssignmentsForWorkload`` of a Workload with unhealthy nodes).
    ``keep_pod_owned``: ``SkipReassignmentForPodOwnedWorkloads``."""
    admission = wl.status.admission.model_copy(deep=True)  # type: ignore[union-attr]
    node = unhealthy_node_names(wl)[0]
    if keep_pod_owned and owned_by_single_pod(wl):  # the pod cannot move
        return admission, ""
    specs = {ps.name: ps for ps in (wl.spec.pod_sets if wl.spec else None) or ()}
    assumed: dict[str, dict[tuple[str, ...], dict[str, int]]] = {}
    charges: list[tuple[TASFlavorSnapshot, Domains, Mapping[str, int]]] = []
    for psa in admission.pod_set_assignments or ():
        if psa.topology_assignment is None or psa.name not in specs:
            continue
        levels, domains = assignment_domains(psa.topology_assignment)
        flavor = _tas_flavor(tas, psa.flavors)
        if flavor is None or not any(v and v[-1] == node for v, _ in domains):
            continue
        ps = specs[psa.name]
        request = pod_set_request(ps, psa.count or 0, not is_explicit(ps.topology_request))
        snap = tas.snapshot(flavor)
        taken = assumed.setdefault(flavor, {})
        found = find_replacement(snap, request, levels, tuple(domains), node, taken)
        if found.failure:  # as the flavor assigner words a pod set's failure
            return admission, f"couldn't assign flavors to pod set {psa.name}: {found.failure}"
        add_assumed(taken, snap.leaves_of(TopologyResult(levels, found.added)), request.single_pod)
        charges.append((snap, found.added, request.single_pod))
        psa.topology_assignment = type(psa.topology_assignment).model_validate(
            Placement(flavor, found.result, request.single_pod, tas.by_hostname_prefix).to_api()
        )
    for charged, where, one in charges:  # the net new usage (``ComputeTASNetUsage``), seen by the
        charged.add_usage(where, one)  # rest of the cycle; the node left is freed from the next one
    return admission, ""


def assign_delayed(tas: TASCycle, wl: Workload, implied: bool) -> tuple[Admission, str]:
    """The admission with each pod set waiting for its delayed topology placed (``Ready``), or the
    reason why not, in the flavor assigner's words. ``implied``: the ClusterQueue is TAS-only, so a
    pod set without a topology request is unconstrained (``isTASImplied``)."""
    admission = wl.status.admission.model_copy(deep=True)  # type: ignore[union-attr]
    specs = (wl.spec.pod_sets if wl.spec else None) or []
    psas = admission.pod_set_assignments or []
    requests: list[FlavorRequest] = []
    for i in pending_pod_sets(admission):
        psa, ps = psas[i], specs[i] if i < len(specs) else None
        flavor = _tas_flavor(tas, psa.flavors)
        if ps is None or flavor is None:
            return admission, f"couldn't assign flavors to pod set {psa.name}: no TAS flavor assigned"
        selector, tolerations, conflict = update_conflict(ps, updates_for(wl, ps.name or ""))
        if conflict:
            return admission, f"couldn't assign flavors to pod set {psa.name}: {conflict}"
        base = pod_set_request(ps, psa.count or 0, implied and not is_explicit(ps.topology_request))
        request = replace(base, node_selector=selector, tolerations=toleration_keys(tolerations))
        group = ps.topology_request.pod_set_group_name if ps.topology_request is not None else None
        requests.append(FlavorRequest(i, flavor, request, group))
    found, failure = tas.search(requests, empty=False)
    if failure is not None:
        return admission, f"couldn't assign flavors to pod set {psas[failure[0]].name}: {failure[1]}"
    for i, placement in sorted(found.items()):
        psas[i].topology_assignment = TopologyAssignment.model_validate(placement.to_api())
        psas[i].delayed_topology_request = DELAYED_READY
        tas.snapshot(placement.flavor).add_usage(placement.result.domains, placement.single_pod)
    return admission, ""
