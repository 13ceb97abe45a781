"""How a kind is shown to people: ``kubectl get`` columns and ``kubectl describe`` lines.

kube-apiserver answers ``kubectl get`` with a ``meta.k8s.io/v1`` ``Table`` whose columns come from
the printers in k8s.io/kubernetes ``pkg/printers/internalversion/printers.go`` for built-in kinds and
from ``additionalPrinterColumns`` for custom resources; ``kubectl describe`` adds kind-specific lines
(k8s.io/kubectl ``pkg/describe/describe.go``). Both are pure functions of the object's wire form (a
``dict``) and the current time, declared per kind by its family (:class:`kbatch.families.KindEntry`).

* :class:`Printer`: ``columns`` (``priority: 1`` columns only with ``-o wide``) and ``cells(obj, now)``;
  :data:`DEFAULT_PRINTER` is a custom resource's Name, Age (type ``date``, as for a CRD without
  printer columns).
* :data:`Describer`: ``describe(obj) -> [(label, value), ...]``, the lines after the common header.
* :data:`PageDescriber`: ``page(reader, obj) -> str``, the whole page, for a kind whose kubectl
  describer reads other objects too (a Node's page lists its pods, Lease, ResourceSlices and events),
  through a :class:`DescribeReader`.

The helpers below read wire dicts the way printers do (a missing path is ``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from kbatch.api.humanize import age

__all__ = [
    "AGE",
    "CRD_AGE",
    "DEFAULT_PRINTER",
    "NAME",
    "Column",
    "DescribeReader",
    "Describer",
    "Obj",
    "PageDescriber",
    "Printer",
    "at",
    "condition",
    "containers",
    "creation_age",
    "format_selector",
    "is_true",
    "kv_lines",
    "name_of",
]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Column:
    """One ``TableColumnDefinition``."""

    name: str
    type: str = "string"
    priority: int = 0
    format: str = ""
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": self.description, "priority": self.priority}


@dataclass(frozen=True, slots=True)
class Printer:
    columns: tuple[Column, ...]
    cells: Callable[[Obj, datetime], list[Any]]


Describer = Callable[[Obj], list[tuple[str, str]]]
"""A kind's ``kubectl describe`` lines after the common header: ``(label, value)`` pairs (an empty label
continues the previous one)."""


class DescribeReader(Protocol):
    """What a whole-page describer reads, as kubectl's describers read through their client: lists
    and gets by resource name (``"pods"``, ``"resourceslices.resource.k8s.io"``) and the clock."""

    def list(self, resource: str, field_selector: str | None = None) -> list[Obj]:
        """Every object of ``resource`` in all namespaces (none when it is not served)."""
        ...

    def get(self, resource: str, namespace: str | None, name: str) -> Obj | None:
        """One object, or ``None`` when it does not exist."""
        ...

    def now(self) -> datetime:
        ...


PageDescriber = Callable[[DescribeReader, Obj], str]
"""A kind's whole ``kubectl describe`` page (header and events included), for kinds whose page is
more than the common header plus lines."""


def at(obj: Any, *path: str | int) -> Any:
    """The value at ``path`` in nested dicts and lists, ``None`` where it is missing."""
    for key in path:
        if isinstance(obj, dict):
            obj = obj.get(key)  # type: ignore[arg-type]
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def name_of(obj: Obj) -> str:
    return at(obj, "metadata", "name") or ""


def creation_age(obj: Obj, now: datetime) -> str:
    return age(at(obj, "metadata", "creationTimestamp"), now)


def condition(obj: Obj, kind: str) -> dict[str, Any] | None:
    """The first ``status.conditions`` entry of type ``kind``."""
    for cond in at(obj, "status", "conditions") or ():
        if cond.get("type") == kind:
            return cond  # type: ignore[no-any-return]
    return None


def is_true(obj: Obj, kind: str) -> bool:
    cond = condition(obj, kind)
    return bool(cond and cond.get("status") == "True")


def containers(pod_spec: Any) -> tuple[str, str]:
    """The comma-separated container names and images of a pod spec (the wide columns)."""
    items = at(pod_spec, "containers") or []
    return (",".join(c.get("name", "") for c in items), ",".join(c.get("image", "") for c in items))


def format_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: ``a=b,c in (d,e)``; ``<none>`` when empty."""
    if not selector:
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or ():
        op, key, values = expr.get("operator"), expr.get("key"), ",".join(expr.get("values") or ())
        parts.append({"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})",
                      "Exists": key, "DoesNotExist": f"!{key}"}.get(op, f"{key} {op}"))
    return ",".join(parts) or "<none>"


def kv_lines(title: str, values: dict[str, Any] | None) -> list[tuple[str, str]]:
    """``title: k=v`` then one continuation line per further pair, sorted; ``<none>`` when empty."""
    if not values:
        return [(title, "<none>")]
    rows = sorted(values.items())
    return [(title if i == 0 else "", f"{k}={v}") for i, (k, v) in enumerate(rows)]


NAME = Column("Name", format="name", description="Name must be unique within a namespace.")
AGE = Column("Age", description="CreationTimestamp is the time this object was created.")


def _default_cells(obj: Obj, now: datetime) -> list[Any]:
    return [name_of(obj), creation_age(obj, now)]


CRD_AGE = Column("Age", "date", description=AGE.description)
"""The column kube-apiextensions-apiserver gives a CRD that declares no ``additionalPrinterColumns``
(k8s.io/apiextensions-apiserver ``pkg/apiserver/helpers.go``): ``.metadata.creationTimestamp`` as
type ``date``."""

DEFAULT_PRINTER = Printer((NAME, CRD_AGE), _default_cells)
