"""Fault injection: one call per fault, each acting through the API (so it is in the trace).

``target`` is a :class:`~kbatch.runtime.controlplane.ControlPlane` (then the call also settles the
control plane at the current instant, as ``apply`` does) or any client.

=======================================  ==============================================================
call                                     what it writes
=======================================  ==============================================================
``fail_pod(t, pod, exit_code=1, …)``     annotation ``sim.kbatch.io/fault`` (a JSON record with an
                                         increasing ``id``); the kubelet ends that container now with
                                         the exit code and reason (the restart policy then applies)
``fail_probe(t, pod, probe=…, …)``      annotation ``sim.kbatch.io/probe-faults`` (a JSON list): the
                                         container's ``liveness`` / ``readiness`` / ``startup`` probe
                                         (``"*"``: all) fails from ``start`` (default now) until
                                         ``until`` (default forever); ``clear_probe_faults`` empties it
``evict_pod(t, pod)``                    the ``pods/eviction`` subresource, as ``kubectl drain`` calls
                                         it: ``DisruptionTarget=True`` reason ``EvictionByEvictionAPI``
                                         then a graceful delete, unless the pod's PodDisruptionBudget
                                         forbids it (``TooManyRequests``, 429; nothing is written)
``add_pod_condition(t, pod, type, …)``   a pod condition (e.g. ``ConfigIssue``), merged by type
``mark_node_not_ready(t, node)``         node ``Ready=False`` (``unknown=True``: ``Unknown``, what node
                                         lifecycle writes for a silent kubelet; a running kubelet posts
                                         its Ready again at its next status update, within 10 s:
                                         with ``stop_kubelet`` the node stays down)
``mark_node_ready(t, node)``             node ``Ready=True``
``set_node_condition(t, node, type, …)``  a node condition (e.g. ``MemoryPressure=True``), merged by
                                         type; node-lifecycle then keeps its ``NoSchedule`` taint
``taint_node(t, node, key, …)``          adds a taint (``timeAdded`` set for ``NoExecute``)
``untaint_node(t, node, key)``           removes taints with that key
``delete_node(t, node)``                 deletes the Node
``stop_kubelet(t, node)``                Node annotation ``sim.kbatch.io/kubelet: stopped``: the node's
                                         kubelet renews no Lease and runs no pod (the node goes
                                         ``Unknown`` after the node monitor grace period)
``start_kubelet(t, node)``               removes it: the kubelet renews its Lease, posts ``Ready=True``
                                         and its pods catch up
=======================================  ==============================================================
"""

from __future__ import annotations

import json
from typing import Any

from kbatch.api.base import format_time

__all__ = [
    "FAULT_ANNOTATION",
    "KUBELET_ANNOTATION",
    "PROBE_FAULT_ANNOTATION",
    "add_pod_condition",
    "clear_probe_faults",
    "delete_node",
    "evict_pod",
    "fail_pod",
    "fail_probe",
    "mark_node_not_ready",
    "mark_node_ready",
    "set_node_condition",
    "start_kubelet",
    "stop_kubelet",
    "taint_node",
    "untaint_node",
]

FAULT_ANNOTATION = "sim.kbatch.io/fault"
PROBE_FAULT_ANNOTATION = "sim.kbatch.io/probe-faults"
KUBELET_ANNOTATION = "sim.kbatch.io/kubelet"
_PROBES = ("liveness", "readiness", "startup", "*")


def _client(target: Any) -> Any:
    return getattr(target, "client", target)


def _now(target: Any) -> str | None:
    clock = getattr(target, "clock", None)
    return format_time(clock.now_datetime()) if clock is not None else None


def _settle(target: Any) -> None:
    settle = getattr(target, "run_until_idle", None)
    if settle is not None:
        settle()


def _condition(type_: str, status: str, reason: str, message: str, now: str | None) -> dict[str, Any]:
    cond: dict[str, Any] = {"type": type_, "status": status, "reason": reason, "message": message}
    if now is not None:
        cond["lastTransitionTime"] = now
    return cond


def fail_pod(target: Any, name: str, namespace: str = "default", *, exit_code: int = 1,
             container: str | None = None, reason: str = "Error", message: str = "") -> None:
    """End ``container`` (default: the first running app container) now with ``exit_code``.

    A pod that has completed (``Succeeded``/``Failed``) has no container left to fail: ValueError, in
    the words of kubectl exec's same check (k8s.io/kubectl ``pkg/cmd/exec/exec.go``)."""
    from kbatch.api.core_v1 import Pod

    client = _client(target)
    pod = client.get(Pod, name, namespace)
    phase = pod.status.phase if pod.status else None
    if phase in ("Succeeded", "Failed"):
        raise ValueError(f"cannot fail a container in a completed pod; current phase is {phase}")
    previous = (pod.metadata.annotations or {}).get(FAULT_ANNOTATION)
    fault_id = int(json.loads(previous).get("id", 0)) + 1 if previous else 1
    record = {"id": fault_id, "exitCode": exit_code, "reason": reason, "message": message}
    if container:
        record["container"] = container
    annotations = {FAULT_ANNOTATION: json.dumps(record, sort_keys=True)}
    client.patch(Pod, name, {"metadata": {"annotations": annotations}}, namespace)
    _settle(target)


def _at(target: Any, seconds: float | None) -> str | None:
    """RFC 3339 of ``seconds`` on the control plane's timeline (None: now)."""
    clock = getattr(target, "clock", None)
    if clock is None:
        return None
    return format_time(clock.to_datetime(seconds) if seconds is not None else clock.now_datetime())


def fail_probe(target: Any, name: str, namespace: str = "default", *, probe: str = "liveness",
               container: str | None = None, start: float | str | None = None,
               until: float | str | None = None) -> None:
    """Make ``container``'s (default: the first app container) ``probe`` fail from ``start`` (timeline
    seconds or RFC 3339; default now) until ``until`` (default: for good). Faults accumulate."""
    from kbatch.api.core_v1 import Pod

    if probe not in _PROBES:
        raise ValueError(f"probe must be one of {', '.join(_PROBES)}, not {probe!r}")
    client = _client(target)
    pod = client.get(Pod, name, namespace)
    current = json.loads((pod.metadata.annotations or {}).get(PROBE_FAULT_ANNOTATION) or "[]")
    begin = start if isinstance(start, str) else _at(target, start)
    if begin is None:
        raise ValueError("start is required when the target has no clock")
    record: dict[str, Any] = {"container": container or pod.spec.containers[0].name, "probe": probe,
                              "from": begin}
    if until is not None:
        record["until"] = until if isinstance(until, str) else _at(target, until)
    annotations = {PROBE_FAULT_ANNOTATION: json.dumps([*current, record], sort_keys=True)}
    client.patch(Pod, name, {"metadata": {"annotations": annotations}}, namespace)
    _settle(target)


def clear_probe_faults(target: Any, name: str, namespace: str = "default") -> None:
    """Every probe answers as its handler says again."""
    from kbatch.api.core_v1 import Pod

    _client(target).patch(Pod, name, {"metadata": {"annotations": {PROBE_FAULT_ANNOTATION: None}}}, namespace)
    _settle(target)


def evict_pod(target: Any, name: str, namespace: str = "default", *,
              grace_period_seconds: int | None = None) -> None:
    """API-initiated eviction through ``pods/eviction`` (PodDisruptionBudgets apply): raises
    ``TooManyRequests`` when the pod's budget allows no disruption now."""
    client = _client(target)
    options = None if grace_period_seconds is None else {"gracePeriodSeconds": grace_period_seconds}
    client.evict(name, namespace, delete_options=options)
    _settle(target)


def add_pod_condition(target: Any, name: str, type_: str, namespace: str = "default", *,
                      status: str = "True", reason: str = "", message: str = "") -> None:
    from kbatch.api.core_v1 import Pod

    cond = _condition(type_, status, reason, message, _now(target))
    _client(target).patch_status(Pod, name, {"status": {"conditions": [cond]}}, namespace,
                                 patch_type="strategic")
    _settle(target)


def _set_ready(target: Any, node: str, status: str, reason: str, message: str) -> None:
    set_node_condition(target, node, "Ready", status, reason=reason, message=message)


def set_node_condition(target: Any, node: str, type_: str, status: str = "True", *, reason: str = "",
                       message: str = "") -> None:
    """Post a node condition as the kubelet would (e.g. ``MemoryPressure=True`` reason
    ``KubeletHasInsufficientMemory``), with a fresh ``lastHeartbeatTime``."""
    from kbatch.api.core_v1 import Node

    cond = _condition(type_, status, reason, message, _now(target))
    if cond.get("lastTransitionTime"):
        cond["lastHeartbeatTime"] = cond["lastTransitionTime"]
    _client(target).patch_status(Node, node, {"status": {"conditions": [cond]}}, patch_type="strategic")
    _settle(target)


def mark_node_not_ready(target: Any, node: str, *, unknown: bool = False) -> None:
    if unknown:
        _set_ready(target, node, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
    else:
        _set_ready(target, node, "False", "KubeletNotReady", "simulated failure (kbatch fault injection)")


def mark_node_ready(target: Any, node: str) -> None:
    _set_ready(target, node, "True", "KubeletReady", "kubelet is posting ready status")


def taint_node(target: Any, node: str, key: str, value: str = "", effect: str = "NoSchedule") -> None:
    from kbatch.api.core_v1 import Node

    client = _client(target)
    current = client.get(Node, node)
    taints = [t.to_dict() for t in current.spec.taints or () if not (t.key == key and t.effect == effect)]
    taint: dict[str, Any] = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    if effect == "NoExecute" and (now := _now(target)) is not None:
        taint["timeAdded"] = now
    client.patch(Node, node, {"spec": {"taints": [*taints, taint]}})
    _settle(target)


def untaint_node(target: Any, node: str, key: str) -> None:
    from kbatch.api.core_v1 import Node

    client = _client(target)
    current = client.get(Node, node)
    taints = [t.to_dict() for t in current.spec.taints or () if t.key != key]
    client.patch(Node, node, {"spec": {"taints": taints or None}})
    _settle(target)


def delete_node(target: Any, node: str) -> None:
    from kbatch.api.core_v1 import Node

    _client(target).delete(Node, node)
    _settle(target)


def _kubelet(target: Any, node: str, value: str | None) -> None:
    from kbatch.api.core_v1 import Node

    _client(target).patch(Node, node, {"metadata": {"annotations": {KUBELET_ANNOTATION: value}}})
    _settle(target)


def stop_kubelet(target: Any, node: str) -> None:
    """The node's kubelet stops: no Lease renewal, no pod progress, until :func:`start_kubelet`."""
    _kubelet(target, node, "stopped")


def start_kubelet(target: Any, node: str) -> None:
    """The node's kubelet (re)starts: it renews its Lease at once and posts ``Ready=True``."""
    _kubelet(target, node, None)
