"""Filtering a node with the pods nominated to it (upstream ``RunFilterPluginsWithNominatedPods`` and
``addGENominatedPods`` in ``pkg/scheduler/framework/runtime/framework.go``).

A pod that preemption nominated to a node is not on it yet, but the room is reserved for it: when
another pod is filtered against that node, the nominated pods of equal or higher priority (itself
excluded, :meth:`Snapshot.nominated_for`) are added to a copy of the node and of the cycle state
(through the PreFilter extensions' ``add_pod``, as preemption's what-if does) and the filters run
on that; if they pass, they run again on the node as it is, because the nominated pods may end up
elsewhere (pod affinity to one of them must not count). The pod fits only if both pass; the status
is that of the pass that failed. Lower-priority nominated pods are ignored: the pod may take their
room (and preemption clears their nominations).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kbatch.controllers.scheduler.framework import CycleState, PreFilterExtensions, Status
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.snapshot import NodeInfo

__all__ = ["filter_with_nominated", "with_nominated"]

Run = Callable[[CycleState, "NodeInfo"], "Status | None"]


def with_nominated(
    extensions: Sequence[PreFilterExtensions], state: CycleState, pod: PodInfo, node: NodeInfo,
    nominated: Sequence[PodInfo],
) -> tuple[CycleState, NodeInfo]:
    """Copies of ``state`` and ``node`` with ``nominated`` added (upstream ``addGENominatedPods``)."""
    state_out = dict(state)
    for ext in extensions:
        ext.copy_state(state_out)
    node_out = node.clone()
    for other in nominated:
        node_out.add_pod(other)
        for ext in extensions:
            ext.add_pod(state_out, pod, other, node_out)
    return state_out, node_out


def filter_with_nominated(
    run: Run, extensions: Sequence[PreFilterExtensions], state: CycleState, pod: PodInfo, node: NodeInfo,
    nominated: Sequence[PodInfo],
) -> Status | None:
    """``run`` (the filters) with ``nominated`` added, then, if that passes, without them."""
    if nominated:
        status = run(*with_nominated(extensions, state, pod, node, nominated))
        if status is not None:
            return status
    return run(state, node)
