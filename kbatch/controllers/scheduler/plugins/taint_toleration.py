"""TaintToleration (Filter + Score).

Upstream ``pkg/scheduler/framework/plugins/tainttoleration``: the filter rejects a node with a
``NoSchedule`` or ``NoExecute`` taint the pod does not tolerate, unresolvable, with the reason
"node(s) had untolerated taint(s)": since 1.35 (kubernetes#134740, also in 1.34 patches) the reason
no longer names the taint, whose key and value may be sensitive. The score counts the
``PreferNoSchedule`` taints the pod does not tolerate, normalized in reverse (fewer is better).

Queueing hints (``EventsToRegister``, KEP-4247): a node added or whose taints changed so that the
pod, untolerated before (or the node being new), now tolerates it (Node Add | UpdateNodeTaint); a
toleration added to the pod itself (Pod UpdatePodToleration).
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
    on_pod,
)
from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.plugins.normalize import default_normalize
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import NodeShape, PodInfo, Taint, Toleration

__all__ = ["UNTOLERATED_TAINTS", "TaintToleration", "new", "same_pod", "untolerated_taint"]

_DO_NOT_SCHEDULE = ("NoSchedule", "NoExecute")
UNTOLERATED_TAINTS = "node(s) had untolerated taint(s)"
_UNTOLERATED = Status.unresolvable("TaintToleration", UNTOLERATED_TAINTS)  # immutable: one for every node


def untolerated_taint(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...], effects: tuple[str, ...]
) -> Taint | None:
    for taint in taints:
        if taint.effect in effects and not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


def same_pod(a: PodInfo, b: PodInfo) -> bool:
    """Upstream compares UIDs; kbatch's test pods may lack one, so the key must match too."""
    return a.key == b.key and a.uid == b.uid


def after_node_change(pod: PodInfo, old: NodeShape | None, new: NodeShape) -> QueueingHint:
    """Upstream ``isSchedulableAfterNodeChange``: untolerated before (a new node counts as
    untolerated), tolerated now."""
    was = old is None or untolerated_taint(old.taints, pod.tolerations, _DO_NOT_SCHEDULE) is not None
    now = untolerated_taint(new.taints, pod.tolerations, _DO_NOT_SCHEDULE) is not None
    return QUEUE if was and not now else QUEUE_SKIP


def after_toleration_added(pod: PodInfo, old: PodInfo | None, new: PodInfo) -> QueueingHint:
    """Upstream ``isSchedulableAfterPodTolerationChange``: only the pod's own new toleration."""
    return QUEUE if same_pod(pod, new) else QUEUE_SKIP


class TaintToleration:
    name = "TaintToleration"
    node_static = True
    per_node_score = False

    def __init__(self, weight: int = 3) -> None:
        self.weight = weight

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if untolerated_taint(node.shape.taints, pod.tolerations, _DO_NOT_SCHEDULE) is None:
            return None
        return _UNTOLERATED

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        tolerations = tuple(t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule"))
        return sum(
            1 for taint in node.shape.taints
            if taint.effect == "PreferNoSchedule" and not any(t.tolerates(taint) for t in tolerations)
        )

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=True)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            on_node(ActionType.ADD | ActionType.UPDATE_NODE_TAINT, after_node_change),
            on_pod(ActionType.UPDATE_POD_TOLERATION, after_toleration_added),
        ]


def new(args: Mapping[str, Any], handle: Any) -> TaintToleration:
    """The registry's factory: TaintToleration takes no args."""
    plugin_args("TaintToleration", args)
    return TaintToleration()
