"""The ``kubectl get`` columns of ResourceQuota and LimitRange, computed from wire dicts.

Upstream: k8s.io/kubernetes ``pkg/printers/internalversion/printers.go`` ``printResourceQuota``
(Name, Age, Request, Limit: every ``status.hard`` resource, sorted, as ``name: used/hard`` from
``status``, ``limits.*`` in Limit and the rest in Request) and ``printLimitRange`` (Name and the
creation time in RFC 3339, UTC).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of

__all__ = ["LIMIT_RANGE", "RESOURCE_QUOTA"]


def _quota_cells(rq: Obj, now: datetime) -> list[Any]:
    used = at(rq, "status", "used") or {}
    hard = at(rq, "status", "hard") or {}
    request: list[str] = []
    limit: list[str] = []
    for name in sorted(hard):  # upstream walks status.hard: nothing until the controller syncs
        parts = name.split(".")
        column = limit if len(parts) > 1 and parts[0] == "limits" else request
        column.append(f"{name}: {used.get(name, '0')}/{hard.get(name, '0')}")
    return [name_of(rq), creation_age(rq, now), ", ".join(request), ", ".join(limit)]


RESOURCE_QUOTA = Printer((
    NAME, AGE,
    Column("Request", description="Request represents a minimum amount of cpu/memory that a container "
                                  "may consume."),
    Column("Limit", description="Limits control the maximum amount of cpu/memory that a container may use "
                                "independent of contention on the node."),
), _quota_cells)


def _limit_range_cells(lr: Obj, now: datetime) -> list[Any]:
    return [name_of(lr), at(lr, "metadata", "creationTimestamp") or ""]


LIMIT_RANGE = Printer((
    NAME,
    Column("Created At", type="date", description="CreationTimestamp is a timestamp representing the server "
                                                  "time when this object was created."),
), _limit_range_cells)
