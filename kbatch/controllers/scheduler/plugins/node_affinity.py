"""NodeAffinity (Filter + Score): ``nodeSelector`` and node affinity.

Upstream ``pkg/scheduler/framework/plugins/nodeaffinity``: the filter requires every
``nodeSelector`` label and, when present, one of the required ``nodeSelectorTerms`` (terms ORed,
requirements ANDed; ``matchFields`` on ``metadata.name``). Reason "node(s) didn't match Pod's node
affinity/selector", unresolvable. The score sums the weights of the matching preferred terms,
normalized to 0..100 over the nodes being scored (``DefaultNormalizeScore``).

Queueing hint (``EventsToRegister``, KEP-4247): a node added that matches, or a node whose label
update turned a non-match into a match (Node Add | UpdateNodeLabel).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.controllers.scheduler.config import plugin_args
from kbatch.controllers.scheduler.events import (
    QUEUE,
    QUEUE_SKIP,
    ActionType,
    ClusterEventWithHint,
    QueueingHint,
    on_node,
)
from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.plugins.normalize import default_normalize
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import NodeShape, PodInfo, match_node_selector_terms

__all__ = ["ERR_REASON", "NodeAffinity", "new", "required_match"]

ERR_REASON = "node(s) didn't match Pod's node affinity/selector"


def required_match(pod: PodInfo, labels: Mapping[str, str], name: str) -> bool:
    """``nodeSelector`` and required node affinity (upstream ``GetRequiredNodeAffinity(pod).Match``)."""
    if any(labels.get(k) != v for k, v in pod.node_selector):
        return False
    return pod.required_terms is None or match_node_selector_terms(pod.required_terms, labels, name)


def after_node_change(pod: PodInfo, old: NodeShape | None, new: NodeShape) -> QueueingHint:
    """Upstream ``isSchedulableAfterNodeChange``: the node matches now and did not before."""
    if not required_match(pod, new.labels, new.name):
        return QUEUE_SKIP
    if old is None or not required_match(pod, old.labels, old.name):
        return QUEUE
    return QUEUE_SKIP


class NodeAffinity:
    name = "NodeAffinity"
    node_static = True

    def __init__(self, weight: int = 2) -> None:
        self.weight = weight

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not required_match(pod, node.shape.labels, node.name):
            return Status.unresolvable(self.name, ERR_REASON)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        labels, name = node.shape.labels, node.name
        return sum(w.weight for w in pod.preferred_terms if w.term.matches(labels, name))

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=False)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [on_node(ActionType.ADD | ActionType.UPDATE_NODE_LABEL, after_node_change)]


def new(args: Mapping[str, Any], handle: Any) -> NodeAffinity:
    """The registry's factory: NodeAffinity takes no args."""
    plugin_args("NodeAffinity", args)
    return NodeAffinity()
