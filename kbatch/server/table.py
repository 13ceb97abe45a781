"""``meta.k8s.io/v1`` ``Table`` responses (what ``kubectl get`` asks for).

Shape from k8s.io/apimachinery ``pkg/apis/meta/v1/types.go`` (``Table``, ``TableRow``,
``TableOptions``): ``columnDefinitions`` then ``rows[].cells`` (the kind's printer, declared by its
family: :attr:`kbatch.api.registry.KindSpec.table_printer`); each row's ``object`` is a
``PartialObjectMetadata`` by default (``includeObject=Metadata``), the whole object with
``includeObject=Object``, absent with ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from kbatch.api.errors import BadRequest
from kbatch.api.printing import Printer

__all__ = ["IncludeObject", "build_table", "include_object", "row_object", "sent_at", "table_accepted"]

IncludeObject = Literal["None", "Metadata", "Object"]


def table_accepted(accept: str) -> bool:
    """True when the Accept header asks for ``as=Table`` in group ``meta.k8s.io``."""
    for part in accept.split(","):
        params = {p.strip().partition("=")[0]: p.strip().partition("=")[2] for p in part.split(";")[1:]}
        if params.get("as") == "Table" and params.get("g", "meta.k8s.io") == "meta.k8s.io":
            return True
    return False


def include_object(value: str | None) -> IncludeObject:
    """The ``includeObject`` option (``Metadata`` when unset); a BadRequest for anything else."""
    include = value or "Metadata"
    if include not in ("None", "Metadata", "Object"):
        raise BadRequest(f"includeObject must be None, Metadata or Object, got {include!r}")
    return include  # type: ignore[return-value]


def row_object(obj: dict[str, Any], include: IncludeObject) -> dict[str, Any] | None:
    if include == "Object":
        return obj
    if include == "None":
        return None
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata") or {}}


def build_table(
    objects: Iterable[dict[str, Any]],
    printer: Printer,
    now: datetime,
    *,
    include_object: IncludeObject = "Metadata",
    list_metadata: dict[str, Any] | None = None,
    headers: bool = True,
) -> dict[str, Any]:
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": printer.cells(obj, now)}
        embedded = row_object(obj, include_object)
        if embedded is not None:
            row["object"] = embedded
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_metadata or {},
        "columnDefinitions": [c.to_dict() for c in printer.columns] if headers else [],
        "rows": rows,
    }


def sent_at(backend: Any, obj: dict[str, Any], opened: datetime) -> datetime:
    """The instant kube-apiserver would have sent this event's row at, whose cells it fills as it
    sends it (k8s.io/apiserver ``pkg/endpoints/handlers/watch.go`` transforms each event on its way
    out; the printers' ages are ``time.Since``): at once, so when the change was committed, or when
    the watch opened for the events it starts with (the initial state, or history replayed from an
    older ``resourceVersion``). Virtual time may have moved on since (the changes an ``advance``
    makes are sent once it returns); the cells are not measured against that later now. ``backend``:
    a :class:`kbatch.server.backend.Backend` (the served watch's, or the CLI's ``get -w``)."""
    rv = str((obj.get("metadata") or {}).get("resourceVersion", ""))
    if not rv.isdigit():
        return backend.now()
    return max(opened, backend.committed_at(int(rv)))
