"""``metrics.k8s.io/v1beta1`` served from the simulation (what ``kubectl top`` reads).

Routes as metrics-server registers them (``GET`` only): ``nodes``, ``nodes/NAME``, ``pods``,
``namespaces/NS/pods``, ``namespaces/NS/pods/NAME``, with ``labelSelector`` (and ``fieldSelector`` for
pods). Usage comes from :mod:`kbatch.sim.metrics`. The group is in discovery (``/apis``), which is
how kubectl decides the Metrics API is available.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import MethodNotAllowed, NotFound
from kbatch.sim.metrics import API_VERSION, GROUP, VERSION, node_metrics, pod_metrics

if TYPE_CHECKING:
    from kbatch.server.backend import Backend

__all__ = ["GROUP", "VERSION", "metrics_resource_list", "node_metrics_list", "pod_metrics_list", "serve"]

Obj = dict[str, Any]


def metrics_resource_list() -> Obj:
    resources = [{"name": "nodes", "singularName": "", "namespaced": False, "kind": "NodeMetrics",
                  "verbs": ["get", "list"]},
                 {"name": "pods", "singularName": "", "namespaced": True, "kind": "PodMetrics",
                  "verbs": ["get", "list"]}]
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": API_VERSION,
            "resources": resources}


def _info(backend: Backend, name: str) -> Any:
    return backend.registry.for_name(name).info


def node_metrics_list(backend: Backend, name: str | None = None, label_selector: str | None = None) -> Obj:
    """``NodeMetricsList`` (or, with ``name``, that node's ``NodeMetrics``)."""
    now = backend.now()
    nodes = [backend.get(_info(backend, "nodes"), None, name)] if name else \
        backend.list(_info(backend, "nodes"), None, label_selector=label_selector)["items"]
    pods = backend.list(_info(backend, "pods"), None, field_selector="status.phase=Running")["items"]
    items = [node_metrics(node, pods, now) for node in nodes]
    if name:
        return items[0]
    return {"kind": "NodeMetricsList", "apiVersion": API_VERSION, "metadata": {}, "items": items}


def pod_metrics_list(backend: Backend, namespace: str | None, name: str | None = None,
                     label_selector: str | None = None, field_selector: str | None = None) -> Obj:
    """``PodMetricsList`` (or, with ``name``, that pod's ``PodMetrics``; NotFound when not running)."""
    now = backend.now()
    if name:
        found = pod_metrics(backend.get(_info(backend, "pods"), namespace, name), now)
        if found is None:
            raise NotFound(f'podmetrics.metrics.k8s.io "{namespace}/{name}" not found')
        return found
    pods = backend.list(_info(backend, "pods"), namespace, label_selector=label_selector,
                        field_selector=field_selector)["items"]
    items = [m for m in (pod_metrics(p, now) for p in pods) if m is not None]
    return {"kind": "PodMetricsList", "apiVersion": API_VERSION, "metadata": {}, "items": items}


def serve(backend: Backend, method: str, rest: list[str], params: dict[str, str | None]) -> Obj:
    """The document for ``/apis/metrics.k8s.io/v1beta1/`` + ``rest``."""
    if method != "GET":
        raise MethodNotAllowed(f"{method} is not supported by {API_VERSION}")
    labels, fields = params.get("labelSelector") or None, params.get("fieldSelector") or None
    if not rest:
        return metrics_resource_list()
    if rest[0] == "nodes" and len(rest) <= 2:
        return node_metrics_list(backend, rest[1] if len(rest) == 2 else None, labels)
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    if rest[0] == "pods" and len(rest) <= 2:
        return pod_metrics_list(backend, namespace, rest[1] if len(rest) == 2 else None, labels, fields)
    raise NotFound(f"the server could not find the requested resource ({'/'.join(rest)})")
