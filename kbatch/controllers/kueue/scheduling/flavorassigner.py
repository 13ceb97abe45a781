"""The flavor assigner: for each pod set and resource, the flavor to charge, and how it fits.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/flavorassigner/flavorassigner.go`` (v0.19.2), a pure
computation over the snapshot. For each pod set, resources are taken in name order; a resource's
resource group is scanned flavor by flavor (resuming after the last one tried, with
``FlavorFungibility``), skipping flavors whose node taints the pod set does not tolerate or whose
node labels its node selector / required node affinity (restricted to the flavor's label keys) does
not match. Each resource of the group is then checked against the quota:

* more than the queue could ever get (``PotentialAvailable``): ``NoFit``
  ("insufficient quota for …");
* within what is available now: ``Fit`` (with the borrowing height it needs);
* otherwise ("insufficient unused quota for …"), when the nominal quota covers it, a hierarchical
  reclaim may apply, or the queue may preempt while borrowing, the preemption oracle says whether
  preemption would make room (``Preempt``/``Reclaim``) or not (no candidates).

The flavor's mode is the worst of its resources'. With ``whenCanBorrow``/``whenCanPreempt`` set to
``MayStopSearch`` the scan stops at the first flavor that fits in that way; ``TryNextFlavor`` keeps
scanning and keeps the preferred mode (``preference``: ``BorrowingOverPreemption`` — the default —
or ``PreemptionOverBorrowing``).

With TopologyAwareScheduling a flavor must match the pod set's topology request
(:meth:`~kbatch.controllers.kueue.tas.cycle.TASCycle.flavor_mismatch`) and, once every pod set has
its flavors, the TAS step (:meth:`~kbatch.controllers.kueue.tas.cycle.TASCycle.assign`) finds their
topology assignments.

A workload slice that replaces another (``replace``, elastic jobs: :mod:`..workloadslicing`) keeps
the old slice's flavor for each resource ("could not assign F flavor since the original workload is
assigned: G" otherwise) and asks the quota for the difference only: its requests minus the old
slice's, which its assignment's usage counts too (``Assignment.append``).

Pod sets sharing ``topologyRequest.podSetGroupName`` are assigned together
(:meth:`FlavorAssigner.assign`): one flavor per resource for the group's summed requests.

With ``ConcurrentAdmission`` a Variant's scan skips every flavor its allowed-flavor annotation does
not list ("skipping flavor F due to WorkloadAllowedResourceFlavorAnnotation annotation", upstream's
``IsFlavorAllowedForVariant`` check in ``findFlavorForPodSetResource``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any

from kbatch.api.kueue_v1beta2 import PodSet
from kbatch.api.kueue_v1beta2.constants import Reason
from kbatch.api.tolerations import tolerates
from kbatch.controllers.kueue.concurrent_admission.variants import flavor_allowed
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import PodSetResources, WorkloadInfo
from kbatch.controllers.kueue.model.quota import find_height_of_lowest_subtree_that_fits
from kbatch.controllers.kueue.model.requests import FlavorResource, format_amount
from kbatch.controllers.kueue.scheduling.assignment import (
    FIT,
    NO_FIT,
    PREEMPT,
    Assignment,
    Attempt,
    FlavorAssignment,
    LastState,
    PodSetAssignment,
    Status,
    merge_attempts_for_resource,
    most_severe,
)
from kbatch.controllers.kueue.scheduling.snapshot import cq_available, cq_potential
from kbatch.controllers.scheduler.types import NodeSelectorRequirement, NodeSelectorTerm

if TYPE_CHECKING:
    from kbatch.controllers.kueue.tas.cycle import TASCycle

__all__ = ["AssignerOptions", "FlavorAssigner", "taint_text"]

# preemption modes, worst to best (``preemptionMode``)
PM_NO_FIT, PM_NO_CANDIDATES, PM_PREEMPT, PM_RECLAIM, PM_FIT = range(5)
_POSSIBILITY = {PM_NO_CANDIDATES: "NoCandidates", PM_PREEMPT: "Preempt", PM_RECLAIM: "Reclaim"}
_WORST = (PM_NO_FIT, 1 << 62)
_BEST = (PM_FIT, 0)
Oracle = Callable[[FlavorResource, int], tuple[int, int]]  # -> (0 none | 1 preempt | 2 reclaim, borrow)


@dataclass(frozen=True, slots=True)
class AssignerOptions:
    fungibility: bool = True  # FlavorFungibility gate
    observability: bool = False  # UnadmittedWorkloadsObservability gate
    ignore_undeclared: bool = False  # QuotaCheckStrategy=IgnoreUndeclared (with its gate)
    fair_sharing: bool = False
    concurrent_admission: bool = False  # ConcurrentAdmission gate: a Variant's allowed flavors


def _flavor_mode(pm: int) -> int:
    return FIT if pm == PM_FIT else (NO_FIT if pm == PM_NO_FIT else PREEMPT)


def is_preferred(a: tuple[int, int], b: tuple[int, int], preference: str | None) -> bool:
    """``isPreferred``: whether granular mode ``a`` (preemption mode, borrowing height) beats ``b``."""
    if a[0] == PM_NO_FIT:
        return False
    if b[0] == PM_NO_FIT:
        return True
    a_none, b_none = a[0] == PM_NO_CANDIDATES, b[0] == PM_NO_CANDIDATES
    if a_none != b_none:
        return not a_none
    if preference == "PreemptionOverBorrowing":
        return a[1] < b[1] if a[1] != b[1] else a[0] > b[0]
    return a[0] > b[0] if a[0] != b[0] else a[1] < b[1]


def _should_try_next(mode: tuple[int, int], when_can_borrow: str, when_can_preempt: str) -> bool:
    if mode[0] in (PM_NO_FIT, PM_NO_CANDIDATES):
        return True
    if mode[0] in (PM_PREEMPT, PM_RECLAIM) and when_can_preempt == "TryNextFlavor":
        return True
    return mode[1] != 0 and when_can_borrow == "TryNextFlavor"


def taint_text(t: Any) -> str:
    """How upstream's ``checkFlavorForPodSets`` prints the untolerated taint: ``%s`` of the
    ``v1.Taint`` value ``FindMatchingUntoleratedTaint`` returns. ``String()`` has a pointer
    receiver, so Go prints the struct's fields: ``{instance spot NoSchedule <nil>}``
    (``flavorassigner_test.go``, "each podset requires preemption on a different flavor"); a
    ``TimeAdded`` prints as Go's ``time.Time.String()`` in the manager's zone (UTC)."""
    return f"{{{t.key or ''} {t.value or ''} {t.effect or ''} {_go_time(t.time_added)}}}"


def _go_time(at: Any) -> str:
    """``(*metav1.Time).String()``: ``2006-01-02 15:04:05.999999999 -0700 MST`` in UTC, or ``<nil>``."""
    if at is None:
        return "<nil>"
    at = at.astimezone(UTC)
    frac = f".{at.microsecond:06d}".rstrip("0").rstrip(".")
    return f"{at:%Y-%m-%d %H:%M:%S}{frac} +0000 UTC"


def _untolerated(taints: list[Any], tolerations: list[Any]) -> Any:
    for taint in taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def _affinity_matches(spec: Any, labels: Mapping[str, str]) -> bool:
    """``flavorSelector`` then ``RequiredNodeAffinity.Match`` against the flavor's node labels."""
    keys = labels.keys()
    for k, v in (spec.node_selector or {}).items():
        if k in keys and labels.get(k) != v:
            return False
    aff = spec.affinity
    na = aff.node_affinity if aff is not None else None
    required = na.required_during_scheduling_ignored_during_execution if na is not None else None
    if required is None:
        return True
    terms = []
    for t in required.node_selector_terms or ():
        exprs = tuple(
            NodeSelectorRequirement(e.key, e.operator, tuple(e.values or ()))
            for e in t.match_expressions or ()
            if e.key in keys
        )
        if not exprs:
            return True  # an emptied term matches any flavor
        terms.append(NodeSelectorTerm(exprs))
    return not terms or any(term.matches(labels, "") for term in terms)


class FlavorAssigner:
    """``FlavorAssigner`` for one workload and its ClusterQueue in this cycle."""

    def __init__(
        self,
        wl: WorkloadInfo,
        cq: ClusterQueueNode,
        flavors: Mapping[str, Any],
        oracle: Oracle,
        options: AssignerOptions,
        last: LastState | None = None,
        cycle: int = 0,
        tas: TASCycle | None = None,
        replace: WorkloadInfo | None = None,
    ) -> None:
        self.wl = wl
        self.replace = replace  # the workload slice this one replaces (ReplacedWorkloadSlice)
        self.cq = cq
        self.flavors = flavors
        self.oracle = oracle
        self.options = options
        self.last = last
        self.cycle = cycle
        self.tas = tas  # the TAS step (TopologyAwareScheduling), kbatch.controllers.kueue.tas.cycle
        self._pod_specs = [
            ps.template.spec if ps.template else None
            for ps in (wl.obj.spec.pod_sets if wl.obj.spec else None) or ()
        ]

    # --- the assignment --------------------------------------------------------------------------
    def assign(self, counts: list[int] | None = None) -> Assignment:
        """``assignFlavors``: each podset group (the pod sets sharing ``podSetGroupName``, else one
        pod set; in order of first appearance) gets one flavor per resource for its summed
        requests; its pod sets keep the flavors of the resources they request. The assignment
        lists the pod sets in the Workload's order (upstream: in group order, the same unless the
        groups interleave)."""
        pod_sets: list[PodSetResources] = list(self.wl.pod_sets)
        if counts is not None:
            pod_sets = [ps.scaled_to(c) for ps, c in zip(pod_sets, counts, strict=True)]
        assignment = Assignment(last_state=LastState([], self.cq.generation, self.cycle))
        has_pods = self.cq.settings.rg_by_resource("pods") is not None
        done: dict[int, tuple[dict[str, int], PodSetAssignment]] = {}
        usage: dict[FlavorResource, int] = {}  # the usage of the groups assigned so far
        failed = False
        for members in self._groups():
            per = {i: {**pod_sets[i].requests, **({"pods": pod_sets[i].count} if has_pods else {})}
                   for i in members}
            total: dict[str, int] = {}
            for i in members:
                for res, q in per[i].items():
                    total[res] = total.get(res, 0) + q
            flavors, status, considered = self._assign_pod_set(members, total, usage)
            attempts = [considered[f] for f in sorted(considered)]
            for i in members:
                ps = pod_sets[i]
                psa = PodSetAssignment(ps.name, self._pod_set_flavors(i, per[i], flavors),
                                       Status(list(status.reasons), status.err, status.no_fit_reason),
                                       per[i], ps.count, list(attempts))
                done[i] = (per[i], psa)
                for res, fa in psa.flavors.items():
                    fr = (fa.name, res)
                    usage[fr] = usage.get(fr, 0) + per[i].get(res, 0) - self._old_request(i, res)
                failed = failed or status.err is not None or bool(per[i] and not psa.flavors)
            if failed:
                break
        for i in sorted(done):
            assignment.append(*done[i])
            for res, fa in done[i][1].flavors.items():  # only the delta over a replaced slice is new
                fr = (fa.name, res)
                assignment.usage[fr] = assignment.usage.get(fr, 0) - self._old_request(i, res)
        if not failed and self.tas is not None:
            self.tas.assign(assignment, self.wl, self.cq, self.options.observability, self.replace)
        self._resolve(assignment)
        return assignment

    def _groups(self) -> list[tuple[int, ...]]:
        """The podset groups in order of first appearance (``orderedgroups``)."""
        groups: dict[str, list[int]] = {}
        for i, ps in enumerate((self.wl.obj.spec.pod_sets if self.wl.obj.spec else None) or ()):
            tr = ps.topology_request
            key = tr.pod_set_group_name if tr is not None and tr.pod_set_group_name is not None else None
            groups.setdefault(key if key is not None else f"#{i}", []).append(i)
        return [tuple(m) for m in groups.values()]

    def _pod_set_flavors(
        self, index: int, requests: Mapping[str, int], group: dict[str, FlavorAssignment] | None
    ) -> dict[str, FlavorAssignment]:
        """``resolvePodSetFlavors``: the group's flavors of the resources the pod set requests; a
        pod set of a podset group requesting nothing keeps the group's TAS flavors."""
        flavors = group or {}
        if requests:
            return {r: fa for r, fa in flavors.items() if r in requests}
        tr = self._pod_set(index).topology_request
        if tr is None or tr.pod_set_group_name is None or self.tas is None:
            return {}
        return {r: fa for r, fa in flavors.items() if self.tas.levels(fa.name) is not None}

    def _old_request(self, index: int, res: str) -> int:
        """What the replaced slice's pod set of the same name requests of ``res`` (0 without one)."""
        return self._old(index).requests.get(res, 0) if self.replace is not None else 0

    def _resolve(self, assignment: Assignment) -> None:
        if self.options.observability:
            assignment.resolve_no_fit_reason([rg.flavors for rg in self.cq.settings.resource_groups])

    def _assign_pod_set(
        self, members: tuple[int, ...], requests: dict[str, int], usage: dict[FlavorResource, int]
    ) -> tuple[dict[str, FlavorAssignment] | None, Status, dict[str, Attempt]]:
        settings = self.cq.settings
        group: dict[str, FlavorAssignment] | None = {}
        group_status = Status()
        considered: dict[str, Attempt] = {}
        for res in sorted(requests):
            rg = settings.rg_by_resource(res)
            if rg is None and (requests[res] == 0 or self.options.ignore_undeclared):
                continue
            if group is not None and res in group:
                continue
            flavors, status, attempts = self._find_flavor(members, requests, res, usage)
            merge_attempts_for_resource(
                considered, attempts, res, rg.flavors if rg else None, self.options.observability
            )
            if status is not None and (status.err is not None or not flavors):
                return None, status, considered
            if not flavors:
                return None, Status(), considered
            group.update(flavors)  # type: ignore[union-attr]
            if status is not None:
                group_status.reasons += status.reasons
        return group, group_status, considered

    def _find_flavor(
        self, members: tuple[int, ...], requests: dict[str, int], res: str, usage: dict[FlavorResource, int]
    ) -> tuple[dict[str, FlavorAssignment] | None, Status | None, list[Attempt]]:
        """``findFlavorForPodSets`` for a podset group (its first pod set's last tried flavor)."""
        settings = self.cq.settings
        rg = settings.rg_by_resource(res)
        if rg is None:
            return None, Status([f"resource {res} unavailable in ClusterQueue"]), []
        status = Status()
        group_requests = {r: v for r, v in requests.items() if r in rg.covered}
        best: dict[str, FlavorAssignment] | None = None
        best_mode = _WORST
        attempts: list[Attempt] = []
        attempted = -1
        start = self.last.next_flavor(members[0], res) if (self.options.fungibility and self.last) else 0
        obs = self.options.observability
        for idx in range(start, len(rg.flavors)):
            attempted = idx
            fname = rg.flavors[idx]
            if self.options.concurrent_admission and not flavor_allowed(self.wl.obj, fname):
                status.reasons.append(
                    f"skipping flavor {fname} due to WorkloadAllowedResourceFlavorAnnotation annotation"
                )
                continue
            fstatus = self._check_flavor(fname, members, rg.covered)
            if not fstatus.is_fit():
                status.reasons += fstatus.reasons
                attempts.append(
                    Attempt(
                        fname,
                        NO_FIT,
                        reasons=list(fstatus.reasons),
                        no_fit_reason=Reason.NO_MATCHING_FLAVOR if obs else "",
                    )
                )
                continue
            assignments: dict[str, FlavorAssignment] = {}
            mode = _BEST
            max_borrow = 0
            quota_reasons: list[str] = []
            no_fit_reason = ""
            for rname in sorted(group_requests):
                fr = (fname, rname)
                value = group_requests[rname]
                if self.replace is not None:
                    value, mismatch = self._slice_delta(members, fname, rname, value)
                    if mismatch:
                        mode = _WORST
                        quota_reasons.append(mismatch)
                        status.reasons.append(mismatch)
                        no_fit_reason = most_severe(no_fit_reason, Reason.NO_MATCHING_FLAVOR)
                pm, borrow, s = self._fits_quota(fr, usage.get(fr, 0), value)
                if s is not None:
                    quota_reasons += s.reasons
                    status.reasons += s.reasons
                    no_fit_reason = most_severe(no_fit_reason, s.no_fit_reason)
                max_borrow = max(max_borrow, borrow)
                this = (pm, borrow)
                if is_preferred(mode, this, settings.preference):
                    mode = this
                if mode[0] == PM_NO_FIT:
                    continue
                assignments[rname] = FlavorAssignment(fname, _flavor_mode(pm), borrow=borrow)
            attempts.append(
                Attempt(
                    fname,
                    _flavor_mode(mode[0]),
                    max_borrow,
                    _POSSIBILITY.get(mode[0]),
                    sorted(quota_reasons),
                    no_fit_reason if obs else "",
                )
            )
            if self.options.fungibility:
                if not _should_try_next(mode, settings.when_can_borrow, settings.when_can_preempt):
                    best, best_mode = assignments, mode
                    break
                if is_preferred(mode, best_mode, settings.preference):
                    best, best_mode = assignments, mode
            elif mode[0] > best_mode[0]:
                best, best_mode = assignments, mode
                if mode[0] == PM_FIT:
                    return best, None, attempts
        if self.options.fungibility:
            for fa in (best or {}).values():
                fa.tried_flavor_idx = -1 if attempted == len(rg.flavors) - 1 else attempted
            if best_mode[0] == PM_FIT:
                return best, None, attempts
        return best, status, attempts

    def _old(self, index: int) -> PodSetResources:
        """The replaced slice's pod set of the same name (an empty one when it has none)."""
        assert self.replace is not None
        name = self.wl.pod_sets[index].name
        return next((ps for ps in self.replace.pod_sets if ps.name == name), PodSetResources(name, 0, {}))

    def _slice_delta(self, members: tuple[int, ...], fname: str, rname: str, value: int) -> tuple[int, str]:
        """The request less the replaced slice's pod sets', or the first flavor mismatch's reason
        (and the request as it stood): a slice keeps its predecessor's flavor
        (``findFlavorForPodSets``)."""
        assert self.replace is not None
        pod_sets = self.replace.pod_sets
        for index in members:
            old = pod_sets[index] if index < len(pod_sets) else PodSetResources("", 0, {})
            original = old.flavors.get(rname, "")
            if original != fname:
                return value, (
                    f"could not assign {fname} flavor since the original workload is assigned: {original}"
                )
            value -= old.requests.get(rname, 0)
        return value, ""

    def _check_flavor(self, fname: str, members: tuple[int, ...], covered: frozenset[str]) -> Status:
        """``checkFlavorForPodSets``: each pod set of the group in turn, the first mismatch."""
        flavor = self.flavors.get(fname)
        if flavor is None:
            return Status([f"flavor {fname} not found"])
        for index in members:
            status = self._check_pod_set(flavor, fname, index, covered)
            if not status.is_fit():
                return status
        return Status()

    def _check_pod_set(self, flavor: Any, fname: str, index: int, covered: frozenset[str]) -> Status:
        """One pod set against the flavor: the TAS match, taints and node affinity."""
        if self.tas is not None:
            mismatch = self.tas.flavor_mismatch(self.cq, self._pod_set(index), flavor, covered)
            if mismatch:
                return Status([mismatch])
        spec = self._pod_specs[index] if index < len(self._pod_specs) else None
        fspec = flavor.spec
        if spec is None:
            return Status()
        taint = _untolerated(
            list((fspec.node_taints if fspec else None) or ()),
            list(spec.tolerations or ()) + list((fspec.tolerations if fspec else None) or ()),
        )
        if taint is not None:
            return Status([f"untolerated taint {taint_text(taint)} in flavor {fname}"])
        if not _affinity_matches(spec, (fspec.node_labels if fspec else None) or {}):
            return Status([f"flavor {fname} doesn't match node affinity"])
        return Status()

    def _pod_set(self, index: int) -> PodSet:
        return (self.wl.obj.spec.pod_sets or [])[index]  # type: ignore[union-attr]

    def _fits_quota(self, fr: FlavorResource, assumed: int, request: int) -> tuple[int, int, Status | None]:
        """``fitsResourceQuota``."""
        cq = self.cq
        status = Status(no_fit_reason=Reason.WAITING_FOR_QUOTA)
        avail = cq_available(cq, fr)
        capacity = cq_potential(cq, fr)
        value = assumed + request
        res = fr[1]
        if value > capacity:
            status.reasons.append(
                f"insufficient quota for {res} in flavor {fr[0]}, previously considered podsets requests "
                f"({format_amount(res, assumed)}) + current podset request ({format_amount(res, request)}) > "
                f"maximum capacity ({format_amount(res, capacity)})"
            )
            status.no_fit_reason = Reason.EXCEEDS_MAX_QUOTA
            return PM_NO_FIT, 0, status
        borrow, may_reclaim = find_height_of_lowest_subtree_that_fits(cq, fr, value)
        if value <= avail:
            return PM_FIT, borrow, None
        status.reasons.append(
            f"insufficient unused quota for {res} in flavor {fr[0]}, "
            f"{format_amount(res, value - avail)} more needed"
        )
        pre = cq.preemption
        can_preempt_borrowing = pre.borrow_within_cohort != "Never" or (
            self.options.fair_sharing and pre.reclaim_within_cohort != "Never"
        )
        if cq.quota(fr).nominal >= value or may_reclaim or can_preempt_borrowing:
            possibility, after = self.oracle(fr, value)
            mode = (PM_NO_CANDIDATES, PM_PREEMPT, PM_RECLAIM)[possibility]
            status.no_fit_reason = ""
            return mode, after, status
        return PM_NO_FIT, borrow, status
