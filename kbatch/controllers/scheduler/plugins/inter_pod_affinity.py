"""InterPodAffinity (PreFilter + Filter + PreScore + Score): pod affinity and anti-affinity on
topology keys.

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``. PreFilter counts, per
topology domain (key, value): the placed pods matching *all* the pod's required affinity terms
(one pod must satisfy every term), the placed pods matching each anti-affinity term, and the
placed pods whose own required anti-affinity selects the pod. Filter, in upstream's order, for a
candidate node (a node without a term's ``topologyKey`` is in no domain of it):

* affinity: the node has every term's key and each term's domain holds a matching pod; upstream's
  special case: when no pod in the cluster matches and the incoming pod matches its own terms, it
  may go anywhere with the keys (the first pod of a group). Reason "node(s) didn't match pod
  affinity rules", unresolvable.
* anti-affinity: no term's domain holds a pod it selects. Reason "node(s) didn't match pod
  anti-affinity rules", unschedulable.
* existing pods' anti-affinity: none of the node's domains holds a pod whose required
  anti-affinity selects the incoming pod. Reason "node(s) didn't satisfy existing pods
  anti-affinity rules", unschedulable.

PreFilter extensions (upstream ``AddPod``/``RemovePod``, ``updateWithPod``): preemption's what-if
removal and re-addition of victims update these counts, on a private copy of the state per
candidate node (``copy_state``), so removing a pod the anti-affinity hates frees its whole domain.

Scoring, upstream ``interpodaffinity/scoring.go``: every topology domain (key, value) accumulates,
over the existing pods in it: the weight of each of the incoming pod's preferred affinity terms
that selects the existing pod (anti-affinity: minus the weight); ``hardPodAffinityWeight`` (default
1) for each of the existing pod's *required* affinity terms that selects the incoming pod; the
weight of each of the existing pod's preferred affinity terms that selects it (anti-affinity:
minus). A node scores the sum over the domains it is in; normalization maps the minimum to 0 and
the maximum to 100 (all 0 when they are equal). PreScore returns Skip when nothing accumulated;
without preferred terms of its own only pods with scoring terms are visited (upstream
``HavePodsWithAffinityList``), and when there are none the skip is known at PreFilter, which keeps
such pods on the batched fast path. Default weight 2 (``default_plugins.go``). Queueing hints:
:mod:`.pod_hints`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.controllers.scheduler.config import SchedulerConfigError, decode_int, invalid, plugin_args
from kbatch.controllers.scheduler.events import ActionType, ClusterEventWithHint, on_node, on_pod
from kbatch.controllers.scheduler.framework import Code, CycleState, Status, skip_score
from kbatch.controllers.scheduler.plugins.pod_hints import (
    affinity_after_node_change,
    affinity_after_pod_change,
)
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import PodAffinityTerm, PodInfo, WeightedPodAffinityTerm

__all__ = ["ERR_AFFINITY", "ERR_ANTI_AFFINITY", "ERR_EXISTING_ANTI_AFFINITY", "InterPodAffinity", "new"]

ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

_KEY = "InterPodAffinity"
_SNAPSHOT_KEY, _SCORE_KEY = "InterPodAffinity/snapshot", "InterPodAffinity/score"
_SKIP = Status(Code.SKIP, plugin="InterPodAffinity")

Domain = tuple[str, str]  # (topology key, value)
Labels = Mapping[str, str]


Counts = dict[Domain, int]


def _bump(counts: Counts, key: str, labels: Labels, delta: int) -> None:
    """Upstream ``topologyToMatchedTermCount.update``: entries that reach zero are dropped."""
    value = labels.get(key)
    if value is None:
        return
    domain = (key, value)
    total = counts.get(domain, 0) + delta
    if total:
        counts[domain] = total
    else:
        counts.pop(domain, None)


def _update_incoming(affinity: Counts, anti: Counts, pod: PodInfo, other: PodInfo, labels: Labels,
                     delta: int) -> None:
    """``other`` (placed on a node with ``labels``) against the pod's own terms."""
    if pod.affinity and all(t.selects(pod.namespace, other) for t in pod.affinity):
        for term in pod.affinity:
            _bump(affinity, term.topology_key, labels, delta)
    for term in pod.anti_affinity:
        if term.selects(pod.namespace, other):
            _bump(anti, term.topology_key, labels, delta)


def _update_existing(existing: Counts, pod: PodInfo, other: PodInfo, labels: Labels, delta: int) -> None:
    """``other``'s required anti-affinity against the pod."""
    for term in other.anti_affinity:
        if term.selects(other.namespace, pod):
            _bump(existing, term.topology_key, labels, delta)


@dataclass(slots=True)
class _FilterState:
    affinity: Counts
    anti: Counts
    existing: Counts
    self_match: bool  # the pod matches all its own affinity terms

    def copy(self) -> _FilterState:
        return _FilterState(dict(self.affinity), dict(self.anti), dict(self.existing), self.self_match)


def _filter_state(snapshot: Snapshot, pod: PodInfo) -> _FilterState:
    affinity: Counts = {}
    anti: Counts = {}
    if pod.affinity or pod.anti_affinity:
        for node in snapshot:
            labels = node.shape.labels
            for other in node.pods.values():
                if other.key != pod.key:
                    _update_incoming(affinity, anti, pod, other, labels, 1)
    existing: Counts = {}
    for key, other in sorted(snapshot.with_anti_affinity.items()):
        host = snapshot.get(snapshot.node_of(key) or "")
        if host is not None and key != pod.key:
            _update_existing(existing, pod, other, host.shape.labels, 1)
    self_match = bool(pod.affinity) and all(t.selects(pod.namespace, pod) for t in pod.affinity)
    return _FilterState(affinity, anti, existing, self_match)


def _add(scores: dict[Domain, int], term: PodAffinityTerm, weight: int, labels: Labels) -> None:
    value = labels.get(term.topology_key)
    if value is not None:
        domain = (term.topology_key, value)
        scores[domain] = scores.get(domain, 0) + weight


def _weighted(scores: dict[Domain, int], terms: tuple[WeightedPodAffinityTerm, ...], sign: int,
              owner: PodInfo, target: PodInfo, labels: Labels) -> None:
    for w in terms:
        if w.term.selects(owner.namespace, target):
            _add(scores, w.term, sign * w.weight, labels)


def _score_existing(scores: dict[Domain, int], pod: PodInfo, existing: PodInfo, labels: Labels,
                    hard_weight: int) -> None:
    """Upstream ``processExistingPod``: the incoming pod's preferred terms against ``existing``, then
    ``existing``'s required affinity and preferred terms against the incoming pod."""
    if not labels:
        return
    _weighted(scores, pod.preferred_affinity, 1, pod, existing, labels)
    _weighted(scores, pod.preferred_anti_affinity, -1, pod, existing, labels)
    if hard_weight > 0:
        for term in existing.affinity:
            if term.selects(existing.namespace, pod):
                _add(scores, term, hard_weight, labels)
    _weighted(scores, existing.preferred_affinity, 1, existing, pod, labels)
    _weighted(scores, existing.preferred_anti_affinity, -1, existing, pod, labels)


def _visit(snapshot: Snapshot, everyone: bool) -> Iterator[tuple[PodInfo, NodeInfo]]:
    """All placed pods, or only those with scoring terms, each with its node, in a stable order."""
    if everyone:
        for node in snapshot:
            for existing in node.pods.values():
                yield existing, node
        return
    for key, existing in sorted(snapshot.with_affinity.items()):
        host = snapshot.get(snapshot.node_of(key) or "")
        if host is not None:
            yield existing, host


class InterPodAffinity:
    name = "InterPodAffinity"
    node_static = False
    per_node_score = False

    def __init__(self, weight: int = 2, hard_pod_affinity_weight: int = 1) -> None:
        self.weight = weight
        self.hard_pod_affinity_weight = hard_pod_affinity_weight

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        if pod.preferred_affinity or pod.preferred_anti_affinity or snapshot.with_affinity:
            state[_SNAPSHOT_KEY] = snapshot
        else:
            skip_score(state, self.name)
        if not pod.affinity and not pod.anti_affinity and not snapshot.with_anti_affinity:
            return _SKIP  # nothing to check: upstream's PreFilter Skip, so Filter does not run
        state[_KEY] = _filter_state(snapshot, pod)
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        counts: _FilterState | None = state.get(_KEY)
        if counts is None:
            return None
        labels = node.shape.labels
        if pod.affinity:
            exist = True
            for term in pod.affinity:
                value = labels.get(term.topology_key)
                if value is None:
                    return Status.unresolvable(self.name, ERR_AFFINITY)
                if counts.affinity.get((term.topology_key, value), 0) <= 0:
                    exist = False
            if not exist and not (not counts.affinity and counts.self_match):
                return Status.unresolvable(self.name, ERR_AFFINITY)
        if counts.anti:
            for term in pod.anti_affinity:
                value = labels.get(term.topology_key)
                if value is not None and counts.anti.get((term.topology_key, value), 0) > 0:
                    return Status.unschedulable(self.name, ERR_ANTI_AFFINITY)
        existing = counts.existing
        if existing and any(existing.get(pair, 0) > 0 for pair in labels.items()):
            return Status.unschedulable(self.name, ERR_EXISTING_ANTI_AFFINITY)
        return None

    # -- PreFilter extensions (preemption's what-if) --------------------------------------------
    def copy_state(self, state: CycleState) -> None:
        counts: _FilterState | None = state.get(_KEY)
        if counts is not None:
            state[_KEY] = counts.copy()

    def add_pod(self, state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo) -> None:
        self._update(state, pod, added, node, 1)

    def remove_pod(self, state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo) -> None:
        self._update(state, pod, removed, node, -1)

    @staticmethod
    def _update(state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo, delta: int) -> None:
        """Upstream ``preFilterState.updateWithPod``."""
        counts: _FilterState | None = state.get(_KEY)
        if counts is None or other.key == pod.key:
            return
        labels = node.shape.labels
        _update_existing(counts.existing, pod, other, labels, delta)
        _update_incoming(counts.affinity, counts.anti, pod, other, labels, delta)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        pods = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        return [
            on_pod(pods, affinity_after_pod_change),
            on_node(ActionType.ADD | ActionType.UPDATE_NODE_LABEL, affinity_after_node_change),
        ]

    # -- scoring -------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        snapshot: Snapshot | None = state.get(_SNAPSHOT_KEY)
        if snapshot is None or not nodes:
            return _SKIP
        scores: dict[Domain, int] = {}
        everyone = bool(pod.preferred_affinity or pod.preferred_anti_affinity)
        for existing, node in _visit(snapshot, everyone):
            if existing.key != pod.key:
                _score_existing(scores, pod, existing, node.shape.labels, self.hard_pod_affinity_weight)
        if not scores:
            return _SKIP
        state[_SCORE_KEY] = (scores, sorted({key for key, _ in scores}))
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        entry = state.get(_SCORE_KEY)
        if entry is None:
            return 0
        scores, keys = entry
        labels = node.shape.labels
        return sum(scores.get((key, labels[key]), 0) for key in keys if key in labels)

    def normalize(self, scores: list[int]) -> list[int]:
        low, high = min(scores, default=0), max(scores, default=0)
        if high == low:
            return [0] * len(scores)
        # upstream NormalizeScore's float64 arithmetic, in its order: MaxNodeScore * ((s - min) / diff),
        # truncated (29/100 of the range is 28: 0.29 * 100 = 28.999...)
        diff = high - low
        return [int(100 * ((s - low) / diff)) for s in scores]


def new(args: Mapping[str, Any], handle: Any) -> InterPodAffinity:
    """The registry's factory. Args as upstream's ``InterPodAffinityArgs``: ``hardPodAffinityWeight``
    (0-100, default 1)."""
    args = plugin_args("InterPodAffinity", args,
                       ("hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"))
    weight = decode_int(args.get("hardPodAffinityWeight", 1), "InterPodAffinityArgs.hardPodAffinityWeight")
    if weight is None:
        weight = 1
    if not 0 <= weight <= 100:
        raise invalid("hardPodAffinityWeight", weight, "not in valid range [0-100]")
    if args.get("ignorePreferredTermsOfExistingPods"):
        raise SchedulerConfigError("InterPodAffinity: ignorePreferredTermsOfExistingPods is not modelled "
                                   "by kbatch")
    return InterPodAffinity(hard_pod_affinity_weight=weight)
