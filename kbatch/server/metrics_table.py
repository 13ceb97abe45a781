"""The ``Table`` metrics-server answers for ``metrics.k8s.io`` (``kubectl get nodes.metrics.k8s.io``).

metrics-server's storage is a ``rest.TableConvertor`` (kubernetes-sigs/metrics-server
``pkg/api/node.go``/``pod.go`` ``ConvertToTable``, ``pkg/api/table.go``): a ``Name`` column
(format ``name``, "Name of the resource"), then one column per resource name of the *first* item's
usage, sorted (format ``quantity``), then ``Window`` (format ``duration``). A row is the item's name,
each usage as a canonical quantity (a pod's is the sum over its containers; a resource the first
item had and this one lacks is ``0``) and the window as Go prints a duration. The table carries the
list's ``resourceVersion`` and ``continue`` (both empty here); with no items it has no columns and no
rows (Go's nil slices, ``null``). Each row's object is then cut down by kube-apiserver's generic
``includeObject`` handling, as for any other table (:mod:`kbatch.server.table`).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.printing import Column
from kbatch.api.quantity import Quantity, parse_quantity
from kbatch.server.table import IncludeObject, row_object

__all__ = ["metrics_table"]

Obj = dict[str, Any]

_NAME = Column("Name", "string", format="name", description="Name of the resource")
_WINDOW = Column("Window", "string", format="duration")


def _usage(item: Obj) -> dict[str, Quantity]:
    """A NodeMetrics' usage, or the sum of a PodMetrics' containers' usage."""
    if item.get("kind") == "NodeMetrics" or "usage" in item:
        return {k: parse_quantity(v) for k, v in (item.get("usage") or {}).items()}
    total: dict[str, Quantity] = {}
    for container in item.get("containers") or []:
        for key, value in (container.get("usage") or {}).items():
            total[key] = total.get(key, Quantity(0)).add(parse_quantity(value))
    return total


def metrics_table(answer: Obj, include: IncludeObject) -> Obj:
    """The Table of a ``NodeMetrics``/``PodMetrics`` object or list, as metrics-server converts it."""
    many = answer.get("kind", "").endswith("List")
    items: list[Obj] = answer.get("items") or [] if many else [answer]
    meta = answer.get("metadata") or {}
    table: Obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                  "metadata": {k: meta[k] for k in ("resourceVersion", "continue") if meta.get(k)},
                  "columnDefinitions": None, "rows": None}
    names: list[str] = []
    for index, item in enumerate(items):
        usage = _usage(item)
        if index == 0:
            names = sorted(usage)
            columns = (_NAME, *(Column(n, "string", format="quantity") for n in names), _WINDOW)
            table["columnDefinitions"], table["rows"] = [c.to_dict() for c in columns], []
        cells = [(item.get("metadata") or {}).get("name", ""),
                 *(str(usage.get(n, Quantity(0))) for n in names), item.get("window", "0s")]
        row: Obj = {"cells": cells}
        embedded = row_object(item, include)
        if embedded is not None:
            row["object"] = embedded
        table["rows"].append(row)
    return table
