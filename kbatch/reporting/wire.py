"""Reading the facts a report needs from objects as they are on the wire (plain ``dict``s).

Everything here is a pure function of one object: its identity, owner references, conditions and
time stamps. Objects come from a state directory, from ``kbatch serve`` or from ``kubectl get -o
json`` of a real cluster, so nothing assumes a field is present: a missing time is ``None``.
Field meanings are upstream's (k8s.io/api ``core/v1/types.go``, ``batch/v1/types.go``,
apimachinery ``meta/v1`` ``OwnerReference``, ``Condition``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time

__all__ = [
    "MalformedObject",
    "Obj",
    "Ref",
    "condition",
    "condition_time",
    "controller_ref",
    "group_of",
    "labels",
    "meta",
    "reading",
    "ref_of",
    "time_at",
    "times",
    "uid",
]

Obj = Mapping[str, Any]
Ref = tuple[str, str, str, str]  # (group, kind, namespace, name)


class MalformedObject(ValueError):
    """An object whose fields do not have the shapes of its kind (say, a list where a map belongs)."""


@contextmanager
def reading(obj: Obj) -> Iterator[None]:
    """Turn a wrong shape met while reading ``obj`` into :class:`MalformedObject` naming it."""
    try:
        yield
    except (AttributeError, TypeError, KeyError) as err:
        group, kind, ns, name = ref_of(obj)
        where = f"{kind.lower()}{'.' + group if group else ''} {ns + '/' if ns else ''}{name}"
        raise MalformedObject(f"cannot read {where}: a field has the wrong type ({err})") from None


def meta(obj: Obj) -> Mapping[str, Any]:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}  # wire objects are dicts (an ABC check costs 10x)


def uid(obj: Obj) -> str:
    return str(meta(obj).get("uid") or "")


def labels(obj: Obj) -> Mapping[str, str]:
    found = meta(obj).get("labels")
    return found if isinstance(found, dict) else {}


def group_of(api_version: str | None) -> str:
    """``batch/v1`` → ``batch``; ``v1`` → ``""`` (the core group)."""
    head, sep, _ = (api_version or "").rpartition("/")
    return head if sep else ""


def ref_of(obj: Obj) -> Ref:
    m = meta(obj)
    return (group_of(obj.get("apiVersion")), str(obj.get("kind") or ""), str(m.get("namespace") or ""),
            str(m.get("name") or ""))


def controller_ref(obj: Obj) -> Mapping[str, Any] | None:
    """The owner reference with ``controller: true`` (at most one, apimachinery validation)."""
    for ref in meta(obj).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller"):
            return ref
    return None


def time_at(value: Any) -> datetime | None:
    """An RFC 3339 time, or ``None`` for a missing or unreadable one."""
    if not value:
        return None
    try:
        return parse_time(value)
    except ValueError:
        return None


def condition(obj: Obj, kind: str) -> Mapping[str, Any] | None:
    for cond in (obj.get("status") or {}).get("conditions") or ():
        if isinstance(cond, dict) and cond.get("type") == kind:
            return cond
    return None


def condition_time(obj: Obj, kind: str, status: str = "True") -> datetime | None:
    """When the condition last became ``status`` (its ``lastTransitionTime``), if it has it now."""
    cond = condition(obj, kind)
    if cond is None or cond.get("status") != status:
        return None
    return time_at(cond.get("lastTransitionTime"))


def times(values: Iterable[datetime | None]) -> list[datetime]:
    return sorted(v for v in values if v is not None)
