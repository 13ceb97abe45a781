"""DefaultPreemption (PostFilter): make room for a pod by evicting lower-priority pods.

Upstream ``pkg/scheduler/framework/plugins/defaultpreemption`` and
``pkg/scheduler/framework/preemption/preemption.go``, in broad strokes (extenders are not modelled):

1. Eligibility: a pod with ``preemptionPolicy: Never`` does not preempt; nor does a pod whose
   nominated node still has lower-priority pods terminating (it waits for them), nor one for which
   a plugin's ``NominationExtensions`` says what an earlier preemption freed on its nominated node is
   still being reclaimed (KEP-5690: DynamicResources, while victims' claims are still allocated).
2. Candidates: only nodes that failed with ``Unschedulable`` (not ``UnschedulableAndUnresolvable``).
   On each (``SelectVictimsOnNode``, on a copy of the node and of the cycle state), remove every
   lower-priority pod; if the pod then fits, add them back one by one, most important first
   (higher priority, then earlier start), keeping each that still lets the pod fit: the rest are
   the victims. Every removal and re-addition also goes to the PreFilter extensions
   (``RunPreFilterExtensionRemovePod``/``AddPod``: PodTopologySpread's domain counts and global
   minimum, InterPodAffinity's affinity, anti-affinity and existing-anti-affinity counts), so a
   victim's departure counts cluster-wide, as in the scheduling cycle. Each fit check counts the
   pods nominated to the node with priority at least the preemptor's, as the scheduling cycle
   does (upstream ``RunFilterPluginsWithNominatedPods``, :mod:`..nominated`), so a preemptor does not
   evict pods for room an equal or higher nominated pod already holds. PodDisruptionBudgets
   (``filterPodsWithPDBViolation``): the pods
   whose eviction would take a matching PDB's ``disruptionsAllowed`` below zero (budgets spent in
   importance order; pods already in ``disruptedPods`` spend nothing; here, unlike the eviction API, a
   PDB with an empty selector matches nothing) are reprieved *first*, so the victims violate as few
   budgets as possible; each violating victim counts.
3. Pick (``pickOneNodeForPreemption``): fewest PDB violations, then lowest highest-victim priority,
   then smallest sum of victim priorities (each raised by 2^31), then fewest victims, then the latest
   earliest start (``status.startTime``) among the highest-priority victims, then node order.

Nominations (upstream ``Evaluator.Preempt``): no candidate clears the preemptor's nomination
(``NewPostFilterResultWithNominatedNode("")``: ``clear_nomination``); an ineligible preemptor keeps
it (a nil result). The controller clears the nominations of lower-priority pods nominated to the
chosen node (``prepareCandidate``: they may no longer fit there).

Messages as upstream: "preemption: 0/N nodes are available: <count> No preemption victims found for
incoming pod, <count> Preemption is not helpful for scheduling." (a node with no status, one a
PreFilterResult left out, is not helpful), and for a node with lower-priority pods whose eviction
would still not let the pod fit, the reasons of the filter that fails then (``SelectVictimsOnNode``:
e.g. "<count> Insufficient cpu").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.controllers.scheduler.budgets import Budget, budget_selectors
from kbatch.controllers.scheduler.config import SchedulerConfigError, decode_int, invalid, plugin_args
from kbatch.controllers.scheduler.diagnosis import histogram
from kbatch.controllers.scheduler.framework import (
    Code,
    CycleState,
    FilterPlugin,
    PostFilterResult,
    PreFilterExtensions,
    Status,
    active_filters,
    nomination_extensions,
    run_filters,
)
from kbatch.controllers.scheduler.nominated import filter_with_nominated
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import PodInfo
from kbatch.controllers.scheduler.victim_order import pod_start_time

__all__ = ["NOT_HELPFUL", "NO_VICTIMS", "DefaultPreemption", "new", "pdb_violating", "select_victims",
           "select_victims_on_node"]

PDBLister = Callable[[], Sequence[Any]]  # policy/v1 PodDisruptionBudget objects (read only)

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"


@dataclass(frozen=True, slots=True)
class _Candidate:
    node: str
    victims: tuple[PodInfo, ...]
    violations: int = 0

    def rank(self, order: int) -> tuple[int, int, int, int, float, int]:
        """Upstream ``pickOneNodeForPreemption``: fewest PDB violations, lowest highest victim
        priority, smallest sum of priorities each raised by 2^31 (so a node with more victims of
        negative priority is not preferred), fewest victims, then the latest of the earliest start
        times of the highest-priority victims (``GetEarliestPodStartTime``), then node order."""
        top = max(v.priority for v in self.victims) if self.victims else -(2**31)
        earliest = min((pod_start_time(v) for v in self.victims if v.priority == top), default=0.0)
        total = sum(v.priority + _PRIORITY_OFFSET for v in self.victims)
        return (self.violations, top, total, len(self.victims), -earliest, order)


_PRIORITY_OFFSET = 2**31  # upstream adds MaxInt32+1 to every victim's priority before summing


def _importance(p: PodInfo) -> tuple[int, float, str]:
    """Upstream ``MoreImportantPod``: higher priority, then earlier start (then the key, for a
    deterministic order)."""
    return (-p.priority, pod_start_time(p), p.key)


def pdb_violating(pods: Sequence[PodInfo], budgets: Sequence[Budget]) -> tuple[list[PodInfo], list[PodInfo]]:
    """Upstream ``filterPodsWithPDBViolation``: (violating, non-violating), each in the given order;
    ``budgets`` from :func:`.budgets.budget_selectors`. A pod without labels matches no budget, nor
    does an empty selector; every budget a pod matches is spent."""
    allowed = [b.allowed for b in budgets]
    violating: list[PodInfo] = []
    fine: list[PodInfo] = []
    for pod in pods:
        violated = False
        for i, budget in enumerate(budgets if pod.labels else ()):
            if budget.spends(pod, empty_matches=False):
                allowed[i] -= 1
                violated = violated or allowed[i] < 0
        (violating if violated else fine).append(pod)
    return violating, fine


def select_victims(
    filters: list[FilterPlugin], state: CycleState, pod: PodInfo, node: NodeInfo,
    budgets: Sequence[Budget] = (), extensions: Sequence[PreFilterExtensions] = (),
    nominated: Sequence[PodInfo] = (),
) -> tuple[tuple[PodInfo, ...], int] | None:
    """The minimal set of lower-priority pods to evict from ``node`` and how many of them violate a
    PodDisruptionBudget (None: preemption can't help); ``budgets``: the PodDisruptionBudgets
    (:func:`.budgets.budget_selectors`); ``nominated``: the pods nominated to the node
    that the pod must leave room for. ``state`` is not changed: the extensions work on a copy
    (upstream ``DryRunPreemption`` clones the cycle state per node)."""
    selected = select_victims_on_node(filters, state, pod, node, budgets, extensions, nominated)
    return None if isinstance(selected, Status) else selected


_NO_VICTIMS = Status.unresolvable("DefaultPreemption", NO_VICTIMS)
_NOT_HELPFUL = Status.unresolvable("DefaultPreemption", NOT_HELPFUL)


def select_victims_on_node(
    filters: list[FilterPlugin], state: CycleState, pod: PodInfo, node: NodeInfo,
    budgets: Sequence[Budget] = (), extensions: Sequence[PreFilterExtensions] = (),
    nominated: Sequence[PodInfo] = (),
) -> tuple[tuple[PodInfo, ...], int] | Status:
    """:func:`select_victims`, or why the node can't help, as upstream ``SelectVictimsOnNode`` says:
    "No preemption victims found for incoming pod" when it has no lower-priority pod, else the
    status of the filter that still fails with all of them removed (e.g. "Insufficient cpu")."""
    lower = [p for p in node.pods.values() if p.priority < pod.priority and not p.terminating]
    if not lower:
        return _NO_VICTIMS  # nothing to evict: the node is as it was when it failed (no clone, no state copy)
    state = dict(state)
    for ext in extensions:
        ext.copy_state(state)
    what_if = node.clone()

    def remove(victim: PodInfo) -> None:
        what_if.remove_pod(victim.key)
        for ext in extensions:
            ext.remove_pod(state, pod, victim, what_if)

    def add(victim: PodInfo) -> None:
        what_if.add_pod(victim)
        for ext in extensions:
            ext.add_pod(state, pod, victim, what_if)

    def failing() -> Status | None:
        return filter_with_nominated(lambda s, n: run_filters(filters, s, pod, n), extensions, state, pod,
                                     what_if, nominated)

    def fits() -> bool:
        return failing() is None

    for victim in lower:
        remove(victim)
    still = failing()
    if still is not None:
        return still
    violating, fine = pdb_violating(sorted(lower, key=_importance), budgets)
    victims: list[PodInfo] = []
    violations = 0
    for group, violates in ((violating, True), (fine, False)):
        for candidate in group:
            add(candidate)
            if not fits():
                remove(candidate)
                victims.append(candidate)
                violations += violates
    return tuple(sorted(victims, key=_importance)), violations


class DefaultPreemption:
    """Built either from explicit ``filters``/``extensions``/``pdb_lister`` (a pure scheduler in tests),
    or from a scheduler :class:`~..profiles.Handle` (the registry's :func:`new`): then it runs its own
    profile's filters and PreFilter extensions, and reads PodDisruptionBudgets from the informer cache
    (upstream: the framework handle and a PDB lister)."""

    name = "DefaultPreemption"

    def __init__(self, filters: list[FilterPlugin] | None = None, pdb_lister: PDBLister | None = None,
                 extensions: Sequence[PreFilterExtensions] = (), handle: Any = None) -> None:
        self._filters = filters
        self._extensions = list(extensions)
        self.pdb_lister = pdb_lister
        self.handle = handle

    @property
    def filters(self) -> list[FilterPlugin]:
        if self._filters is not None:
            return self._filters
        return list(self.handle.profile.filter) if self.handle is not None and self.handle.profile else []

    @property
    def extensions(self) -> list[PreFilterExtensions]:
        """The PreFilter plugins with AddPod/RemovePod (upstream ``PreFilterExtensions``)."""
        if self._extensions or self.handle is None or self.handle.profile is None:
            return self._extensions
        return [p for p in self.handle.profile.pre_filter if isinstance(p, PreFilterExtensions)]

    def pdbs(self) -> list[Any]:
        if self.pdb_lister is not None:
            return list(self.pdb_lister())
        cache = self.handle.cache if self.handle is not None else None
        if cache is None:
            return []
        from kbatch.api.policy_v1 import PodDisruptionBudget

        return list(cache.list(PodDisruptionBudget))

    def post_filter(
        self, state: CycleState, pod: PodInfo, snapshot: Snapshot, statuses: dict[str, Status]
    ) -> PostFilterResult:
        if pod.preemption_policy == "Never":
            return PostFilterResult(None, message="preemption: not eligible due to preemptionPolicy=Never.")
        if pod.nominated_node and waiting_for_victims(pod, snapshot, pod.nominated_node):
            return PostFilterResult(
                None, message="preemption: not eligible due to a terminating pod on the nominated node.")
        if pod.nominated_node:  # KEP-5690: what an earlier preemption freed is still being reclaimed
            for ext in nomination_extensions(self.handle.profile if self.handle is not None else None):
                eligible, reason = ext.pod_eligible_to_preempt(pod, pod.nominated_node)
                if not eligible:
                    return PostFilterResult(None, message=reason)
        reasons: dict[str, Status] = {}
        candidates: list[_Candidate] = []
        budgets = budget_selectors(self.pdbs())  # each selector parsed once for every node's split
        filters, extensions = list(active_filters(self.filters, state)), self.extensions
        for node in snapshot:
            status = statuses.get(node.name)
            # a node without a status is unresolvable (upstream NodeToStatus' absent-node default)
            if status is None or status.code != Code.UNSCHEDULABLE:
                reasons[node.name] = _NOT_HELPFUL
                continue
            selected = select_victims_on_node(filters, state, pod, node, budgets, extensions,
                                              snapshot.nominated_for(node.name, pod))
            if isinstance(selected, Status):
                reasons[node.name] = selected
            elif not selected[0]:
                reasons[node.name] = _NO_VICTIMS
            else:
                candidates.append(_Candidate(node.name, *selected))
        if not candidates:
            summary = ", ".join(histogram(reasons))
            message = f"preemption: 0/{len(snapshot)} nodes are available: {summary}."
            return PostFilterResult(None, message=message, clear_nomination=True)
        best = min(enumerate(candidates), key=lambda pair: pair[1].rank(pair[0]))[1]
        return PostFilterResult(best.node, best.victims)


def waiting_for_victims(pod: PodInfo, snapshot: Snapshot, nominated: str) -> bool:
    """Upstream's second eligibility rule: lower-priority pods on the nominated node are still
    terminating, so a new round of preemption would only evict more."""
    node = snapshot.get(nominated)
    return node is not None and any(p.terminating and p.priority < pod.priority for p in node.pods.values())


_MIN_CANDIDATES = {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}


def new(args: Mapping[str, Any], handle: Any) -> DefaultPreemption:
    """The registry's factory. ``DefaultPreemptionArgs`` are validated as upstream (percentage 0-100,
    absolute >= 0, not both 0); kbatch evaluates every node as a candidate, so only the default
    limits are accepted (they never bind below 100 nodes)."""
    args = plugin_args("DefaultPreemption", args, tuple(_MIN_CANDIDATES))
    for field, default in _MIN_CANDIDATES.items():
        value = decode_int(args.get(field, default), f"DefaultPreemptionArgs.{field}")
        if value is None:
            value = default
        if value < 0 or (field.endswith("Percentage") and value > 100):
            raise invalid(field, value, "not in valid range "
                          + ("[0, 100]" if field.endswith("Percentage") else "[0, inf)"))
        if value != default:
            raise SchedulerConfigError(f"DefaultPreemption: {field} other than {default} is not modelled "
                                       "by kbatch (every node is a preemption candidate)")
    return DefaultPreemption(handle=handle)
