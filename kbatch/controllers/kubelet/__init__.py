"""The simulated kubelet (KWOK-style): one controller, named ``kubelet``, for every node.

It moves bound pods Pending → Running → Succeeded/Failed in virtual time, with container statuses,
conditions, restarts with CrashLoopBackOff, graceful deletion and logs. See docs/simulation.md.
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.kubelet.backoff import restart_delay
from kbatch.controllers.kubelet.controller import Kubelet, new_pod_run
from kbatch.controllers.kubelet.engine import Fault, PodRun, Proc, advance, apply_fault, next_wake
from kbatch.controllers.kubelet.logs import LogStore, pod_logs
from kbatch.controllers.kubelet.status import render_status

__all__ = [
    "Fault",
    "Kubelet",
    "LogStore",
    "PodRun",
    "Proc",
    "advance",
    "apply_fault",
    "new_pod_run",
    "next_wake",
    "pod_logs",
    "render_status",
    "restart_delay",
    "setup",
]


def setup(ctx: Any) -> Kubelet:
    """Catalog factory for ``kubelet``: reconcile bound pods; a node change re-checks its pods."""
    from kbatch.api.core_v1 import Node, Pod
    from kbatch.runtime.cache import BY_NODE_NAME
    from kbatch.runtime.predicate import predicate_func
    from kbatch.runtime.reconcile import Request

    kubelet = Kubelet(ctx)

    def pods_on(node: Any) -> list[Request]:
        pods = ctx.cache.list(Pod, index=(BY_NODE_NAME, node.metadata.name), readonly=True)
        return [Request(p.metadata.namespace or "", p.metadata.name or "") for p in pods]

    (ctx.build()
        .describe("runs bound pods on simulated nodes (KWOK-style)")
        .for_(Pod, predicate_func(lambda pod: bool(pod.spec.node_name)))
        .watches(Node, pods_on)
        .complete(kubelet))
    return kubelet
