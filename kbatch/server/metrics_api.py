"""``metrics.k8s.io/v1beta1`` served from the simulation (what ``kubectl top`` reads): the handlers of
the ``nodes`` and ``pods`` resources the core family declares as aggregated
(:data:`kbatch.families.core.virtual.METRICS`, metrics-server's APIService ``v1beta1.metrics.k8s.io``).

Routes as metrics-server registers them (``get`` and ``list``: ``nodes``, ``nodes/NAME``, ``pods``,
``namespaces/NS/pods``, ``namespaces/NS/pods/NAME``; :mod:`kbatch.server.virtual`), with
``labelSelector`` (and ``fieldSelector`` for pods). Usage comes from :mod:`kbatch.sim.metrics`. The
group is in discovery (``/apis``), which is how kubectl decides the Metrics API is available.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import NotFound
from kbatch.sim.metrics import API_VERSION, GROUP, VERSION, node_metrics, pod_metrics

if TYPE_CHECKING:
    from kbatch.server.backend import Backend
    from kbatch.server.virtual import VirtualCall

__all__ = ["GROUP", "VERSION", "node_metrics_list", "pod_metrics_list", "serve_node_metrics",
           "serve_pod_metrics"]

Obj = dict[str, Any]


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


def _selector(call: VirtualCall, name: str) -> str | None:
    return call.params.get(name) or None


def serve_node_metrics(call: VirtualCall) -> Obj:
    """``GET nodes`` or ``nodes/NAME``."""
    return node_metrics_list(call.backend, call.name, _selector(call, "labelSelector"))


def serve_pod_metrics(call: VirtualCall) -> Obj:
    """``GET [namespaces/NS/]pods`` or ``namespaces/NS/pods/NAME``."""
    return pod_metrics_list(call.backend, call.namespace, call.name, _selector(call, "labelSelector"),
                            _selector(call, "fieldSelector"))
