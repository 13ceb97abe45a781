"""NodeAffinity (PreFilter + Filter + Score): ``nodeSelector`` and node affinity.

Upstream ``pkg/scheduler/framework/plugins/nodeaffinity``: the filter requires every
``nodeSelector`` label and, when present, one of the required ``nodeSelectorTerms`` (terms ORed,
requirements ANDed; ``matchFields`` on ``metadata.name``). Reason "node(s) didn't match Pod's node
affinity/selector", unresolvable. The score sums the weights of the matching preferred terms,
normalized to 0..100 over the nodes being scored (``DefaultNormalizeScore``).

PreFilter: when every required term names nodes (``matchFields`` ``metadata.name In``), only those
nodes are tried (a ``PreFilterResult``: the others are "node(s) didn't satisfy plugin(s)
[NodeAffinity]"); a term whose name requirements intersect to nothing conflicts: "pod affinity terms
conflict", unresolvable, when every term does.

Args (``NodeAffinityArgs``): ``addedAffinity``, a node affinity every pod of the profile must also
satisfy: its required terms are checked first (reason "node(s) didn't match scheduler-enforced node
affinity"), its preferred terms are scored with the pod's own.

Queueing hint (``EventsToRegister``, KEP-4247): a node added that matches, or a node whose label
update turned a non-match into a match (Node Add | UpdateNodeLabel).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from kbatch.controllers.scheduler.config import SchedulerConfigError, plugin_args
from kbatch.controllers.scheduler.events import (
    QUEUE,
    QUEUE_SKIP,
    ActionType,
    ClusterEventWithHint,
    QueueingHint,
    on_node,
)
from kbatch.controllers.scheduler.framework import NODE_NAMES, CycleState, Status
from kbatch.controllers.scheduler.plugins.normalize import default_normalize
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import (
    NodeSelectorTerm,
    NodeShape,
    PodInfo,
    WeightedTerm,
    match_node_selector_terms,
)

__all__ = ["ERR_REASON", "ERR_REASON_CONFLICT", "ERR_REASON_ENFORCED", "NodeAffinity", "new",
           "required_match", "required_node_names"]

ERR_REASON = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


def required_match(pod: PodInfo, labels: Mapping[str, str], name: str) -> bool:
    """``nodeSelector`` and required node affinity (upstream ``GetRequiredNodeAffinity(pod).Match``)."""
    if any(labels.get(k) != v for k, v in pod.node_selector):
        return False
    return pod.required_terms is None or match_node_selector_terms(pod.required_terms, labels, name)


def required_node_names(terms: tuple[NodeSelectorTerm, ...]) -> set[str] | None:
    """Upstream ``PreFilter``'s node names: the union over the terms of each term's intersection of
    its ``metadata.name In`` field requirements; None when a term names no node (any node may do)."""
    names: set[str] = set()
    for term in terms:
        term_names: set[str] | None = None
        for r in term.match_fields:
            if r.key == "metadata.name" and r.operator == "In":
                term_names = set(r.values) if term_names is None else term_names & set(r.values)
        if term_names is None:
            return None
        names |= term_names
    return names


def added_after_node_change(added: tuple[NodeSelectorTerm, ...] | None, pod: PodInfo, old: NodeShape | None,
                            new: NodeShape) -> QueueingHint:
    """Upstream ``isSchedulableAfterNodeChange``: the node matches now (the added affinity too) and
    did not before. A module-level function, bound with ``functools.partial``: the state directory
    pickles the scheduler, and a closure would not pickle."""
    if added is not None and not match_node_selector_terms(added, new.labels, new.name):
        return QUEUE_SKIP
    if not required_match(pod, new.labels, new.name):
        return QUEUE_SKIP
    if old is None or not required_match(pod, old.labels, old.name):
        return QUEUE
    if added is not None and not match_node_selector_terms(added, old.labels, old.name):
        return QUEUE
    return QUEUE_SKIP


after_node_change = partial(added_after_node_change, None)


class NodeAffinity:
    name = "NodeAffinity"
    node_static = True
    per_node_score = False

    def __init__(self, weight: int = 2, added_required: tuple[NodeSelectorTerm, ...] | None = None,
                 added_preferred: tuple[WeightedTerm, ...] = ()) -> None:
        self.weight = weight
        self.added_required = added_required
        self.added_preferred = added_preferred

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        terms = pod.required_terms
        if not terms or not any(t.match_fields for t in terms):  # the usual pod: nothing to narrow
            return None
        names = required_node_names(terms)
        if names is None:
            return None
        if not names:
            return Status.unresolvable(self.name, ERR_REASON_CONFLICT)
        state[NODE_NAMES] = names
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        added = self.added_required
        if added is not None and not match_node_selector_terms(added, node.shape.labels, node.name):
            return Status.unresolvable(self.name, ERR_REASON_ENFORCED)
        if not required_match(pod, node.shape.labels, node.name):
            return Status.unresolvable(self.name, ERR_REASON)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        labels, name = node.shape.labels, node.name
        score = sum(w.weight for w in pod.preferred_terms if w.term.matches(labels, name))
        if self.added_preferred:
            score += sum(w.weight for w in self.added_preferred if w.term.matches(labels, name))
        return score

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=False)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        hint = partial(added_after_node_change, self.added_required)
        return [on_node(ActionType.ADD | ActionType.UPDATE_NODE_LABEL, hint)]


def new(args: Mapping[str, Any], handle: Any) -> NodeAffinity:
    """The registry's factory. Args as upstream's ``NodeAffinityArgs``: ``addedAffinity`` (a
    ``NodeAffinity``), validated as a pod's node affinity is (upstream ``ValidateNodeAffinityArgs``)."""
    args = plugin_args("NodeAffinity", args, ("addedAffinity",))
    added = args.get("addedAffinity")
    if not added:
        return NodeAffinity()
    required, preferred = _added_affinity(added)
    return NodeAffinity(added_required=required, added_preferred=preferred)


def _added_affinity(doc: Any) -> tuple[tuple[NodeSelectorTerm, ...] | None, tuple[WeightedTerm, ...]]:
    from pydantic import ValidationError

    from kbatch.api.core_v1.affinity import NodeAffinity as NodeAffinityModel
    from kbatch.api.strategies.core.scheduling_validation import validate_node_selector, validate_term
    from kbatch.controllers.scheduler.convert import node_selector_term

    try:
        model = NodeAffinityModel.from_dict(doc)
    except (ValidationError, TypeError, ValueError) as err:
        raise SchedulerConfigError(f"addedAffinity: Invalid value: {err}") from None
    path = "addedAffinity"
    required = model.required_during_scheduling_ignored_during_execution
    preferred = model.preferred_during_scheduling_ignored_during_execution or []
    errors = validate_node_selector(required, f"{path}.requiredDuringSchedulingIgnoredDuringExecution") \
        if required is not None else []
    for i, term in enumerate(preferred):
        errors += validate_term(term.preference,
                                f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference")
    if errors:
        raise SchedulerConfigError(", ".join(str(e) for e in errors))
    terms = tuple(node_selector_term(t) for t in required.node_selector_terms or ()) if required else None
    return terms, tuple(WeightedTerm(t.weight, node_selector_term(t.preference)) for t in preferred)
