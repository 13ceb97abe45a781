"""``kbatch get nodes.metrics.k8s.io`` / ``pods.metrics.k8s.io``: the Metrics API read as kubectl reads
it from a cluster with metrics-server.

The resources are served without storage (:mod:`kbatch.api.virtual`, answered by
:mod:`kbatch.server.metrics_api`), so ``get`` finds them among the registry's readable virtual resources,
not its kinds. The table is metrics-server's own ``ConvertToTable`` (sigs.k8s.io/metrics-server
``pkg/api/node.go``, ``pkg/api/pod.go``: ``addNodeMetricsToTable``, ``addPodMetricsToTable``): ``Name``,
then one column per usage resource of the first item, sorted (``cpu``, ``memory``), then ``Window``;
a pod's usage is the sum of its containers'. An empty list has no columns, so kubectl prints only
``No resources found``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kbatch.api.virtual import VirtualResource
    from kbatch.server.backend import Backend

__all__ = ["metrics_items", "metrics_table", "readable_virtual"]

Obj = dict[str, Any]


def readable_virtual(registry: Any, name: str) -> VirtualResource | None:
    """The listable resource served without storage that ``name`` names: its plural qualified by its
    group (``nodes.metrics.k8s.io``) or by version and group; a bare ``nodes`` stays the core kind,
    which kubectl's RESTMapper prefers too."""
    wanted = name.lower()
    for resource in registry.virtual():
        if "list" not in resource.verbs:
            continue
        if wanted in (f"{resource.plural}.{resource.group}",
                      f"{resource.plural}.{resource.version}.{resource.group}"):
            return resource
    return None


def metrics_items(backend: Backend, resource: VirtualResource, namespace: str | None, names: list[str],
                  selector: str | None, field_selector: str | None) -> list[Obj]:
    """The NodeMetrics or PodMetrics asked for (by name, or listed with the selectors)."""
    from kbatch.server.metrics_api import node_metrics_list, pod_metrics_list

    if resource.plural == "nodes":
        if names:
            return [node_metrics_list(backend, name) for name in names]
        return list(node_metrics_list(backend, None, selector)["items"])
    if names:
        return [pod_metrics_list(backend, namespace, name) for name in names]
    return list(pod_metrics_list(backend, namespace, None, selector, field_selector)["items"])


def _usage(item: Obj) -> dict[str, str]:
    if "usage" in item:
        return dict(item["usage"])
    from kbatch.api.quantity import Quantity

    total: dict[str, Quantity] = {}
    for container in item.get("containers") or ():
        for key, value in (container.get("usage") or {}).items():
            total[key] = total[key].add(Quantity(value)) if key in total else Quantity(value)
    return {k: str(v) for k, v in total.items()}


def metrics_table(items: list[Obj]) -> Obj:
    """metrics-server's Table for these items (module docstring)."""
    if not items:
        return {"columnDefinitions": [], "rows": []}
    names = sorted(_usage(items[0]))
    columns = [{"name": "Name", "type": "string", "format": "name"}]
    columns += [{"name": n, "type": "string", "format": "quantity"} for n in names]
    columns.append({"name": "Window", "type": "string", "format": "duration"})
    rows = []
    for item in items:
        usage = _usage(item)
        cells = [item["metadata"]["name"], *(usage.get(n, "0") for n in names), item.get("window", "")]
        rows.append({"cells": cells, "object": item})
    return {"columnDefinitions": columns, "rows": rows}
