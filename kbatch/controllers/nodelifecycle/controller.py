"""The ``node-lifecycle`` and ``taint-eviction-controller`` controllers.

``node-lifecycle`` keeps each node's not-ready / unreachable taints in step with its ``Ready``
condition (:func:`.taints.wanted_taints`). kbatch nodes post no heartbeats, so the controller
does not time conditions out (upstream's 40 s ``nodeMonitorGracePeriod``): a node goes NotReady
only when something says so, e.g. :func:`kbatch.sim.faults.mark_node_not_ready`.

``taint-eviction-controller`` evicts pods from nodes with ``NoExecute`` taints they do not
tolerate (or tolerate only for ``tolerationSeconds``): it adds ``DisruptionTarget=True`` reason
``DeletionByTaintManager`` message "Taint manager: deleting due to NoExecute taint", records a
``TaintManagerEviction`` event and deletes the pod (gracefully; the kubelet finishes it). The API
server's ``DefaultTolerationSeconds`` admission plugin gives pods 300 s not-ready / unreachable
tolerations unless they state their own, so by default a pod leaves a failed node five minutes after
the taint was added.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import format_time
from kbatch.api.errors import NotFound
from kbatch.controllers.nodelifecycle.taints import eviction_time, wanted_taints
from kbatch.controllers.scheduler.convert import taint_of, toleration_of
from kbatch.controllers.scheduler.types import Taint

__all__ = ["NodeLifecycle", "TaintEviction"]

EVICTION_REASON = "DeletionByTaintManager"
EVICTION_MESSAGE = "Taint manager: deleting due to NoExecute taint"


def _ready(node: Any) -> str | None:
    for cond in (node.status.conditions if node.status else None) or ():
        if cond.type == "Ready":
            return cond.status
    return None


class NodeLifecycle:
    def __init__(self, ctx: Any) -> None:
        from kbatch.api.core_v1 import Node

        self.ctx, self.Node = ctx, Node

    def _timeline(self, when: Any) -> float:
        return (when - self.ctx.clock.to_datetime(0)).total_seconds()

    def reconcile(self, request: Any) -> Any:
        try:
            node = self.ctx.cache.get(self.Node, request.name, readonly=True)
        except NotFound:
            return None
        now = self.ctx.clock.now()
        current = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
        wanted = wanted_taints(current, _ready(node), now)
        if wanted == current:
            return None
        body = [self._wire(t) for t in wanted]
        self.ctx.client.patch(self.Node, request.name, {"spec": {"taints": body or None}})
        return None

    def _wire(self, taint: Taint) -> dict[str, Any]:
        out: dict[str, Any] = {"key": taint.key, "effect": taint.effect}
        if taint.value:
            out["value"] = taint.value
        if taint.time_added is not None:
            out["timeAdded"] = format_time(self.ctx.clock.to_datetime(taint.time_added))
        return out


class TaintEviction:
    def __init__(self, ctx: Any) -> None:
        from kbatch.api.core_v1 import Node, Pod

        self.ctx, self.Node, self.Pod = ctx, Node, Pod

    def _timeline(self, when: Any) -> float:
        return (when - self.ctx.clock.to_datetime(0)).total_seconds()

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        try:
            pod = self.ctx.cache.get(self.Pod, request.name, request.namespace, readonly=True)
            node = self.ctx.cache.get(self.Node, pod.spec.node_name or "", readonly=True)
        except NotFound:
            return None
        phase = pod.status.phase if pod.status else None
        if pod.metadata.deletion_timestamp is not None or phase in ("Succeeded", "Failed"):
            return None
        now = self.ctx.clock.now()
        taints = [taint_of(t, self._timeline) for t in node.spec.taints or ()]
        tolerations = tuple(toleration_of(t) for t in pod.spec.tolerations or ())
        when = eviction_time(taints, tolerations, now)
        if when is None:
            return None
        if when > now:
            return Result(requeue_after=when - now)
        self._evict(pod)
        return None

    def _evict(self, pod: Any) -> None:
        name, namespace = pod.metadata.name, pod.metadata.namespace
        cond = {"type": "DisruptionTarget", "status": "True", "reason": EVICTION_REASON,
                "message": EVICTION_MESSAGE, "lastTransitionTime": format_time(self.ctx.clock.now_datetime())}
        try:
            self.ctx.client.patch_status(self.Pod, name, {"status": {"conditions": [cond]}}, namespace,
                                         patch_type="strategic")
            self.ctx.recorder.event(pod, "Normal", "TaintManagerEviction",
                                    f"Marking for deletion Pod {namespace}/{name}")
            self.ctx.client.delete(self.Pod, name, namespace)
        except NotFound:
            return
