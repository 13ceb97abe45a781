"""Resource usage of the simulated cluster, as ``metrics.k8s.io/v1beta1`` reports it.

Shapes from kubernetes-sigs/metrics-server and k8s.io/metrics ``pkg/apis/metrics/v1beta1/types.go``:
``NodeMetrics`` (``timestamp``, ``window``, ``usage``) and ``PodMetrics`` (``containers[].usage``),
each with the object's name, namespace and labels; lists are ``NodeMetricsList``/``PodMetricsList``.

A simulated container uses what it requests: each running container (and running sidecar, an init
container with ``restartPolicy: Always``) reports its ``cpu`` and ``memory`` requests as its usage
(nothing requested: zero), unless the pod declares its usage as KWOK's ``usage-from-annotation``
ClusterResourceUsage reads it (kubernetes-sigs/kwok
``kustomize/metrics/usage/usage-from-annotation.yaml``, docs
``site/content/en/docs/user/resource-usage-configuration.md``): the annotations
``kwok.x-k8s.io/usage-cpu`` and ``kwok.x-k8s.io/usage-memory`` hold a quantity that each running
container of the pod uses. A value that is not a quantity, or a negative one, is ignored (the
requests count), where KWOK's CEL ``Quantity()`` would fail the evaluation. KWOK's ResourceUsage and
ClusterResourceUsage objects (per-container values, CEL expressions over time) are not modelled.

Only pods in phase ``Running`` have metrics, as metrics-server reports
pods whose containers run. A node's usage is the sum over its running pods (a real kubelet also
counts the system's own processes, which a simulated node has none of). ``window`` is
metrics-server's default resolution, 15 s; ``timestamp`` is the virtual now.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.quantity import Quantity

__all__ = ["API_VERSION", "GROUP", "USAGE_ANNOTATIONS", "VERSION", "WINDOW", "declared_usage", "node_metrics",
           "pod_metrics"]

GROUP, VERSION = "metrics.k8s.io", "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"
WINDOW = "15s"
_USAGE = ("cpu", "memory")
USAGE_ANNOTATIONS = {"cpu": "kwok.x-k8s.io/usage-cpu", "memory": "kwok.x-k8s.io/usage-memory"}

Obj = dict[str, Any]


def _stamp(now: datetime) -> str:
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def _meta(obj: Obj, now: datetime) -> Obj:
    meta = obj.get("metadata") or {}
    out: Obj = {"name": meta.get("name", ""), "creationTimestamp": _stamp(now)}
    if meta.get("namespace"):
        out["namespace"] = meta["namespace"]
    if meta.get("labels"):
        out["labels"] = dict(meta["labels"])
    return out


def declared_usage(pod: Obj) -> dict[str, Quantity]:
    """The per-container usage the pod's KWOK annotations declare (valid quantities only)."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    out: dict[str, Quantity] = {}
    for name, key in USAGE_ANNOTATIONS.items():
        if key in annotations:
            try:
                value = Quantity(str(annotations[key]).strip())
            except ValueError:
                continue
            if value.sign() >= 0:
                out[name] = value
    return out


def _container_usage(container: Obj, declared: dict[str, Quantity]) -> dict[str, Quantity]:
    requests = ((container.get("resources") or {}).get("requests") or {})
    return {name: declared[name] if name in declared else Quantity(requests.get(name, 0)) for name in _USAGE}


def _running_containers(pod: Obj) -> list[Obj]:
    spec = pod.get("spec") or {}
    sidecars = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
    return [*sidecars, *(spec.get("containers") or ())]


def pod_metrics(pod: Obj, now: datetime) -> Obj | None:
    """The pod's ``PodMetrics``, or ``None`` when it is not running."""
    if (pod.get("status") or {}).get("phase") != "Running":
        return None
    declared = declared_usage(pod)
    containers = [{"name": c.get("name", ""),
                   "usage": {k: str(v) for k, v in _container_usage(c, declared).items()}}
                  for c in _running_containers(pod)]
    return {"kind": "PodMetrics", "apiVersion": API_VERSION, "metadata": _meta(pod, now),
            "timestamp": _stamp(now), "window": WINDOW, "containers": containers}


def node_metrics(node: Obj, pods: list[Obj], now: datetime) -> Obj:
    """The node's ``NodeMetrics``: the sum of its running pods' usage (``pods`` may hold others)."""
    name = (node.get("metadata") or {}).get("name")
    total = {k: Quantity(0) for k in _USAGE}
    for pod in pods:
        on_node = (pod.get("spec") or {}).get("nodeName") == name
        if not on_node or (pod.get("status") or {}).get("phase") != "Running":
            continue
        declared = declared_usage(pod)
        for container in _running_containers(pod):
            for key, value in _container_usage(container, declared).items():
                total[key] = total[key].add(value)
    return {"kind": "NodeMetrics", "apiVersion": API_VERSION, "metadata": _meta(node, now),
            "timestamp": _stamp(now), "window": WINDOW, "usage": {k: str(v) for k, v in total.items()}}
