"""The ``kubectl get`` columns of the resource.k8s.io kinds, computed from wire dicts.

Upstream ``pkg/printers/internalversion/printers.go`` (1.37): DeviceClass, ResourceClaimTemplate and
DeviceTaintRule print Name, Age; ResourceClaim Name, State, Age, where State is ``deleted``,
``pending``, ``allocated`` and ``reserved`` joined by commas (``resourceClaimState``); ResourceSlice
Name, Node, Driver, Pool, Age.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of

__all__ = ["DEFAULT", "RESOURCE_CLAIM", "RESOURCE_SLICE", "claim_state"]


def claim_state(claim: Obj) -> str:
    states = []
    deleted = bool(at(claim, "metadata", "deletionTimestamp"))
    if deleted:
        states.append("deleted")
    if at(claim, "status", "allocation") is None:
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if at(claim, "status", "reservedFor"):
            states.append("reserved")
    return ",".join(states)


def _claim_cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), claim_state(obj), creation_age(obj, now)]


def _slice_cells(obj: Obj, now: datetime) -> list[Any]:
    return [
        name_of(obj),
        at(obj, "spec", "nodeName") or "<none>",
        at(obj, "spec", "driver") or "",
        at(obj, "spec", "pool", "name") or "",
        creation_age(obj, now),
    ]


def _default_cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), creation_age(obj, now)]


DEFAULT = Printer((NAME, AGE), _default_cells)
RESOURCE_CLAIM = Printer(
    (
        NAME,
        Column(
            "State", description="A summary of the current state (allocated, pending, reserved, deleted)."
        ),
        AGE,
    ),
    _claim_cells,
)
RESOURCE_SLICE = Printer(
    (
        NAME,
        Column("Node", description="The node providing the resources, if any."),
        Column("Driver", description="The driver providing the resources."),
        Column("Pool", description="The pool providing the resources."),
        AGE,
    ),
    _slice_cells,
)
