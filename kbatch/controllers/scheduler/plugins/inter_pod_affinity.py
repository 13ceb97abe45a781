"""InterPodAffinity (PreFilter + Filter): required pod affinity and anti-affinity on topology keys.

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

Preferred (weighted) pod affinity is not scored (see docs/simulation.md, "Differences").
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import PodAffinityTerm, PodInfo

__all__ = ["ERR_AFFINITY", "ERR_ANTI_AFFINITY", "ERR_EXISTING_ANTI_AFFINITY", "InterPodAffinity"]

ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

_KEY = "InterPodAffinity"

Domain = tuple[str, str]  # (topology key, value)


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


class InterPodAffinity:
    name = "InterPodAffinity"
    node_static = False

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
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
