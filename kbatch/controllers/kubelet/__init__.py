"""The simulated kubelet (KWOK-style): one controller, named ``kubelet``, for every node.

It moves bound pods Pending → Running → Succeeded/Failed in virtual time, with container statuses,
conditions, restarts with CrashLoopBackOff, graceful deletion and logs. See docs/simulation.md.
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.kubelet.backoff import restart_delay
from kbatch.controllers.kubelet.controller import Kubelet, new_pod_run
from kbatch.controllers.kubelet.engine import Fault, PodRun, Proc, advance, apply_fault, next_wake
from kbatch.controllers.kubelet.heartbeat import KUBELET_ANNOTATION, NodeHeartbeat, kubelet_stopped
from kbatch.controllers.kubelet.logs import LogStore, pod_logs
from kbatch.controllers.kubelet.status import render_status
from kbatch.runtime.context import ControllerContext

__all__ = [
    "KUBELET_ANNOTATION",
    "EchoJanitor",
    "Fault",
    "Kubelet",
    "LogStore",
    "NodeHeartbeat",
    "PodRun",
    "Proc",
    "advance",
    "apply_fault",
    "kubelet_stopped",
    "new_pod_run",
    "next_wake",
    "pod_logs",
    "render_status",
    "restart_delay",
    "setup",
]


class KubeletPredicate:
    """Bound pods only; of their updates, only those the kubelet must react to: binding, deletion,
    annotations (fault injection), a phase another writer changed, a new ``metadata.generation``
    (a spec update: the kubelet reports the generation it observed, KEP-5067), or a change of a
    condition the pod's readiness gates name. The kubelet's own status
    writes come back through this filter and are dropped (its timers carry the pod forward): the
    version its write produced is recognised by resourceVersion, so any other writer's change
    (a different version) still passes. A pure filter: it changes no state (the record of the kubelet's
    last write is dropped by :class:`EchoJanitor` when the pod goes)."""

    def __init__(self, kubelet: Kubelet | None = None) -> None:
        self.kubelet = kubelet

    def create(self, obj: Any) -> bool:
        return bool(obj.spec.node_name)

    def delete(self, obj: Any) -> bool:
        return bool(obj.spec.node_name)

    def update(self, old: Any, new: Any) -> bool:
        if not new.spec.node_name:
            return False
        if self.kubelet is not None and self.kubelet.is_echo(new):
            return False
        om, nm = old.metadata, new.metadata
        old_phase = old.status.phase if old.status else None
        new_phase = new.status.phase if new.status else None
        return (old.spec.node_name != new.spec.node_name or om.deletion_timestamp != nm.deletion_timestamp
                or om.annotations != nm.annotations or old_phase != new_phase
                or om.generation != nm.generation
                or (bool(new.spec.readiness_gates) and _gate_statuses(old) != _gate_statuses(new)))


def _gate_statuses(pod: Any) -> list[tuple[str, str | None]]:
    """The statuses of the conditions a pod's readiness gates name (upstream ``kubelet.go``
    ``HandlePodReconcile``: ``status.NeedToReconcilePodReadiness`` resyncs a pod whose ``Ready``
    no longer matches its gates)."""
    conditions = {c.type: c.status for c in (pod.status.conditions if pod.status else None) or ()}
    return [(g.condition_type, conditions.get(g.condition_type)) for g in pod.spec.readiness_gates]


class EchoJanitor:
    """A Pod informer handler: forgets the kubelet's last status write of a pod once the pod is
    deleted (the only moment that record can go stale: a later write replaces it)."""

    __slots__ = ("kubelet",)

    def __init__(self, kubelet: Kubelet) -> None:
        self.kubelet = kubelet

    def on_add(self, obj: Any) -> None:
        return None

    def on_update(self, old: Any, new: Any) -> None:
        return None

    def on_delete(self, obj: Any) -> None:
        self.kubelet.echoes.pop(obj.metadata.uid or "", None)


def setup(ctx: ControllerContext) -> Kubelet:
    """Catalog factory for ``kubelet``: reconcile bound pods; a node change re-checks its pods. A
    second controller, ``kubelet-node-lease``, renews each node's Lease and posts its status
    (housekeeping timers)."""
    from kbatch.api.core_v1 import Node, Pod
    from kbatch.controllers.kubelet.heartbeat import NodeRunChanged
    from kbatch.runtime.mappers import PodsOnNode

    kubelet = Kubelet(ctx)
    (ctx.build()
        .describe("runs bound pods on simulated nodes (KWOK-style)")
        .for_(Pod, KubeletPredicate(kubelet))
        .watches(Node, PodsOnNode(ctx.cache), NodeRunChanged())
        .complete(kubelet))
    ctx.cache.informer_for(Pod).add_event_handler(EchoJanitor(kubelet))
    if ctx.options.get("node_lease", True):
        (ctx.build(f"{ctx.name}-node-lease")
            .describe("renews each node's Lease and posts its status (KEP-589 heartbeats)")
            .for_(Node)
            .periodic()
            .complete(NodeHeartbeat(ctx)))
    return kubelet
