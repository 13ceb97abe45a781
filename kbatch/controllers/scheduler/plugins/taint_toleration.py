"""TaintToleration (Filter + Score).

Upstream ``pkg/scheduler/framework/plugins/tainttoleration``: the filter rejects a node with a
``NoSchedule`` or ``NoExecute`` taint the pod does not tolerate; the reason names the first such
taint, "node(s) had untolerated taint {key: value}", unresolvable. The score counts the
``PreferNoSchedule`` taints the pod does not tolerate, normalized in reverse (fewer is better).
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.plugins.normalize import default_normalize
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import PodInfo, Taint, Toleration

__all__ = ["TaintToleration", "untolerated_taint"]


def untolerated_taint(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...], effects: tuple[str, ...]
) -> Taint | None:
    for taint in taints:
        if taint.effect in effects and not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


class TaintToleration:
    name = "TaintToleration"
    node_static = True

    def __init__(self, weight: int = 3) -> None:
        self.weight = weight

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        taint = untolerated_taint(node.shape.taints, pod.tolerations, ("NoSchedule", "NoExecute"))
        if taint is None:
            return None
        return Status.unresolvable(self.name, f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}")

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        tolerations = tuple(t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule"))
        return sum(
            1 for taint in node.shape.taints
            if taint.effect == "PreferNoSchedule" and not any(t.tolerates(taint) for t in tolerations)
        )

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=True)
