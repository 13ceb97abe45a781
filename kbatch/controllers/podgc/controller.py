"""The ``podgc`` controller: the decisions of :mod:`.decisions`, every 20 s of virtual time, in
upstream ``gc``'s order: terminated, terminating on out-of-service nodes, orphaned, unscheduled
terminating.

One request (``podgc/sweep``) requeued every period, so it costs nothing between sweeps. Options
(``options={"podgc": {...}}``): ``terminated_pod_gc_threshold`` (default 12,500), ``period``,
``quarantine``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import format_time
from kbatch.api.errors import NotFound
from kbatch.api.pod_generation import with_observed_generation
from kbatch.controllers.podgc.decisions import (
    GC_PERIOD,
    ORPHAN_MESSAGE,
    ORPHAN_REASON,
    QUARANTINE,
    TERMINATED_POD_GC_THRESHOLD,
    PodFacts,
    may_act,
    orphaned,
    out_of_service,
    terminated_to_delete,
    terminating_out_of_service,
    unscheduled_terminating,
)
from kbatch.runtime.context import ControllerContext

__all__ = ["PodGC"]


class PodGC:
    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.core_v1 import Node, Pod

        self.ctx, self.Pod, self.Node = ctx, Pod, Node
        self.threshold = int(ctx.options.get("terminated_pod_gc_threshold", TERMINATED_POD_GC_THRESHOLD))
        self.period = float(ctx.options.get("period", GC_PERIOD))
        self.quarantine = float(ctx.options.get("quarantine", QUARANTINE))
        self.missing_since: dict[str, float] = {}

    def _facts(self, nodes: set[str]) -> list[PodFacts]:
        """Facts of the pods some decision can act on (:func:`may_act`)."""
        origin = self.ctx.clock.to_datetime(0)
        out = []
        for pod in self.ctx.cache.list(self.Pod):
            meta, status = pod.metadata, pod.status
            phase = (status.phase if status else None) or "Pending"
            node = pod.spec.node_name or ""
            terminating = meta.deletion_timestamp is not None
            if not may_act(phase, node, terminating, nodes):
                continue
            created = (meta.creation_timestamp - origin).total_seconds() if meta.creation_timestamp else 0.0
            out.append(PodFacts(meta.namespace or "", meta.name or "", created, phase, node, terminating,
                                (status.reason if status else None) or "", meta.generation))
        return out

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        now = self.ctx.clock.now()
        listed = self.ctx.cache.list(self.Node)
        nodes = {n.metadata.name or "" for n in listed}  # (stored: named)
        pods = self._facts(nodes)
        for pod in terminated_to_delete(pods, self.threshold):
            self._mark_failed_and_delete(pod)
        for pod in terminating_out_of_service(pods, self._out_of_service(listed)):
            self._mark_failed_and_delete(pod)
        absent = {p.node_name for p in pods if p.node_name and p.node_name not in nodes}
        self.missing_since = {n: self.missing_since.get(n, now) for n in sorted(absent)}
        for pod in orphaned(pods, nodes, self.missing_since, now, self.quarantine):
            if not self._node_exists(pod.node_name):
                self._mark_failed_and_delete(pod, self._orphan_condition(pod))
        for pod in unscheduled_terminating(pods):
            self._mark_failed_and_delete(pod)
        return Result(requeue_after=self.period)

    @staticmethod
    def _out_of_service(nodes: list[Any]) -> set[str]:
        """Names of the nodes ``gcTerminating`` acts on (:func:`.decisions.out_of_service`)."""
        return {n.metadata.name or "" for n in nodes
                if out_of_service(n.condition_status("Ready"), (t.key for t in n.spec.taints or ()))}

    def _node_exists(self, name: str) -> bool:
        try:
            self.ctx.client.get(self.Node, name)
        except NotFound:
            return False
        return True

    def _orphan_condition(self, pod: PodFacts) -> dict[str, Any]:
        return with_observed_generation(
            {"type": "DisruptionTarget", "status": "True", "reason": ORPHAN_REASON, "message": ORPHAN_MESSAGE,
             "lastTransitionTime": format_time(self.ctx.clock.now_datetime())}, pod.generation)

    def _mark_failed_and_delete(self, pod: PodFacts, condition: dict[str, Any] | None = None) -> None:
        """Upstream ``markFailedAndDeletePodWithCondition``: a pod not yet terminal is first patched to
        phase ``Failed`` (with ``condition``, if any); then every pod is deleted with grace 0 (a
        finalizer still holds it, terminating, until removed)."""
        if not pod.terminal:
            status: dict[str, Any] = {"phase": "Failed"}
            if condition is not None:
                status["conditions"] = [condition]
            try:
                self.ctx.client.patch_status(self.Pod, pod.name, {"status": status}, pod.namespace,
                                             patch_type="strategic")
            except NotFound:
                return
        try:
            self.ctx.client.delete(self.Pod, pod.name, pod.namespace, grace_period_seconds=0)
        except NotFound:
            return
