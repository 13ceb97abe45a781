"""InterPodAffinity (PreFilter + Filter + PreScore + Score): pod affinity and anti-affinity on
topology keys.

Upstream ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``. For a candidate node
and each term, the topology domain is the node's value of ``topologyKey`` (a node without the
label matches no term):

* affinity: some pod selected by the term runs in the same domain; upstream's special case: when
  no pod in the cluster matches the term and the incoming pod matches its own term, it may go
  anywhere with the key (the first pod of a group). Reason "node(s) didn't match pod affinity
  rules", unresolvable.
* anti-affinity: no pod selected by the term runs in the domain. Reason "node(s) didn't match pod
  anti-affinity rules", unschedulable.
* existing pods' anti-affinity: no running pod whose required anti-affinity selects the incoming
  pod shares the domain. Reason "node(s) didn't satisfy existing pods anti-affinity rules".

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

from kbatch.controllers.scheduler.events import ActionType, ClusterEventWithHint, on_node, on_pod
from kbatch.controllers.scheduler.framework import SKIPPED_SCORES, Code, CycleState, Status
from kbatch.controllers.scheduler.plugins.pod_hints import (
    affinity_after_node_change,
    affinity_after_pod_change,
)
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import PodAffinityTerm, PodInfo, WeightedPodAffinityTerm

__all__ = ["ERR_AFFINITY", "ERR_ANTI_AFFINITY", "ERR_EXISTING_ANTI_AFFINITY", "InterPodAffinity"]

ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

_KEY = "InterPodAffinity"
_SNAPSHOT_KEY, _SCORE_KEY = "InterPodAffinity/snapshot", "InterPodAffinity/score"
_SKIP = Status(Code.SKIP, plugin="InterPodAffinity")

Domain = tuple[str, str]  # (topology key, value)
Labels = Mapping[str, str]


def _domains_with(
    snapshot: Snapshot, owner: PodInfo, terms: tuple[PodAffinityTerm, ...]
) -> list[set[Domain]]:
    """Per term, the topology domains that hold at least one pod the term selects."""
    out: list[set[Domain]] = [set() for _ in terms]
    for node in snapshot:
        labels = node.shape.labels
        for index, term in enumerate(terms):
            value = labels.get(term.topology_key)
            if value is None or (term.topology_key, value) in out[index]:
                continue
            if any(term.selects(owner.namespace, p) for p in node.pods.values() if p.key != owner.key):
                out[index].add((term.topology_key, value))
    return out


def _existing_anti(snapshot: Snapshot, pod: PodInfo) -> set[Domain]:
    """Domains where a running pod's required anti-affinity selects ``pod``."""
    out: set[Domain] = set()
    for key, other in sorted(snapshot.with_anti_affinity.items()):
        node = snapshot.get(snapshot.node_of(key) or "")
        if node is None or key == pod.key:
            continue
        for term in other.anti_affinity:
            value = node.shape.labels.get(term.topology_key)
            if value is not None and term.selects(other.namespace, pod):
                out.add((term.topology_key, value))
    return out


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
        node = snapshot.get(snapshot.node_of(key) or "")
        if node is not None:
            yield existing, node


class InterPodAffinity:
    name = "InterPodAffinity"
    node_static = False

    def __init__(self, weight: int = 2, hard_pod_affinity_weight: int = 1) -> None:
        self.weight = weight
        self.hard_pod_affinity_weight = hard_pod_affinity_weight

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        if pod.preferred_affinity or pod.preferred_anti_affinity or snapshot.with_affinity:
            state[_SNAPSHOT_KEY] = snapshot
        else:
            skipped = state.get(SKIPPED_SCORES)
            if skipped is None:
                state[SKIPPED_SCORES] = {self.name}
            else:
                skipped.add(self.name)
        if not pod.affinity and not pod.anti_affinity and not snapshot.with_anti_affinity:
            return None  # nothing to check: the filter is a no-op without state
        affinity = _domains_with(snapshot, pod, pod.affinity)
        self_match = all(t.selects(pod.namespace, pod) for t in pod.affinity)
        state[_KEY] = (
            affinity,
            self_match and not any(affinity),
            _domains_with(snapshot, pod, pod.anti_affinity),
            _existing_anti(snapshot, pod),
        )
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if _KEY not in state:
            return None
        affinity, first_of_group, anti, existing = state[_KEY]
        labels = node.shape.labels
        if existing and any((k, v) in existing for k, v in labels.items()):
            return Status.unschedulable(self.name, ERR_EXISTING_ANTI_AFFINITY)
        for index, term in enumerate(pod.affinity):
            value = labels.get(term.topology_key)
            if value is None:
                return Status.unresolvable(self.name, ERR_AFFINITY)
            if (term.topology_key, value) not in affinity[index] and not first_of_group:
                return Status.unresolvable(self.name, ERR_AFFINITY)
        for index, term in enumerate(pod.anti_affinity):
            value = labels.get(term.topology_key)
            if value is not None and (term.topology_key, value) in anti[index]:
                return Status.unschedulable(self.name, ERR_ANTI_AFFINITY)
        return None

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
        return [int(100 * (s - low) / (high - low)) for s in scores]
