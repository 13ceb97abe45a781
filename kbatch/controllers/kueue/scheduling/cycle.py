"""One scheduling cycle, as numbered steps; a pure decision over the cache's snapshot.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/scheduler.go`` ``schedule`` (v0.19.2):

1. the heads of every active ClusterQueue (popped by the queue manager, the caller);
2. a snapshot of the cache (:class:`~.snapshot.Snapshot`);
3. nomination: an inadmissible head (failed admission checks, inactive or missing ClusterQueue, a
   namespace the ClusterQueue does not select, invalid resources) gets its message; every other head
   gets a flavor assignment and, when it needs preemption, its targets — partially admitted at the
   largest counts that work when the full counts do not (``PartialAdmission``);
4. ordering (:mod:`.ordering`): classical, or the fair-sharing tournament;
5. each entry in turn (``processEntry``): ``NoFit`` and preemption without candidates stay pending
   (the latter reserving quota unless its queue can always reclaim); an entry that needs to preempt
   while one of its preemption gates is closed stays pending too (``markPreemptionGated``, with
   ``ConcurrentAdmission`` or ``MultiKueueOrchestratedPreemption``); an entry whose targets overlap
   those of an earlier one, or which no longer fits after the earlier ones, is skipped; otherwise its
   usage is added to the snapshot and it either preempts (the caller issues the evictions) or, after
   ``waitForPodsReady.blockAdmission`` allows, is admitted; with ``ConcurrentAdmission`` a Variant
   whose more favourable sibling is admitted is skipped first, and one that would be admitted while
   a less favourable sibling is migrates instead (the caller evicts the sibling,
   ``FlavorMigration``) unless its flavor is below ``lastAcceptableFlavorName``;
6. the caller requeues the entries not admitted and writes their status.

A workload slice replacing another (elastic jobs, ``ElasticJobsViaWorkloadSlices``) is nominated
with the old slice as its first target (``getInitialAssignments``: the flavor assigner asks only for
the delta), and in step 5 the old slice leaves the targets again (``FindReplacedSliceTarget``): it
is finished by the caller once the new slice is admitted (:attr:`Entry.replaced`), not preempted;
the new slice takes the old one's ``clusterName`` (:attr:`Entry.inherited_cluster_name`).

:func:`run_cycle` changes nothing but the snapshot's journal, which :meth:`Snapshot.close` rolls back;
the caller (``kbatch.controllers.kueue.scheduler``) applies the decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.controllers.kueue.concurrent_admission.siblings import (
    BELOW_LAST_ACCEPTABLE,
    MORE_FAVORABLE_ADMITTED,
    admitted_sibling,
    migration_allowed,
)
from kbatch.controllers.kueue.concurrent_admission.variants import Policy, is_variant
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.requests import FlavorResource
from kbatch.controllers.kueue.preemption_gates import GATED_MESSAGE, has_closed_gate
from kbatch.controllers.kueue.scheduling.assignment import (
    FIT,
    NO_FIT,
    PREEMPT,
    Assignment,
    LastState,
    format_attempts,
)
from kbatch.controllers.kueue.scheduling.flavorassigner import AssignerOptions, FlavorAssigner
from kbatch.controllers.kueue.scheduling.nomination_memo import CycleMemo
from kbatch.controllers.kueue.scheduling.ordering import classical_order, fair_sharing_order
from kbatch.controllers.kueue.scheduling.podset_reducer import search
from kbatch.controllers.kueue.scheduling.preemption.preemptor import Preemptor, Target
from kbatch.controllers.kueue.scheduling.snapshot import Snapshot, chain_of, cq_fits
from kbatch.controllers.kueue.workloadslicing import (
    find_replaced_slice_target,
    replaced_workload_slice,
    replacement_for_key,
)

if TYPE_CHECKING:
    from kbatch.controllers.kueue.tas.cycle import TASCycle

__all__ = ["CycleConfig", "CycleInputs", "Entry", "Head", "RequeueReason", "run_cycle"]


class RequeueReason:
    GENERIC = ""
    FAILED_AFTER_NOMINATION = "FailedAfterNomination"
    NAMESPACE_MISMATCH = "NamespaceMismatch"
    PENDING_PREEMPTION = "PendingPreemption"
    PREEMPTION_FAILED = "PreemptionFailed"
    NO_FIT = "NoFit"
    PREEMPTION_NO_CANDIDATES = "PreemptionNoCandidates"
    PREEMPTION_GATED = "PreemptionGated"
    PENDING_MIGRATION = "PendingMigration"  # ConcurrentAdmission: a less favourable sibling evicted


@dataclass
class Head:
    """A ClusterQueue's head (``qcache.Head``): the workload, where its flavor scan stopped, and
    whether it is its queue's current preemptor."""

    info: WorkloadInfo
    cq_name: str
    last: LastState | None = None
    is_preemptor: bool = False


@dataclass
class Entry:
    info: WorkloadInfo
    cq_name: str
    cq: ClusterQueueNode | None
    last: LastState | None
    is_preemptor: bool
    has_reservation: bool = False
    assignment: Assignment = field(default_factory=Assignment)
    targets: list[Target] = field(default_factory=list)
    status: str = ""  # "" (not nominated) | nominated | skipped | gated | assumed | waiting | blocked
    inadmissible_msg: str = ""
    requeue_reason: str = RequeueReason.GENERIC
    quota_reserved_reason: str = ""
    skip_status_update: bool = False
    preempting: bool = False
    admission: dict[str, Any] | None = None
    considered: str = ""
    replaced: Target | None = None  # the workload slice this one replaces, finished on admission
    preemption_skipped: bool = False  # skipped with preemption targets (``skippedPreemptions``)
    # ConcurrentAdmission: the admitted, less favourable sibling this Variant migrates from (the
    # caller evicts it, ``issueMigration``)
    migration_victim: WorkloadInfo | None = None

    def record(self, assignment: Assignment, targets: list[Target]) -> None:
        """``recordAssignment``."""
        self.assignment = assignment
        self.targets = targets
        self.inadmissible_msg = assignment.message()
        self.last = assignment.last_state

    @property
    def inherited_cluster_name(self) -> str | None:
        """A replacement slice is admitted with the replaced slice's ``status.clusterName``
        (``scheduler.go`` "Copy ClusterName from old slice before admission (needed for
        MultiKueue)"), so MultiKueue sends it to the worker running its job."""
        old = self.replaced.info.obj if self.replaced is not None else None
        return old.status.cluster_name if old is not None and old.status is not None else None

    def mark_skipped(self, msg: str, preserve_scan: bool) -> None:
        self.status = "skipped"
        self.inadmissible_msg = msg
        if not preserve_scan:
            self.last = None

    def mark_preemption_gated(self) -> None:
        """``markPreemptionGated``: the flavor scan starts again from the first flavor next time."""
        self.status = "gated"
        self.inadmissible_msg = GATED_MESSAGE
        self.requeue_reason = RequeueReason.PREEMPTION_GATED
        self.quota_reserved_reason = Reason.ADMISSION_GATED
        self.last = None


@dataclass(frozen=True)
class CycleConfig:
    assigner: AssignerOptions = field(default_factory=AssignerOptions)
    partial_admission: bool = True
    prioritize_preemptors: bool = False
    priority_sorting: bool = True
    prioritize_non_borrowing: bool = True
    preserve_scan_progress: bool = True
    block_admission: bool = False
    fair_sharing: bool = False
    # ``ConcurrentAdmission`` or ``MultiKueueOrchestratedPreemption``: a closed preemption gate
    # keeps a workload from preempting (``processEntry``)
    preemption_gates: bool = False
    concurrent_admission: bool = False  # ConcurrentAdmission: Variants' siblings and migration


@dataclass
class CycleResult:
    entries: list[Entry]
    inadmissible: list[Entry]
    blocked: bool = False
    # an entry assumed earlier in this cycle that is not PodsReady: upstream admits it into the
    # cache before the next entry's ``waitForPodsReadyIfNeeded``, which then sees it not ready
    assumed_not_ready: bool = False


class _Oracle:
    """The flavor assigner's preemption oracle for one head. It lives only while that head is
    nominated, during which the snapshot does not change (the assigner only reads it; a simulation
    rolls back what it tried), so the targets a simulation found for (flavor resource, quantity)
    are the ones ``GetTargets`` would find for exactly that request: :meth:`targets_for` hands them
    back instead of searching twice (upstream searches twice)."""

    __slots__ = ("cq", "memo", "now", "preemptor", "snapshot", "wl")

    def __init__(
        self, preemptor: Preemptor, wl: WorkloadInfo, cq: ClusterQueueNode, snapshot: Snapshot, now: datetime
    ) -> None:
        self.preemptor, self.wl, self.cq, self.snapshot, self.now = preemptor, wl, cq, snapshot, now
        self.memo: dict[tuple[FlavorResource, int], list[Target]] = {}

    def __call__(self, fr: FlavorResource, quantity: int) -> tuple[int, int]:
        return self.preemptor.simulate(self.wl, self.cq, fr, quantity, self.snapshot, self.now, self.memo)

    def targets_for(
        self, frs: frozenset[FlavorResource], usage: Mapping[FlavorResource, int]
    ) -> list[Target] | None:
        """The simulated targets when the request is the one simulated (one flavor resource)."""
        if len(frs) != 1 or len(usage) != 1:
            return None
        (fr,) = frs
        quantity = usage.get(fr)
        found = self.memo.get((fr, quantity)) if quantity is not None else None
        return list(found) if found is not None else None


@dataclass(frozen=True)
class CycleInputs:
    """What one cycle works with besides its heads."""

    snapshot: Snapshot
    preemptor: Preemptor
    config: CycleConfig
    cycle: int
    now: datetime
    namespace_labels: Callable[[str], Mapping[str, str] | None]
    pods_ready_for_all: Callable[[], bool]
    memo: CycleMemo | None = None  # the heads' nominations kept across cycles (nomination_memo)
    # ``ValidateLimitRange``: the namespace's LimitRange violations of a workload (none when None)
    limit_range_violations: Callable[[Workload], list[str]] | None = None
    tas: TASCycle | None = None  # TopologyAwareScheduling: the cycle's TAS flavors (tas.cycle)
    slices: bool = False  # ElasticJobsViaWorkloadSlices: replacement slices (workloadslicing)
    # ConcurrentAdmission: a ClusterQueue's ``concurrentAdmissionPolicy`` (None: it has none)
    policy_for: Callable[[str], Policy | None] | None = None


def run_cycle(heads: list[Head], inputs: CycleInputs) -> CycleResult:
    snapshot, config = inputs.snapshot, inputs.config
    # 3. nominate
    entries, inadmissible = _nominate(heads, inputs)
    # 4. order
    if config.fair_sharing:
        order = fair_sharing_order(
            entries,
            snapshot,
            _assignment_usage,
            config.prioritize_non_borrowing,
            config.prioritize_preemptors,
            config.priority_sorting,
        )
    else:
        order = iter(classical_order(entries, config.prioritize_preemptors, config.priority_sorting))
    # 5. process each entry
    preempted: dict[str, WorkloadInfo] = {}
    result = CycleResult(entries, inadmissible)
    for entry in order:
        if result.blocked:
            entry.status = "blocked"
            continue
        ready_for_all = inputs.pods_ready_for_all
        _process(entry, snapshot, preempted, config, ready_for_all, result, inputs.tas, inputs.policy_for)
    return result


def _nominate(heads: list[Head], inputs: CycleInputs) -> tuple[list[Entry], list[Entry]]:
    snapshot, namespace_labels = inputs.snapshot, inputs.namespace_labels
    entries: list[Entry] = []
    inadmissible: list[Entry] = []
    for h in heads:
        cq = snapshot.cluster_queue(h.cq_name)
        e = Entry(h.info, h.cq_name, cq, h.last, h.is_preemptor)
        if snapshot.cache.is_added(h.info.key, h.cq_name):
            continue
        if _failed_checks(h.info):
            e.inadmissible_msg = "The workload has failed admission checks"
            e.quota_reserved_reason = Reason.PENDING_EVALUATION
        elif h.cq_name in snapshot.inactive:
            e.inadmissible_msg = f"ClusterQueue {h.cq_name} is inactive"
            e.quota_reserved_reason = Reason.SUSPENDED
        elif cq is None:
            e.inadmissible_msg = f"ClusterQueue {h.cq_name} not found"
            e.quota_reserved_reason = Reason.MISCONFIGURED
        elif (
            err := admissibility_error(h.info, cq, namespace_labels, inputs.limit_range_violations)
        ) is not None:
            e.inadmissible_msg, mismatch = err
            e.quota_reserved_reason = Reason.MISCONFIGURED
            if mismatch:
                e.requeue_reason = RequeueReason.NAMESPACE_MISMATCH
        else:
            assignment, targets = _assignments(e, cq, inputs)
            e.record(assignment, targets)
            entries.append(e)
            continue
        inadmissible.append(e)
    return entries, inadmissible


def _failed_checks(info: WorkloadInfo) -> bool:
    checks = (info.obj.status.admission_checks if info.obj.status else None) or ()
    return any(c.state in ("Retry", "Rejected") for c in checks)


def admissibility_error(
    info: WorkloadInfo,
    cq: ClusterQueueNode,
    namespace_labels: Callable[[str], Mapping[str, str] | None],
    limit_range_violations: Callable[[Workload], list[str]] | None = None,
) -> tuple[str, bool] | None:
    """``ValidateAdmissibility``: the namespace exists and the ClusterQueue selects it; requests do
    not exceed limits; the namespace's LimitRanges are satisfied (``ValidateLimitRange``)."""
    labels = namespace_labels(info.namespace)
    if labels is None:
        return (
            f'workload namespace "{info.namespace}" does not exist: namespaces "{info.namespace}" not found',
            False,
        )
    selector = cq.settings.namespace_selector
    if selector is None or not selector.matches(labels):
        return "workload namespace doesn't match ClusterQueue selector", True
    errors = request_limit_errors(info)
    if errors:
        return "resources validation failed: " + _aggregate(errors), False
    errors = limit_range_violations(info.obj) if limit_range_violations is not None else []
    if errors:
        return "resources didn't satisfy LimitRange constraints: " + _aggregate(errors), False
    return None


def _aggregate(errors: list[str]) -> str:
    """``ErrorList.ToAggregate().Error()``: one message as is, several as ``[a, b]``."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def request_limit_errors(info: WorkloadInfo) -> list[str]:
    """``ValidateResources``: a container's requests must not exceed its limits."""
    from kbatch.controllers.scheduler.convert import quantity_map

    out = []
    for i, ps in enumerate((info.obj.spec.pod_sets if info.obj.spec else None) or ()):
        spec = ps.template.spec if ps.template else None
        if spec is None:
            continue
        base = f"spec.podSets[{i}].template.spec"
        for kind, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
            for j, c in enumerate(containers or ()):
                res = c.resources
                if res is None or not res.limits or not res.requests:
                    continue
                req, lim = quantity_map(res.requests), quantity_map(res.limits)
                names = sorted(n for n, v in req.items() if n in lim and v > lim[n])
                if names:
                    # field.Invalid(path, resNames, ...): the value renders as the field error's value
                    # does (upstream's scheduler_test.go: 'Invalid value: ["cpu"]'), not as Go's %#v
                    out.append(str(FieldError.invalid(f"{base}.{kind}[{j}]", names,
                                                      "requests must not exceed its limits")))
    return out


def _outdated(last: LastState, cq: ClusterQueueNode, cycle: int, info: WorkloadInfo, preserve: bool) -> bool:
    """``lastAssignmentOutdated``."""
    if preserve:
        if last.scheduling_hash and info.scheduling_hash and last.scheduling_hash != info.scheduling_hash:
            return True
        if cycle - last.cycle <= 1:
            return False
    return cq.generation > last.cq_generation


def _assignments(e: Entry, cq: ClusterQueueNode, inputs: CycleInputs) -> tuple[Assignment, list[Target]]:
    """``getAssignments`` / ``getInitialAssignments``: the full assignment when it fits or its
    preemption has targets, else (``PartialAdmission``) the largest partial one that does."""
    last = e.last
    if last is not None and _outdated(last, cq, inputs.cycle, e.info, inputs.config.preserve_scan_progress):
        last = None
    memo = inputs.memo
    if inputs.tas is not None and any(inputs.tas.levels(f) is not None for f in cq.settings.all_flavors()):
        memo = None  # a topology assignment reads nodes and pods, which the memo does not key on
    if memo is not None and (kept := memo.lookup(e.info, cq, last)) is not None:
        return kept
    got = _nominate_afresh(e, cq, last, inputs)
    if memo is not None:
        memo.store(e.info, cq, last, got)
    return got


def _nominate_afresh(
    e: Entry, cq: ClusterQueueNode, last: LastState | None, inputs: CycleInputs
) -> tuple[Assignment, list[Target]]:
    wl, config, snapshot = e.info, inputs.config, inputs.snapshot
    oracle = _Oracle(inputs.preemptor, wl, cq, snapshot, inputs.now)
    replaced = _replaced_slice(wl, cq) if inputs.slices else None
    assigner = FlavorAssigner(
        wl, cq, snapshot.flavors, oracle, config.assigner, last, inputs.cycle, inputs.tas, replaced
    )
    full = _try(assigner, oracle, None, e, cq, inputs)
    if replaced is not None and full[1] is not None:  # the old slice first (getInitialAssignments)
        return full[0], [Target(replaced, ""), *full[1]]
    if full[1] is not None:
        return full[0], full[1]
    if config.partial_admission and wl.can_be_partially_admitted():
        spec_sets = (wl.obj.spec.pod_sets if wl.obj.spec else None) or ()
        counts = [ps.count if ps.count is not None else 1 for ps in spec_sets]
        found, ok = search(
            counts,
            [ps.min_count for ps in spec_sets],
            lambda c: _partial(_try(assigner, oracle, c, e, cq, inputs)),
        )
        if ok and found is not None:
            return found
    return full[0], []


def _replaced_slice(wl: WorkloadInfo, cq: ClusterQueueNode) -> WorkloadInfo | None:
    """``ReplacedWorkloadSlice``: the slice ``wl`` replaces, reserving quota in its ClusterQueue."""
    return replaced_workload_slice(
        replacement_for_key(wl.obj), wl.namespace, cq.workloads, lambda info: info.namespace
    )


def _try(
    assigner: FlavorAssigner,
    oracle: _Oracle,
    counts: list[int] | None,
    e: Entry,
    cq: ClusterQueueNode,
    inputs: CycleInputs,
) -> tuple[Assignment, list[Target] | None]:
    """One assignment at ``counts``; its targets, or ``None`` when it neither fits nor can preempt."""
    a = assigner.assign(counts)
    a.last_state.scheduling_hash = e.info.scheduling_hash
    mode = a.representative_mode()
    if mode == FIT:
        return a, []
    if mode == PREEMPT:
        pod_sets = e.info.pod_sets if assigner.replace is None else _delta_pod_sets(e.info, assigner.replace)
        usage = a.total_requests_for(pod_sets, inputs.config.assigner.ignore_undeclared)
        frs = a.flavor_resources_needing_preemption()
        tas = inputs.tas.preemption_check(a, e.info, cq, assigner.replace) if inputs.tas is not None else None
        # the oracle simulated the quota alone: with a topology to find, search again
        targets = oracle.targets_for(frs, usage) if tas is None else None
        if targets is None:
            targets = inputs.preemptor.get_targets(
                e.info, cq, frs, usage, inputs.snapshot, inputs.now, tas=tas
            )
        if targets:
            return a, targets
    return a, None


def _delta_pod_sets(wl: WorkloadInfo, replaced: WorkloadInfo) -> list[Any]:
    """``TotalRequestsFor`` with a replaced slice: each pod set at its count less the old one's."""
    out = []
    for i, ps in enumerate(wl.pod_sets):
        old = replaced.pod_sets[i].count if i < len(replaced.pod_sets) else 0
        out.append(_Counted(ps, ps.count - old))
    return out


@dataclass(frozen=True)
class _Counted:
    """A pod set whose ``scaled_to`` ignores the assignment's count: the delta's is fixed."""

    ps: Any
    count: int

    def scaled_to(self, _count: int) -> Any:
        return self.ps.scaled_to(self.count)


def _partial(
    tried: tuple[Assignment, list[Target] | None],
) -> tuple[tuple[Assignment, list[Target]] | None, bool]:
    a, targets = tried
    return ((a, targets), True) if targets is not None else (None, False)


def _assignment_usage(e: Entry) -> dict[FlavorResource, int]:
    return {} if e.has_reservation else dict(e.assignment.usage)


def _fits(
    snapshot: Snapshot,
    cq: ClusterQueueNode,
    usage: dict[FlavorResource, int],
    preempted: dict[str, WorkloadInfo],
    targets: list[Target],
) -> bool:
    """Upstream ``fits`` (``pkg/scheduler/scheduler.go``): the entry's usage fits once the cycle's
    preempted workloads and the entry's targets are removed. ``cq_fits`` reads only ``cq`` and its
    ancestors, so only the removals that reach them are made: the other queue trees' are skipped
    (the cycle's preempted workloads span every cohort of the cycle)."""
    mark = snapshot.remove_usage_of(_removed(preempted, targets), chain_of(cq))
    ok = cq_fits(cq, usage)
    snapshot.rollback(mark)
    return ok


def _removed(preempted: dict[str, WorkloadInfo], targets: list[Target]) -> list[WorkloadInfo]:
    """``PreemptedWorkloads.MergeWithTargets``: the cycle's victims and the entry's, by key."""
    merged = dict(preempted)
    for t in targets:
        merged[t.info.key] = t.info
    return [merged[k] for k in sorted(merged)]


def _to_reserve(e: Entry, cq: ClusterQueueNode) -> dict[FlavorResource, int]:
    """``quotaResourcesToReserve``: what a preempting entry without candidates holds back."""
    a = e.assignment
    if a.representative_mode() != PREEMPT:
        return dict(a.usage)
    out = {}
    for fr, usage in a.usage.items():
        q = cq.quota(fr)
        used = cq.usage.get(fr, 0)
        if a.borrowing > 0:
            out[fr] = usage if q.borrowing_limit is None else min(usage, q.nominal + q.borrowing_limit - used)
        else:
            out[fr] = max(0, min(usage, q.nominal - used))
    return out


def _process(
    e: Entry,
    snapshot: Snapshot,
    preempted: dict[str, WorkloadInfo],
    config: CycleConfig,
    pods_ready_for_all: Callable[[], bool],
    result: CycleResult,
    tas: TASCycle | None = None,
    policy_for: Callable[[str], Policy | None] | None = None,
) -> None:
    """``processEntry`` (``fits`` includes the TAS flavors' domains: ``ClusterQueueSnapshot.Fits``)."""
    cq = e.cq
    assert cq is not None
    variant = config.concurrent_admission and is_variant(e.info.obj)
    if variant and _sibling(e, cq, more_favourable=True) is not None:
        e.quota_reserved_reason = Reason.PENDING_EVALUATION
        e.mark_skipped(MORE_FAVORABLE_ADMITTED, config.preserve_scan_progress)
        return
    usage = _assignment_usage(e)
    fits = _fits(snapshot, cq, usage, preempted, e.targets) and (
        tas is None or tas.fits(e.assignment, _removed(preempted, e.targets))
    )
    mode = e.assignment.representative_mode()
    if mode == NO_FIT:
        e.requeue_reason = RequeueReason.NO_FIT
        e.quota_reserved_reason = e.assignment.no_fit_reason
        return
    if mode == PREEMPT and not e.targets:
        e.requeue_reason = RequeueReason.PREEMPTION_NO_CANDIDATES
        e.quota_reserved_reason = Reason.WAITING_FOR_QUOTA
        if cq.preemption.reclaim_within_cohort != "Any" or (config.prioritize_preemptors and e.is_preemptor):
            snapshot.add_usage(cq, _to_reserve(e, cq))
        return
    if mode == PREEMPT and config.preemption_gates and has_closed_gate(e.info.obj):
        e.mark_preemption_gated()  # no usage added, no target taken: the entry does not preempt
        return
    if any(t.info.key in preempted for t in e.targets):
        e.mark_skipped(
            "Workload has overlapping preemption targets with another workload", config.preserve_scan_progress
        )
        e.quota_reserved_reason = Reason.WAITING_FOR_QUOTA
        e.preemption_skipped = True
        return
    if not fits:
        e.mark_skipped(
            "Workload no longer fits after processing another workload", config.preserve_scan_progress
        )
        e.quota_reserved_reason = Reason.WAITING_FOR_QUOTA
        e.preemption_skipped = mode == PREEMPT
        return
    for t in e.targets:
        preempted[t.info.key] = t.info
    snapshot.add_usage(cq, usage)
    if e.targets and (key := replacement_for_key(e.info.obj)) is not None:
        e.targets, e.replaced = find_replaced_slice_target(key, e.targets, lambda t: t.info.key)
    if tas is not None:
        tas.admit(e.assignment)
    if mode == PREEMPT:
        e.quota_reserved_reason = Reason.WAITING_FOR_PREEMPTED
        e.preempting = True
        return
    if config.block_admission and (result.assumed_not_ready or not pods_ready_for_all()):
        e.status = "waiting"  # waitForPodsReadyIfNeeded: this one waits, the rest of the cycle too
        e.inadmissible_msg = "waiting for all admitted workloads to be in PodsReady condition"
        e.quota_reserved_reason = Reason.WAITING_FOR_PODS_READY
        result.blocked = True
        return
    if variant and _migrates(e, cq, policy_for):
        return
    e.status = "nominated"
    e.considered = format_attempts(e.assignment)
    e.admission = {"clusterQueue": e.cq_name, "podSetAssignments": e.assignment.to_api()}
    e.status = "assumed"
    if config.block_admission and not _pods_ready(e.info):
        result.assumed_not_ready = True


def _first_group(cq: ClusterQueueNode) -> tuple[str, ...]:
    groups = cq.settings.resource_groups
    return tuple(groups[0].flavors) if groups else ()


def _sibling(e: Entry, cq: ClusterQueueNode, more_favourable: bool) -> WorkloadInfo | None:
    """An admitted sibling of the Variant in the snapshot's ClusterQueue (in key order; upstream
    iterates a map)."""
    admitted = (cq.workloads[k] for k in sorted(cq.workloads))
    return admitted_sibling(e.info, admitted, _first_group(cq), more_favourable)


def _migrates(
    e: Entry, cq: ClusterQueueNode, policy_for: Callable[[str], Policy | None] | None
) -> bool:
    """``processEntry``'s migration step: with a less favourable sibling admitted, the Variant is
    not admitted; it migrates (the caller evicts the sibling) when ``isMigrationAllowed``."""
    victim = _sibling(e, cq, more_favourable=False)
    if victim is None:
        return False
    policy = policy_for(e.cq_name) if policy_for is not None else None
    if not migration_allowed(e.info, _first_group(cq), policy):
        e.quota_reserved_reason = Reason.PENDING_EVALUATION
        e.inadmissible_msg = BELOW_LAST_ACCEPTABLE
        return True
    e.quota_reserved_reason = Reason.WAITING_FOR_PREEMPTED
    e.migration_victim = victim
    return True


def _pods_ready(info: WorkloadInfo) -> bool:
    """Whether the workload already has PodsReady=True (the cache's ``WorkloadsNotReady`` test)."""
    conditions = (info.obj.status.conditions if info.obj.status else None) or ()
    return any(c.type == Cond.PODS_READY and c.status == "True" for c in conditions)
