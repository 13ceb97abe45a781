"""Topology-aware scheduling in a cycle: which pod sets ask for it, which flavors serve them, and
their topology assignments.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/tas_flavorassigner.go``
(``WorkloadsTopologyRequests``, ``podSetTopologyRequest``, ``onlyTASFlavor``,
``checkPodSetAndFlavorMatchForTAS``, ``isTASImplied``), ``flavorassigner.go`` (the TAS step at the end
of ``assignFlavors``), ``pkg/cache/scheduler/clusterqueue_snapshot.go``
(``FindTopologyAssignmentsForWorkload``: TAS flavors in name order, the pod sets of a flavor in
order, each seeing what the earlier ones took) and ``clusterqueue.go`` (``isTASOnly``).

* A pod set asks for TAS explicitly (a required, preferred or unconstrained request), or implicitly
  when every flavor of its ClusterQueue is a TAS flavor (then it is unconstrained, at the lowest
  level).
* A flavor without ``topologyName`` does not serve a pod set asking for TAS ("Flavor %q does not
  support TopologyAwareScheduling", unless none of the pod set's requests is a resource of that
  group), a TAS flavor does not serve one that does not ("Flavor %q supports only
  TopologyAwareScheduling"), nor one asking for a level its Topology lacks.
* When quota fits, the assignment is searched (:mod:`.snapshot`); when it is not found the pod set
  gets the reason and its flavors ``Preempt``. When preemption is the way (quota or topology), the
  search runs again on an empty cluster: not found there, the pod set cannot fit (``NoFit``),
  otherwise the TAS pod sets need preemption.

With ``ElasticJobsViaWorkloadSlicesWithTAS`` (alpha, off) a pod set of an elastic Workload
(``kueue.x-k8s.io/elastic-job: "true"``) asking for a required or preferred topology gets the error
"required topology is not supported with ElasticJobsViaWorkloadSlices" (preferred alike: the
Workload cannot fit), and a slice replacing an admitted one keeps its pods' topology
(:mod:`.elastic`): the previous assignment of each pod set is searched around, not anew.

A pod set that needs preemption is searched again by the preemptor, with its candidates' TAS
usage removed (:meth:`TASCycle.preemption_check`, :mod:`.preemption`).

A pod set whose TAS flavor a ProvisioningRequest check covers is not searched while the Workload
has no quota reservation: its topology is delayed (``delayedTopologyRequest: Pending``) until the
checks are Ready, then found by the second pass (:mod:`.delayed`, :mod:`.second_pass`). On a
ClusterQueue with a MultiKueue check no TAS pod set is searched: the worker finds the topology.

With ``TASHandleOverlappingFlavors`` (beta, on; kueue#10659) the TAS flavors whose lowest level is
the hostname share their usage per node: each such flavor's snapshot starts with the TAS usage of
every such flavor (``Cache.Snapshot``, ``snapshotTopologyDomainUsages``), and a Workload's pod sets
on such flavors see what its earlier pod sets took on the others (``FindTopologyAssignmentsForWorkload``'s
``aggregatedDomainUsages`` as ``FindTopologyAssignmentsForFlavor``'s assumed usage). A node that two
flavors select is thus not counted free twice. As upstream, what the cycle admits or a preemption
simulation removes changes the Workload's own flavors' snapshots only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.kueue_v1beta2 import PodSet, ResourceFlavor, Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.requests import pod_spec_requests
from kbatch.controllers.kueue.scheduling.assignment import FIT, NO_FIT, PREEMPT, Assignment, PodSetAssignment
from kbatch.controllers.kueue.tas.admitted import AdmittedPodSets, Usage, admitted_pod_sets
from kbatch.controllers.kueue.tas.cluster import build_snapshot, tas_flavor_levels
from kbatch.controllers.kueue.tas.delayed import DELAYED_PENDING, delays_topology, has_multikueue_check
from kbatch.controllers.kueue.tas.elastic import (
    AddAssumed,
    Assumed,
    ElasticPlacement,
    find_elastic,
    previous_assignment,
)
from kbatch.controllers.kueue.tas.placement import Placement
from kbatch.controllers.kueue.tas.preemption import TopologyRemoval
from kbatch.controllers.kueue.tas.request import is_explicit, slice_layers
from kbatch.controllers.kueue.tas.snapshot import (
    HOSTNAME,
    PodSetTASRequest,
    TASFlavorSnapshot,
    TopologyResult,
    add_pods,
)
from kbatch.controllers.kueue.workloadslicing.slices import enabled as slicing_enabled
from kbatch.controllers.scheduler.convert import node_selector_term
from kbatch.controllers.scheduler.types import WeightedTerm

__all__ = ["FlavorRequest", "TASCycle", "add_assumed", "pod_set_request", "toleration_keys"]

NO_TAS_FLAVOR = "no TAS flavor assigned"


@dataclass(frozen=True, slots=True)
class FlavorRequest:
    index: int
    flavor: str
    request: PodSetTASRequest
    group: str | None = None  # ``podSetGroupName``
    previous: TopologyResult | None = None  # the replaced slice's assignment (elastic, with the gate)


def _groups(requests: list[FlavorRequest]) -> list[tuple[FlavorRequest, FlavorRequest | None]]:
    """``FindTopologyAssignmentsForFlavor``'s grouping (by ``podSetGroupName``, else alone, in
    order of first appearance) and ``findLeaderAndWorkers`` (of two, the one with more pods is the
    workers, the other the leader; a tie keeps the first as the workers)."""
    grouped: dict[str, list[FlavorRequest]] = {}
    for r in requests:
        grouped.setdefault(r.group if r.group is not None else f"#{r.index}", []).append(r)
    out: list[tuple[FlavorRequest, FlavorRequest | None]] = []
    for members in grouped.values():
        workers, leader = members[0], (members[1] if len(members) > 1 else None)
        if leader is not None and leader.request.count > workers.request.count:
            workers, leader = leader, workers
        out.append((workers, leader))
    return out


def toleration_keys(tolerations: Iterable[Any]) -> tuple[tuple[str, str, str, str], ...]:
    """Tolerations as the TAS search compares them: (key, operator, value, effect)."""
    return tuple((t.key or "", t.operator or "Equal", t.value or "", t.effect or "") for t in tolerations)


def pod_set_request(ps: PodSet, count: int, implied: bool) -> PodSetTASRequest:
    """``TASPodSetRequests`` of one pod set (its one-pod requests from the PodSpec)."""
    tr = ps.topology_request
    spec = ps.template.spec if ps.template is not None else None
    affinity = None
    na = spec.affinity.node_affinity if spec is not None and spec.affinity is not None else None
    required = na.required_during_scheduling_ignored_during_execution if na is not None else None
    if required is not None:
        affinity = tuple(node_selector_term(t) for t in required.node_selector_terms or ())
    preferred = (na.preferred_during_scheduling_ignored_during_execution if na is not None else None) or ()
    return PodSetTASRequest(
        ps.name or "",
        count,
        pod_spec_requests(spec) if spec is not None else {},
        required=tr.required if tr is not None else None,
        preferred=tr.preferred if tr is not None else None,
        unconstrained=bool(tr.unconstrained) if tr is not None else False,
        implied=implied,
        node_selector=dict((spec.node_selector if spec is not None else None) or {}),
        affinity=affinity,
        preferred_affinity=tuple(WeightedTerm(p.weight, node_selector_term(p.preference)) for p in preferred),
        tolerations=toleration_keys((spec.tolerations if spec is not None else None) or ()),
        slice_layers=slice_layers(tr),
    )


class TASCycle:
    """The TAS flavors of one cycle (``ClusterQueueSnapshot.TASFlavors``), built when first asked."""

    def __init__(
        self,
        cache: Any,
        flavors: Mapping[str, ResourceFlavor],
        admitted: Callable[[], Iterable[Workload]],
        by_hostname_prefix: bool = True,
        balanced: bool = False,
        elastic: bool = False,
        respect_preferred: bool = False,
        overlapping: bool = False,
    ) -> None:
        self.cache = cache
        self.flavors = flavors
        self.admitted = admitted  # the workloads holding quota
        self.by_hostname_prefix = by_hostname_prefix  # TASAssignmentsEncodingByHostnamePrefix
        self.balanced = balanced  # TASBalancedPlacement
        self.elastic = elastic  # ElasticJobsViaWorkloadSlicesWithTAS (with ElasticJobsViaWorkloadSlices)
        self.respect_preferred = respect_preferred  # TASRespectNodeAffinityPreferred
        self.overlapping = overlapping  # TASHandleOverlappingFlavors
        self._levels: dict[str, tuple[str, tuple[str, ...]] | None] = {}
        self._snapshots: dict[str, TASFlavorSnapshot] = {}
        self._admitted: AdmittedPodSets | None = None
        self._shared_usage: Usage | None = None  # the node-sharing flavors' usage, once asked

    # --- flavors ----------------------------------------------------------------------------------
    def levels(self, flavor: str) -> tuple[str, tuple[str, ...]] | None:
        if flavor not in self._levels:
            self._levels[flavor] = tas_flavor_levels(self.cache, self.flavors.get(flavor))
        return self._levels[flavor]

    def tas_only(self, cq: ClusterQueueNode) -> bool:
        """``isTASOnly``: every flavor of the ClusterQueue is a TAS flavor."""
        return all(self.levels(f) is not None for f in cq.settings.all_flavors())

    def requested(self, ps: PodSet, cq: ClusterQueueNode) -> tuple[bool, bool]:
        """``isTASRequested`` and ``isTASImplied``."""
        if is_explicit(ps.topology_request):
            return True, False
        implied = self.tas_only(cq)
        return implied, implied

    def snapshot_levels(self, flavor: str) -> TASFlavorSnapshot:
        """A node-less snapshot of the flavor's levels (``HasLevel`` needs only the levels)."""
        topology, levels = self.levels(flavor)  # type: ignore[misc]
        return TASFlavorSnapshot(topology, levels, ())

    def snapshot(self, flavor: str) -> TASFlavorSnapshot:
        snap = self._snapshots.get(flavor)
        if snap is None:
            topology, levels = self.levels(flavor)  # type: ignore[misc]
            snap = build_snapshot(self.cache, self.flavors[flavor], topology, levels)
            snap.balanced = self.balanced
            snap.respect_preferred = self.respect_preferred
            snap.add_summed_usage(self._admitted_usage(flavor))
            self._snapshots[flavor] = snap
        return snap

    def _admitted_usage(self, flavor: str) -> Usage:
        """What ``flavor``'s snapshot starts with: the usage of the admitted TAS pod sets on it, or,
        when it shares nodes, on any of the sharing flavors (summed once for all of them).

        The admitted Workloads are walked once for every flavor's snapshot (:mod:`.admitted`). The
        first snapshot comes before any preemption simulation removes a Workload
        (:mod:`.preemption`), and the cycle's admissions are added to the snapshots, not to the
        admitted Workloads, so every later snapshot would have walked the same ones."""
        if self._admitted is None:
            tas_flavors = frozenset(f for f in self.flavors if self.levels(f) is not None)
            self._admitted = admitted_pod_sets(self.admitted(), tas_flavors)
        if not self._shares_nodes(flavor):
            return self._admitted.usage((flavor,))
        if self._shared_usage is None:
            self._shared_usage = self._admitted.usage(self._host_flavors())
        return self._shared_usage

    def _shares_nodes(self, flavor: str) -> bool:
        """``TASHandleOverlappingFlavors`` applies to the flavor: its lowest level is the hostname
        (``IsLowestLevelHostname``)."""
        levels = self.levels(flavor)
        return self.overlapping and levels is not None and levels[1][-1] == HOSTNAME

    def _host_flavors(self) -> tuple[str, ...]:
        """The TAS flavors whose usage is shared per node, in name order."""
        return tuple(f for f in sorted(self.flavors) if self._shares_nodes(f))

    def flavor_mismatch(
        self, cq: ClusterQueueNode, ps: PodSet, flavor: ResourceFlavor, covered: Iterable[str]
    ) -> str | None:
        """``checkPodSetAndFlavorMatchForTAS``."""
        name = flavor.metadata.name or ""
        has_topology = bool(flavor.spec is not None and flavor.spec.topology_name)
        requested, implied = self.requested(ps, cq)
        if not requested:
            return f'Flavor "{name}" supports only TopologyAwareScheduling' if has_topology else None
        if implied:
            return None
        if not has_topology:
            spec = ps.template.spec if ps.template is not None else None
            requests = pod_spec_requests(spec) if spec is not None else {}
            if not any(r in requests for r in covered):
                return None
            return f'Flavor "{name}" does not support TopologyAwareScheduling'
        if self.levels(name) is None:
            return f'Flavor "{name}" information missing in TAS cache'
        tr = ps.topology_request
        probe = PodSetTASRequest(
            "",
            0,
            {},
            required=tr.required if tr is not None else None,
            preferred=tr.preferred if tr is not None else None,
            unconstrained=bool(tr is not None and tr.unconstrained),
            slice_layers=slice_layers(tr),
        )
        if tr is None or not self.snapshot_levels(name).has_levels(probe):
            return f'Flavor "{name}" does not contain the requested level'
        return None

    # --- the flavor assigner's TAS step -----------------------------------------------------------
    def _requests(
        self, a: Assignment, wl: WorkloadInfo, cq: ClusterQueueNode, replace: WorkloadInfo | None = None
    ) -> list[FlavorRequest]:
        """``WorkloadsTopologyRequests``; a pod set whose flavors are not exactly one TAS flavor
        gets the error. ``replace``: the slice ``wl`` replaces (``replaceWorkloadSlice``)."""
        out = []
        spec_sets = (wl.obj.spec.pod_sets if wl.obj.spec else None) or []
        elastic = self.elastic and _is_elastic(wl.obj)
        for i, (ps, psa) in enumerate(zip(spec_sets, a.pod_sets, strict=False)):
            requested, implied = self.requested(ps, cq)
            if not requested or psa.status.err is not None or psa.count == 0 or psa.topology is not None:
                continue
            previous = None
            if elastic:  # only unconstrained topologies scale (KEP-77, "Topology Aware Scheduling")
                refused = _elastic_refusal(ps)
                if refused is not None:
                    psa.status.err, a.forced_mode = refused, None
                    continue
                previous = previous_assignment(replace.obj if replace is not None else None, ps.name or "")
            tas = sorted({fa.name for fa in psa.flavors.values() if self.levels(fa.name) is not None})
            if len(tas) != 1:
                psa.status.err = (
                    NO_TAS_FLAVOR if not tas else f"more than one TAS flavor assigned: {', '.join(tas)}"
                )
                a.forced_mode = None
                continue
            if self._delayed(wl, cq, tas[0]):  # ``podSetTopologyRequest``: after the checks
                psa.delayed = DELAYED_PENDING
                continue
            group = ps.topology_request.pod_set_group_name if ps.topology_request is not None else None
            out.append(FlavorRequest(i, tas[0], pod_set_request(ps, psa.count, implied), group, previous))
        return out

    def _delayed(self, wl: WorkloadInfo, cq: ClusterQueueNode, flavor: str) -> bool:
        """A ClusterQueue with a MultiKueue check (the worker finds the topology), or a first pass
        (no quota reservation) on a flavor a ProvisioningRequest check covers."""
        checks = cq.settings.admission_checks
        if not checks:
            return False
        if has_multikueue_check(checks, self.cache):
            return True
        if W.has(wl.obj.status, Cond.QUOTA_RESERVED):
            return False
        return delays_topology(checks, cq.settings.all_flavors(), flavor, self.cache)

    def search(
        self, requests: list[FlavorRequest], empty: bool
    ) -> tuple[dict[int, Placement], tuple[int, str] | None]:
        """``FindTopologyAssignmentsForFlavor``: the placements, or the first pod set that fails
        (of a podset group, the first in the Workload)."""
        found: dict[int, Placement] = {}
        by_host: dict[tuple[str, ...], dict[str, int]] = {}  # ``aggregatedDomainUsages``
        for flavor in sorted({r.flavor for r in requests}):
            snap = self.snapshot(flavor)
            assumed: dict[tuple[str, ...], dict[str, int]] = {}
            assume: AddAssumed = add_assumed
            if self._shares_nodes(flavor):
                assumed, assume = _shared_assumed(snap, by_host)
            for workers, leader in _groups([r for r in requests if r.flavor == flavor]):
                elastic = self._elastic(snap, workers, leader, assumed, empty, assume)
                if elastic is not None:
                    result, leader_result = elastic.workers, elastic.leader
                else:
                    result, leader_result = snap.find_group(
                        workers.request,
                        leader.request if leader is not None else None,
                        assumed,
                        simulate_empty=empty,
                    )
                if result.failure:
                    first = min(workers.index, leader.index if leader is not None else workers.index)
                    return found, (first, result.failure)
                for r, res in ((workers, result), (leader, leader_result)):
                    if r is None or res is None:
                        continue
                    found[r.index] = Placement(
                        flavor, res, dict(r.request.single_pod), self.by_hostname_prefix
                    )
                    if elastic is None:  # the elastic path assumed what it took
                        assume(assumed, snap.leaves_of(res), r.request.single_pod)
        return found, None

    def _elastic(
        self,
        snap: TASFlavorSnapshot,
        workers: FlavorRequest,
        leader: FlavorRequest | None,
        assumed: dict[tuple[str, ...], dict[str, int]],
        empty: bool,
        assume: AddAssumed,
    ) -> ElasticPlacement | None:
        """``handleElasticWorkload`` when the gate is on (:mod:`.elastic`)."""
        if not self.elastic or workers.previous is None:
            return None
        return find_elastic(
            snap,
            (workers.request, workers.previous),
            (leader.request, leader.previous) if leader is not None else None,
            assumed,
            assume,
            simulate_empty=empty,
        )

    def assign(
        self,
        a: Assignment,
        wl: WorkloadInfo,
        cq: ClusterQueueNode,
        observability: bool,
        replace: WorkloadInfo | None = None,
    ) -> None:
        """The TAS step of ``assignFlavors`` (``observability``: UnadmittedWorkloadsObservability
        marks the flavor attempt ``TopologyPlacementFailed``; ``replace``: the slice ``wl``
        replaces)."""
        requests = self._requests(a, wl, cq, replace)
        if not requests:
            return
        if a.representative_mode() == FIT:
            found, failure = self.search(requests, empty=False)
            if failure is None:
                for i, placement in found.items():
                    a.pod_sets[i].topology = placement
            else:
                a.pod_sets[failure[0]].status.reasons.append(failure[1])
                _update_mode(a, a.pod_sets[failure[0]], PREEMPT)
        if a.representative_mode() == PREEMPT:
            _, failure = self.search(requests, empty=True)
            if failure is not None:
                psa = a.pod_sets[failure[0]]
                tas_flavor = next(r.flavor for r in requests if r.index == failure[0])
                for att in psa.attempts if observability else ():
                    if att.flavor == tas_flavor:  # ``markFlavorAttempt``
                        att.mode, att.no_fit_reason = NO_FIT, "TopologyPlacementFailed"
                _update_mode(a, psa, NO_FIT)
            else:
                for r in requests:
                    _update_mode(a, a.pod_sets[r.index], PREEMPT)

    def preemption_check(
        self, a: Assignment, wl: WorkloadInfo, cq: ClusterQueueNode, replace: WorkloadInfo | None = None
    ) -> TopologyRemoval | None:
        """``GetTargets``' ``WorkloadsTopologyRequests``: the TAS half of the preemptor's fit test,
        or ``None`` when no pod set asks for TAS (the quota alone decides)."""
        requests = self._requests(a, wl, cq, replace)
        if not requests:
            return None
        flavors = sorted({r.flavor for r in requests})
        return TopologyRemoval(
            [(f, self.snapshot(f)) for f in flavors], lambda: self.search(requests, empty=False)[1] is None
        )

    # --- processing -------------------------------------------------------------------------------
    def fits(self, a: Assignment, removed: Iterable[WorkloadInfo] = ()) -> bool:
        """Whether the assignment's domains still hold its pods after this cycle's admissions, with
        the TAS usage of ``removed`` (the workloads the cycle has preempted and the entry's
        targets) taken out: upstream's ``fits`` (``scheduler.go``) checks ``ClusterQueueSnapshot.Fits``
        under ``SimulateWorkloadUsageRemoval``, which moves their TAS usage with their quota."""
        placed = [ps.topology for ps in a.pod_sets if ps.topology is not None]
        if not placed:
            return True
        flavors = sorted({p.flavor for p in placed})
        removal = TopologyRemoval([(f, self.snapshot(f)) for f in flavors], lambda: True)
        for info in removed:
            removal.remove(info)
        try:
            return all(self.snapshot(p.flavor).fits(p.result.domains, p.single_pod) for p in placed)
        finally:
            removal.restore()

    def admit(self, a: Assignment) -> None:
        """The assignment's TAS usage, added to the cycle's snapshots."""
        for ps in a.pod_sets:
            if ps.topology is not None:
                self.snapshot(ps.topology.flavor).add_usage(
                    ps.topology.result.domains, ps.topology.single_pod
                )


def _is_elastic(wl: Workload) -> bool:
    """``workload.IsElasticWorkload`` (the cycle runs only with ElasticJobsViaWorkloadSlices on)."""
    return slicing_enabled(wl, True)


def _elastic_refusal(ps: PodSet) -> str | None:
    """``ErrElasticRequiredTopologyNotSupported``, ``ErrElasticPreferredTopologyNotSupported``."""
    tr = ps.topology_request
    if tr is None:
        return None
    for what, level in (("required", tr.required), ("preferred", tr.preferred)):
        if level is not None:
            return f"{what} topology is not supported with ElasticJobsViaWorkloadSlices"
    return None


def add_assumed(
    assumed: dict[tuple[str, ...], dict[str, int]],
    leaves: Iterable[tuple[tuple[str, ...], int]],
    single_pod: Mapping[str, int],
) -> None:
    """``addAssumedUsage``: what a pod set of the workload took, seen by its next pod sets."""
    add_pods(assumed, leaves, single_pod)


def _shared_assumed(snap: TASFlavorSnapshot, by_host: Assumed) -> tuple[Assumed, AddAssumed]:
    """A flavor's assumed usage seeded from what the Workload's pod sets took on the flavors sharing
    nodes (``by_host``, keyed by hostname), and an ``addAssumedUsage`` that records there too."""
    assumed: Assumed = {}
    for host, usage in by_host.items():
        leaf = snap.leaf_of(host)
        if leaf is not None:
            assumed[leaf] = dict(usage)

    def assume(
        into: Assumed, leaves: Iterable[tuple[tuple[str, ...], int]], single_pod: Mapping[str, int]
    ) -> None:
        taken = list(leaves)
        add_assumed(into, taken, single_pod)
        add_assumed(by_host, [(leaf[-1:], count) for leaf, count in taken], single_pod)

    return assumed, assume


def _update_mode(a: Assignment, psa: PodSetAssignment, mode: int) -> None:
    """``Assignment.updateMode``: the pod set's flavors, and the assignment's representative mode."""
    for fa in psa.flavors.values():
        fa.mode = mode
    a.forced_mode = mode
