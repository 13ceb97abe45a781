"""One scheduling attempt, as a pure computation over the snapshot (upstream ``schedulePod`` in
``pkg/scheduler/schedule_one.go``):

1. PreFilter: an unresolvable rejection ends the run; after an ``Unschedulable`` one the remaining
   PreFilter plugins still run. A rejection is every node's status and its message the pod's;
   PostFilter (preemption) still runs, as for any failed attempt.
2. Filter: starting where the last attempt stopped, nodes are tried in name order until
   ``num_feasible_nodes_to_find`` feasible ones are found (upstream ``percentageOfNodesToScore``).
3. No feasible node: PostFilter (preemption) runs and the attempt reports a :class:`Diagnosis`.
4. Score: each plugin scores every feasible node, normalizes, is weighted; the highest total
   wins, ties broken by the control plane's seeded random source.

**Nominated pods.** A pod with ``status.nominatedNodeName`` tries that node first and takes it if
it passes the filters (upstream ``evaluateNominatedNode``). Every node is filtered with the pods
nominated to it of equal or higher priority, and without them (:mod:`.nominated`), so the room
preemption freed stays reserved for its preemptor. With no nomination in the snapshot this costs
one dict check per node.

No nodes at all is an error, not a rejection (upstream ``ErrNoNodesAvailable``): the decision
carries ``error`` and no diagnosis.

Effects (assume, bind, status writes, evictions) are the controller's; this module only decides.

**Batching.** Node-static plugins give the same answer to every pod with the same signature until
a node's labels, taints or allocatable change, so their filter results and raw scores are cached
per signature (scores are still normalized over each attempt's feasible nodes).
When, moreover, the node-static scores are equal on every feasible node and the only varying score
is per-node (NodeResourcesFit), consecutive pods with one signature are placed from a heap of
nodes keyed by score: popping the best node and pushing it back with its new score after the pod
is assumed gives exactly the answer of scoring every node again (``percentageOfNodesToScore`` 100).
This is kbatch's take on upstream's KEP-5598 "opportunistic batching".
When the only other varying score is PodTopologySpread's system defaults (a pod a Service selects),
the spread batch (:mod:`.spread_batch`) gives upstream's exact decision for the window
(``percentageOfNodesToScore`` included) by scoring classes of alike nodes instead of every node.

A PreFilter's Skip skips that plugin's Filter for the attempt (upstream ``SkipFilterPlugins``).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kbatch.controllers.scheduler.diagnosis import Diagnosis
from kbatch.controllers.scheduler.framework import (
    NODE_NAMES,
    SKIPPED_FILTERS,
    SKIPPED_SCORES,
    Code,
    CycleState,
    FilterPlugin,
    PostFilterResult,
    PreFilterExtensions,
    Profile,
    ScorePlugin,
    Status,
    active_filters,
    num_feasible_nodes_to_find,
    run_filters,
)
from kbatch.controllers.scheduler.nominated import filter_with_nominated
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.spread_batch import SpreadBatch
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.plugins.pod_topology_spread import DefaultSpread
    from kbatch.controllers.scheduler.types import SpreadConstraint

__all__ = ["NO_NODES", "Algorithm", "Decision"]

_RESTRICTED_BY = "node_names_plugins"  # cycle-state key: the plugins whose PreFilterResults those are

NO_NODES = "no nodes available to schedule pods"  # upstream ErrNoNodesAvailable
_CACHE_LIMIT = 256
_Reusable = dict[str, PostFilterResult]  # PostFilter results by plugin, reused for an equal pod
_Statuses = dict[str, Status | None]  # the node-static filters' status by node name


@dataclass(slots=True)
class Decision:
    """The outcome of one attempt: a node, or why not (and what preemption proposes)."""

    node: str | None
    state: CycleState = field(default_factory=dict)
    diagnosis: Diagnosis | None = None
    preemption: PostFilterResult | None = None
    error: str = ""  # an error, not a rejection (upstream: schedulePod's non-FitError err)


@dataclass(slots=True)
class _Batch:
    signature: tuple[object, ...]
    generation: int
    heap: list[tuple[int, float, str]]
    tiebreak: dict[str, float]
    outstanding: str | None = None


class Algorithm:
    """Schedules one pod at a time against a :class:`Snapshot` it shares with the controller."""

    def __init__(self, profile: Profile, snapshot: Snapshot, rng: random.Random) -> None:
        self.profile = profile
        self.snapshot = snapshot
        self.rng = rng
        self.next_start = 0
        self._static_filters = profile.static_filters()
        self._dynamic_filters = profile.dynamic_filters()
        # the dynamic filters the current attempt runs: without those whose PreFilter returned Skip
        self._active: Sequence[FilterPlugin] = self._dynamic_filters
        # keyed by the skipped names sorted: a frozenset key's order in an image would follow the hash seed
        self._active_by_skip: dict[tuple[str, ...], Sequence[FilterPlugin]] = {}
        self._extensions = [p for p in profile.pre_filter if isinstance(p, PreFilterExtensions)]
        self._nominated = snapshot.nominated  # the nominator's node index (never reassigned)
        self._static_scores = [p for p in profile.score if p.node_static]
        self._dynamic_scores = [p for p in profile.score if not p.node_static]
        # the batch heap orders nodes by the per-node scores; the others must be skipped for the pod
        self._heap_scores = [p for p in self._dynamic_scores if p.per_node_score]
        self._pod_scores = [p.name for p in self._dynamic_scores if not p.per_node_score]
        self._static_cache: dict[tuple[object, ...], tuple[int, _Statuses]] = {}
        # (signature, plugin) -> (static generation, raw score per node name): node-static scores
        self._static_raw: dict[tuple[object, ...], tuple[int, dict[str, int]]] = {}
        self._batch: _Batch | None = None
        # (signature, priority, preemption policy, nomination, personal) -> (snapshot generation,
        # failed decision, a personal pod's reusable PostFilter results)
        self._infeasible: dict[tuple[object, ...], tuple[int, Decision, _Reusable | None]] = {}
        self._per_pod_post_filters = [p for p in profile.post_filter if hasattr(p, "post_filter_per_pod")]
        # the Score plugin that describes system-default spreading (PodTopologySpread), for the
        # spread batch (:mod:`.spread_batch`)
        spreaders = [p for p in self._dynamic_scores if hasattr(p, "default_spread")]
        self._spreader: Any = spreaders[0] if len(spreaders) == 1 else None
        self._spread: SpreadBatch | None = None
        self._spread_refused: tuple[object, int] | None = None  # (key, static generation): scores differ
        # the node names of the placement a pod group's cycle is evaluating (KEP-5732; upstream
        # ``Snapshot.AssumePlacement`` narrows the snapshot's node list): None is the whole cluster
        self.placement: frozenset[str] | None = None

    # -- the attempt ---------------------------------------------------------------------------
    def schedule(self, pod: PodInfo, *, post_filter: bool = True) -> Decision:
        """One attempt; ``post_filter=False`` skips PostFilter (a pod group's cycle preempts for the
        whole group instead, upstream's pod group cycle)."""
        state: CycleState = {}
        total = len(self.snapshot)
        if total == 0:
            return Decision(None, state, error=NO_NODES)
        rejected, skipped = self._pre_filter(pod, state)
        self._active = self._dynamic_filters
        if skipped:
            state[SKIPPED_FILTERS] = skipped
            self._active = self._active_filters(skipped)
        if rejected is not None:
            return self._pre_filter_rejected(pod, state, rejected, post_filter)
        if pod.nominated_node and self._nominated_fits(pod, state):
            return Decision(pod.nominated_node, state)
        whole = self.placement is None  # the batch heaps span every node: not within a placement
        batched = whole and self._batchable(pod, state)
        spread = None if batched or not whole else self._default_spread(pod, state)
        if batched or spread is not None:
            if spread is None:
                node = self._batch_select(pod, state)
            else:
                node = self._spread_select(pod, state, spread)
            if node is not None:
                return Decision(node, state)
            known = self._infeasible.get(self._infeasible_key(pod))
            if known is not None and known[0] == self.snapshot.generation and post_filter:
                if known[2] is None:
                    return Decision(None, state, known[1].diagnosis, known[1].preemption)
                statuses = known[1].diagnosis.statuses if known[1].diagnosis is not None else {}
                return self._unschedulable(pod, state, statuses, known[2])[0]
        feasible, statuses = self._find_feasible(pod, state)
        if not feasible:
            if NODE_NAMES in state:
                _add_absent_nodes(self._nodes(), state, statuses)
            if not post_filter:
                return Decision(None, state, Diagnosis(len(self._nodes()), statuses))
            generation = self.snapshot.generation  # PostFilter may change the snapshot (a group's rejection)
            decision, reusable = self._unschedulable(pod, state, statuses)
            return self._remember(pod, decision, generation, reusable)
        if len(feasible) == 1:
            return Decision(feasible[0].name, state)
        return Decision(self._select_host(self._prioritize(pod, state, feasible), feasible), state)

    def _pre_filter(self, pod: PodInfo, state: CycleState) -> tuple[Status | None, dict[str, None] | None]:
        """Upstream ``RunPreFilterPlugins`` (``framework/runtime/framework.go``): the rejection, if any,
        and the plugins that returned Skip. An unresolvable rejection (or an empty intersection of
        PreFilterResults) ends the run at once; an ``Unschedulable`` one does not (kubernetes#119770:
        preemption comes later in the cycle and needs every plugin's state), the remaining plugins
        run and the last such status is the answer; a rejecting plugin's PreFilterResult is ignored."""
        skipped: dict[str, None] | None = None  # names in order: no set in a kept cycle state
        rejected: Status | None = None
        for plugin in self.profile.pre_filter:
            names = state.get(NODE_NAMES)
            status = plugin.pre_filter(state, pod, self.snapshot)
            if status is not None and status.code == Code.SKIP:
                skipped = skipped or {}
                skipped[plugin.name] = None
                continue
            if status is not None and not status.ok:
                if status.code != Code.UNSCHEDULABLE:
                    return status, skipped
                rejected = status
                _restore_node_names(state, names)
                continue
            if state.get(NODE_NAMES) is not names:  # this plugin returned a PreFilterResult
                status = _merge_node_names(state, names, plugin.name)
                if status is not None:
                    return status, skipped
        return rejected, skipped

    def _pre_filter_rejected(self, pod: PodInfo, state: CycleState, status: Status, post_filter: bool,
                             ) -> Decision:
        """Upstream ``findNodesThatFitPod``: a PreFilter rejection is every node's status
        (``SetAbsentNodesStatus``) and its message the FitError's; the cycle then runs PostFilter as
        for any FitError (``schedulingCycle``), so an ``Unschedulable`` rejection may preempt and an
        unresolvable one gets preemption's "not helpful" message. An ``Error`` is no rejection: the
        attempt fails with it (``schedulingCycle``'s non-FitError branch)."""
        if status.code == Code.ERROR:  # no rejection: no PostFilter, retried after back-off
            message = f'running PreFilter plugin "{status.plugin}": {status.message}'
            return Decision(None, state, error=message)
        nodes = self._nodes()
        statuses = {node.name: status for node in nodes}
        if not post_filter:
            return Decision(None, state, Diagnosis(len(nodes), statuses, pre_filter=status))
        decision, _ = self._unschedulable(pod, state, statuses, pre_filter=status)
        return decision

    def assume(self, pod: PodInfo, node_name: str) -> None:
        """Account ``pod`` on ``node_name`` (after Reserve); keeps a live batch heap in step."""
        batch = self._batch
        keep = (
            batch is not None and batch.outstanding == node_name
            and batch.generation == self.snapshot.generation and pod.signature() == batch.signature
        )
        spread = self._spread
        keep_spread = (spread is not None and spread.outstanding == (pod.key, node_name)
                       and spread.generation == self.snapshot.generation
                       and all(self.snapshot.keeps_counts(c) for c in spread.scoring.counts))
        self.snapshot.add_pod(pod, node_name)
        if keep_spread and spread is not None:
            spread.dirty.add(node_name)  # re-filtered and re-classed at the next attempt
            spread.outstanding = None
            spread.generation = self.snapshot.generation
        if keep and batch is not None:
            node = self.snapshot.get(node_name)
            if node is not None:
                heapq.heappush(batch.heap, (-self._dynamic_score(pod, {}, node), batch.tiebreak[node_name],
                                            node_name))
            batch.outstanding = None
            batch.generation = self.snapshot.generation

    def forget(self, key: str) -> None:
        self.snapshot.remove_pod(key)

    # -- filtering -----------------------------------------------------------------------------
    def _static_statuses(self, pod: PodInfo, state: CycleState) -> _Statuses | None:
        signature = pod.signature()
        if signature is None:
            return None
        cached = self._static_cache.get(signature)
        if cached is not None and cached[0] == self.snapshot.static_generation:
            return cached[1]
        statuses = {node.name: self._run(self._static_filters, state, pod, node) for node in self.snapshot}
        if len(self._static_cache) >= _CACHE_LIMIT:
            self._static_cache.clear()
        self._static_cache[signature] = (self.snapshot.static_generation, statuses)
        return statuses

    _run = staticmethod(run_filters)

    def _active_filters(self, skipped: dict[str, None]) -> Sequence[FilterPlugin]:
        key = tuple(sorted(skipped))
        found = self._active_by_skip.get(key)
        if found is None:
            found = self._active_by_skip[key] = active_filters(self._dynamic_filters, {SKIPPED_FILTERS: key})
        return found

    def _filter_one(self, pod: PodInfo, state: CycleState, node: NodeInfo, static: _Statuses | None,
                    dynamic: Sequence[FilterPlugin]) -> Status | None:
        """Filter on one node (upstream ``RunFilterPluginsWithNominatedPods``): the node-static
        filters (their cached ``static`` statuses when given), then the pod-dependent ``dynamic``
        ones with the node's nominated pods and without (:mod:`.nominated`; node-static filters
        ignore pods: once is enough)."""
        if static is not None:
            status = static[node.name]
        else:
            status = self._run(self._static_filters, state, pod, node)
        if status is not None:
            return status
        if self._nominated and node.name in self._nominated:  # one dict check when nothing is nominated
            return filter_with_nominated(lambda s, n: self._run(dynamic, s, pod, n), self._extensions,
                                         state, pod, node, self.snapshot.nominated_for(node.name, pod))
        return self._run(dynamic, state, pod, node)

    def filter_on(self, pod: PodInfo, state: CycleState, node_name: str) -> Status | None:
        """Filter for ``pod`` on one node with a cycle state kept from its attempt, the node's
        nominated pods included, as workload-aware preemption's in-place reprieve runs it
        (:mod:`.reprieve`): the dynamic filters are those the kept state did not skip."""
        node = self.snapshot.get(node_name)
        if node is None:
            return Status.unresolvable("", f"node {node_name!r} not found")
        skipped = state.get(SKIPPED_FILTERS)
        dynamic = self._active_filters(skipped) if skipped else self._dynamic_filters
        return self._filter_one(pod, state, node, None, dynamic)

    def add_pod_to_states(self, added: PodInfo, node_name: str, states: Sequence[tuple[PodInfo, CycleState]],
                          removed: bool = False) -> None:
        """The PreFilter extensions' AddPod (RemovePod with ``removed``) for ``added`` on
        ``node_name``, in each (pod, state) (upstream ``RunPreFilterExtensionAddPod``/``RemovePod``)."""
        node = self.snapshot.get(node_name)
        if node is None:
            return
        for pod, state in states:
            for ext in self._extensions:
                (ext.remove_pod if removed else ext.add_pod)(state, pod, added, node)

    def _nominated_fits(self, pod: PodInfo, state: CycleState) -> bool:
        """Upstream ``evaluateNominatedNode``: the nominated node alone, before all the others."""
        node = self.snapshot.get(pod.nominated_node)
        if node is None or (self.placement is not None and node.name not in self.placement):
            return False
        return self._filter_one(pod, state, node, None, self._active) is None

    def _nodes(self) -> list[NodeInfo]:
        """The snapshot's nodes, those of the placement under evaluation when there is one."""
        nodes, placement = self.snapshot.nodes(), self.placement
        return nodes if placement is None else [n for n in nodes if n.name in placement]

    def _candidates(self, state: CycleState) -> list[NodeInfo]:
        names = state.get(NODE_NAMES)
        nodes = self.snapshot.nodes() if self.placement is None else self._nodes()  # the hot path: no call
        return nodes if names is None else [n for n in nodes if n.name in names]

    def _find_feasible(self, pod: PodInfo, state: CycleState) -> tuple[list[NodeInfo], dict[str, Status]]:
        nodes = self._candidates(state)
        count = len(nodes)
        if count == 0:
            return [], {}
        to_find = count if NODE_NAMES in state else num_feasible_nodes_to_find(
            self.profile.percentage_of_nodes_to_score, count)
        static, dynamic = self._static_statuses(pod, state), self._active
        feasible: list[NodeInfo] = []
        statuses: dict[str, Status] = {}
        start, processed = self.next_start % count, 0
        for offset in range(count):
            node = nodes[(start + offset) % count]
            processed += 1
            status = self._filter_one(pod, state, node, static, dynamic)
            if status is None:
                feasible.append(node)
                if len(feasible) >= to_find:
                    break
            else:
                statuses[node.name] = status
        self.next_start = (start + processed) % count
        return feasible, statuses

    def _infeasible_key(self, pod: PodInfo) -> tuple[object, ...]:
        return (pod.signature(), pod.priority, pod.preemption_policy, pod.nominated_node, self._personal(pod))

    def _personal(self, pod: PodInfo) -> bool:
        """Whether a PostFilter plugin answers this pod personally (``post_filter_per_pod(pod)``:
        Coscheduling names the pod and acts on its group), so an equal pod's failure cannot be reused
        as it stands (upstream runs PostFilter for every failed pod; the cache is kbatch's)."""
        return any(p.post_filter_per_pod(pod) for p in self._per_pod_post_filters)

    def _remember(self, pod: PodInfo, decision: Decision, generation: int,
                  reusable: dict[str, PostFilterResult]) -> Decision:
        """An equal pod finds nothing either until the snapshot changes (nothing frees up within a
        cycle), so a failure without a preemption nomination is reused for it, keyed by the snapshot
        the Filter statuses were computed on (``generation``, taken before PostFilter ran); for a
        personal pod only the Filter statuses and the reusable PostFilter results are."""
        nominated = decision.preemption is not None and decision.preemption.nominated_node is not None
        if pod.signature() is not None and not nominated:
            if len(self._infeasible) >= _CACHE_LIMIT:
                self._infeasible.clear()
            key = self._infeasible_key(pod)
            self._infeasible[key] = (generation, decision, reusable if key[-1] else None)
        return decision

    def _unschedulable(self, pod: PodInfo, state: CycleState, statuses: dict[str, Status],
                       cached: dict[str, PostFilterResult] | None = None, pre_filter: Status | None = None,
                       ) -> tuple[Decision, dict[str, PostFilterResult]]:
        """PostFilter; with ``cached`` (a personal pod's equal: see :meth:`_personal`), that pod's
        results stand in for the plugins whose answer is a function of the signature and the
        snapshot, and only the personal ones run again. Also returns a personal pod's reusable results
        (empty for any other pod: its whole decision is reused)."""
        personal = self._personal(pod)
        diagnosis = Diagnosis(len(self.snapshot), statuses, pre_filter=pre_filter)
        # upstream RunPostFilterPlugins: the first success wins; otherwise the reasons of every plugin
        # and the last meaningful (nominating or nomination-clearing) result
        chosen: PostFilterResult | None = None
        messages: list[str] = []
        reusable: dict[str, PostFilterResult] = {}
        for plugin in self.profile.post_filter:
            if cached is not None and plugin.name in cached:
                result = cached[plugin.name]
            else:
                result = plugin.post_filter(state, pod, self.snapshot, statuses)
            if personal and not (hasattr(plugin, "post_filter_per_pod") and plugin.post_filter_per_pod(pod)):
                reusable[plugin.name] = result
            if result.nominated_node is not None:
                diagnosis.post_filter_message = result.message
                return Decision(None, state, diagnosis, result), reusable
            if chosen is None or result.clear_nomination:
                chosen = result
            if result.message:
                messages.append(result.message)
        diagnosis.post_filter_message = ", ".join(messages)
        return Decision(None, state, diagnosis, chosen), reusable

    # -- scoring -------------------------------------------------------------------------------
    def _prioritize(self, pod: PodInfo, state: CycleState, feasible: list[NodeInfo]) -> list[int]:
        skipped: dict[str, None] = state.setdefault(SKIPPED_SCORES, {})
        for pre in self.profile.pre_score:
            if pre.name not in skipped:
                status = pre.pre_score(state, pod, feasible)
                if status is not None and status.code == Code.SKIP:
                    skipped[pre.name] = None
        totals = [0] * len(feasible)
        for plugin in self.profile.score:
            if plugin.name in skipped:
                continue
            if plugin.node_static and pod.signature() is not None:
                raw = self._static_scores_of(pod, state, plugin, feasible)
            else:
                raw = [plugin.score(state, pod, node) for node in feasible]
            for index, value in enumerate(plugin.normalize(raw)):
                totals[index] += value * plugin.weight
        return totals

    def _static_scores_of(self, pod: PodInfo, state: CycleState, plugin: ScorePlugin,
                          feasible: list[NodeInfo]) -> list[int]:
        """A node-static plugin's raw scores, remembered per pod signature until a node's labels,
        taints or allocatable change (what ``node_static`` promises they depend on)."""
        key = (pod.signature(), plugin.name)
        cached = self._static_raw.get(key)
        if cached is None or cached[0] != self.snapshot.static_generation:
            if len(self._static_raw) >= _CACHE_LIMIT:
                self._static_raw.clear()
            cached = self._static_raw[key] = (self.snapshot.static_generation, {})
        scores = cached[1]
        out = []
        for node in feasible:
            value = scores.get(node.name)
            if value is None:
                value = scores[node.name] = plugin.score(state, pod, node)
            out.append(value)
        return out

    def _select_host(self, totals: list[int], feasible: list[NodeInfo]) -> str:
        best = max(totals)
        ties = [i for i, value in enumerate(totals) if value == best]
        pick = ties[0] if len(ties) == 1 else ties[self.rng.randrange(len(ties))]
        return feasible[pick].name

    def _dynamic_score(self, pod: PodInfo, state: CycleState, node: NodeInfo) -> int:
        return sum(p.score(state, pod, node) * p.weight for p in self._heap_scores)

    # -- batching ------------------------------------------------------------------------------
    def _batchable(self, pod: PodInfo, state: CycleState) -> bool:
        """Whether the batch heap gives the exact answer: not while pods are nominated, since
        which nominated pods count depends on the priority, which the signature omits."""
        skipped = state.get(SKIPPED_SCORES, ())
        return (
            pod.signature() is not None and NODE_NAMES not in state and not self.snapshot.with_anti_affinity
            and not self._nominated and all(name in skipped for name in self._pod_scores)
        )

    def _batch_select(self, pod: PodInfo, state: CycleState) -> str | None:
        batch = self._batch
        signature = pod.signature()
        if (batch is None or batch.signature != signature or batch.outstanding is not None
                or batch.generation != self.snapshot.generation):
            batch = self._batch = self._build_batch(pod, state)
            if batch is None:
                return None
        while batch.heap:
            _, _, name = heapq.heappop(batch.heap)
            node = self.snapshot.get(name)
            if node is not None and self._run(self._active, state, pod, node) is None:
                batch.outstanding = name
                return name
        self._batch = None
        return None

    def _build_batch(self, pod: PodInfo, state: CycleState) -> _Batch | None:
        static = self._static_statuses(pod, state)
        assert static is not None
        nodes = [n for n in self.snapshot if static[n.name] is None]
        static_scores = {tuple(p.score(state, pod, n) for p in self._static_scores) for n in nodes}
        if len(static_scores) > 1:
            return None  # static scores differ between nodes: score every node, as upstream
        tiebreak = {n.name: self.rng.random() for n in nodes}
        heap = [(-self._dynamic_score(pod, state, n), tiebreak[n.name], n.name) for n in nodes]
        heapq.heapify(heap)
        return _Batch(pod.signature() or (), self.snapshot.generation, heap, tiebreak)

    # -- the spread batch ----------------------------------------------------------------------
    def _default_spread(self, pod: PodInfo, state: CycleState) -> tuple[SpreadConstraint, ...] | None:
        """The pod's system-default spread constraints when they are the only scoring that varies
        besides the per-node scores and the spread batch gives the exact answer (the conditions of
        :meth:`_batchable`, PodTopologySpread's Score and PreScore the only ones not skipped)."""
        spreader = self._spreader
        if (spreader is None or pod.signature() is None or NODE_NAMES in state
                or self.snapshot.with_anti_affinity or self._nominated):
            return None
        skipped = state.get(SKIPPED_SCORES, ())
        name = spreader.name
        if name in skipped or any(n != name and n not in skipped for n in self._pod_scores):
            return None
        # a per-node score plugin's PreScore only decides its Skip, which its Score already honours
        # (NodeResourcesBalancedAllocation's best-effort 0 everywhere): it leaves the batch exact
        if any(p.name != name and p.name not in skipped and not p.per_node_score
               for p in self.profile.pre_score):
            return None
        found: tuple[SpreadConstraint, ...] | None = spreader.default_spread_constraints(state, pod)
        return found

    def _spread_select(self, pod: PodInfo, state: CycleState, soft: tuple[SpreadConstraint, ...],
                       ) -> str | None:
        """Upstream's window, scores and tie-break over the spread batch's classes (None: no node
        is feasible, or the node-static scores differ: the ordinary path decides)."""
        snapshot = self.snapshot
        key = (pod.signature(), pod.namespace, soft)
        static = self._static_statuses(pod, state)
        assert static is not None
        dynamic, heap_scores = self._active, self._heap_scores
        batch = self._spread
        rebuild = (batch is None or batch.key != key or batch.outstanding is not None
                   or batch.generation != snapshot.generation)
        if rebuild:
            if self._spread_refused == (key, snapshot.static_generation) or not self._static_scores_equal(
                    pod, state, static):
                self._spread_refused = (key, snapshot.static_generation)
                return None
            assert self._spreader is not None
            spread: DefaultSpread = self._spreader.default_spread(pod, soft, snapshot)
        else:
            assert batch is not None
            spread = batch.scoring
        hosts = spread.host_counts

        def classify(name: str) -> tuple[int, int, tuple[str | None, ...]] | None:
            node = snapshot.get(name)
            if node is None or static[name] is not None or self._run(dynamic, state, pod, node) is not None:
                return None
            fit = sum(p.score(state, pod, node) * p.weight for p in heap_scores)
            return fit, hosts.get(name, 0), spread.values(node.shape.labels)

        if rebuild:
            batch = self._spread = SpreadBatch.build(key, snapshot.generation, [n.name for n in snapshot],
                                                     classify, spread)
        elif batch is not None and batch.dirty:
            batch.refresh(classify)
        assert batch is not None
        count = len(batch.names)
        start = self.next_start % count
        to_find = num_feasible_nodes_to_find(self.profile.percentage_of_nodes_to_score, count)
        found = batch.window(start, to_find)
        if found is None:
            return None
        ranges, processed = found
        present = batch.present(ranges, processed == count)
        groups = dict.fromkeys((c[1], c[2]) for c in present)  # type: ignore[index]
        scores = spread.scores(groups, sum(present.values()))
        totals = {c: c[0] + scores[(c[1], c[2])] for c in present}  # type: ignore[index]
        name = batch.pick(totals, present, ranges, self.rng)
        self.next_start = (start + processed) % count
        batch.outstanding = (pod.key, name)
        return name

    def _static_scores_equal(self, pod: PodInfo, state: CycleState, static: _Statuses) -> bool:
        """Whether the node-static scores are equal on every node that passes the static filters (so
        they add the same to every total and never decide)."""
        found = {tuple(p.score(state, pod, n) for p in self._static_scores)
                 for n in self.snapshot if static[n.name] is None}
        return len(found) <= 1


def _merge_node_names(state: CycleState, before: set[str] | None, plugin: str) -> Status | None:
    """Upstream ``RunPreFilterPlugins``: PreFilterResults are intersected (``PreFilterResult.Merge``);
    an empty intersection rejects the pod, unresolvable: "node(s) didn't satisfy plugin X", or
    "node(s) didn't satisfy plugin(s) [X Y] simultaneously" when several plugins narrowed the nodes."""
    plugins = [*state.get(_RESTRICTED_BY, ()), plugin]
    state[_RESTRICTED_BY] = plugins
    names = state[NODE_NAMES]
    if before is not None:
        names = state[NODE_NAMES] = set(before) & set(names)
    if names:
        return None
    if len(plugins) == 1:
        return Status.unresolvable(plugin, f"node(s) didn't satisfy plugin {plugin}")
    listed = " ".join(plugins)
    return Status.unresolvable(plugin, f"node(s) didn't satisfy plugin(s) [{listed}] simultaneously")


def _restore_node_names(state: CycleState, before: set[str] | None) -> None:
    """Drop a PreFilterResult stored by a plugin that rejected the pod (upstream ignores it)."""
    if before is None:
        state.pop(NODE_NAMES, None)
    else:
        state[NODE_NAMES] = before


def _add_absent_nodes(nodes: Iterable[NodeInfo], state: CycleState, statuses: dict[str, Status]) -> None:
    """Upstream ``findNodesThatFitPod``: the nodes a PreFilterResult left out are unschedulable and
    unresolvable, "node(s) didn't satisfy plugin(s) [<plugins, sorted>]" (so preemption does not try
    them and the FitError counts them). Only a failed attempt pays for this."""
    names = state[NODE_NAMES]
    plugins = sorted(set(state.get(_RESTRICTED_BY, ())))
    message = f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}]"
    status = Status.unresolvable(plugins[0] if plugins else "", message)
    for node in nodes:
        if node.name not in names and node.name not in statuses:
            statuses[node.name] = status
