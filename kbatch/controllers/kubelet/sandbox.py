"""Whether a pod's sandbox can be created: its RuntimeClass's handler (pure decision).

Upstream: the kubelet's ``createPodSandbox`` (``pkg/kubelet/kuberuntime/kuberuntime_sandbox.go``)
resolves ``spec.runtimeClassName`` through its RuntimeClass manager (``pkg/kubelet/runtimeclass``
``LookupRuntimeHandler``: a missing class is the lister's NotFound error) and asks the CRI for a sandbox
of that handler; containerd refuses a handler it has no runtime for (``failed to get sandbox runtime:
no runtime for "h" is configured``). ``SyncPod`` then records ``FailedCreatePodSandBox``
(``Failed to create pod sandbox: <error>``) and the pod worker retries after its back-off
(``pkg/kubelet/pod_workers.go`` ``workerBackOffPeriod``, 10 s; upstream jitters it, kbatch does not).

Which handlers a simulated node has: the names in its ``status.runtimeHandlers`` (the CRI's handlers
the kubelet reports since 1.30, KEP-3857), when it reports any; a node that reports none (kbatch's
default node template) runs every handler (docs/runtimeclass.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.node_v1 import RuntimeClass

__all__ = ["SANDBOX_RETRY", "sandbox_error"]

SANDBOX_RETRY = 10.0  # pod_workers.go workerBackOffPeriod


def sandbox_error(pod: Any, node: Any, runtime_class: Callable[[str], RuntimeClass | None]) -> str | None:
    """Why the pod's sandbox cannot be created on ``node`` (the error text upstream's event carries),
    or ``None``. ``runtime_class`` looks a class up by name (``None``: absent)."""
    name = pod.spec.runtime_class_name
    if name is None:
        return None
    rc = runtime_class(name)
    if rc is None:
        return f'runtimeclass.node.k8s.io "{name}" not found'
    reported = (node.status.runtime_handlers if node is not None and node.status is not None else None) or ()
    if reported and rc.handler not in {h.name or "" for h in reported}:
        return (f"rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "
                f'"{rc.handler}" is configured')
    return None
