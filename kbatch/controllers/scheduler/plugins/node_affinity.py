"""NodeAffinity (Filter + Score): ``nodeSelector`` and node affinity.

Upstream ``pkg/scheduler/framework/plugins/nodeaffinity``: the filter requires every
``nodeSelector`` label and, when present, one of the required ``nodeSelectorTerms`` (terms ORed,
requirements ANDed; ``matchFields`` on ``metadata.name``). Reason "node(s) didn't match Pod's node
affinity/selector", unresolvable. The score sums the weights of the matching preferred terms,
normalized to 0..100 over the nodes being scored (``DefaultNormalizeScore``).
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.plugins.normalize import default_normalize
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import PodInfo, match_node_selector_terms

__all__ = ["ERR_REASON", "NodeAffinity"]

ERR_REASON = "node(s) didn't match Pod's node affinity/selector"


class NodeAffinity:
    name = "NodeAffinity"
    node_static = True

    def __init__(self, weight: int = 2) -> None:
        self.weight = weight

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        labels = node.shape.labels
        if any(labels.get(k) != v for k, v in pod.node_selector):
            return Status.unresolvable(self.name, ERR_REASON)
        if pod.required_terms is not None and not match_node_selector_terms(
            pod.required_terms, labels, node.name
        ):
            return Status.unresolvable(self.name, ERR_REASON)
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        labels, name = node.shape.labels, node.name
        return sum(w.weight for w in pod.preferred_terms if w.term.matches(labels, name))

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=False)
