"""``kbatch describe``: an object as readable text, then its events (kubectl describe's layout).

A header (Name, Namespace, Labels, Annotations, and the lines its family declares for the kind, or
else the rest of ``spec`` and ``status`` as indented YAML), then an ``Events:`` table with Type,
Reason, Age, From and Message
(k8s.io/kubectl ``pkg/describe/describe.go``, ``DescribeEvents``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.errors import NotFound, StatusError
from kbatch.api.printing import kv_lines
from kbatch.api.registry import KindSpec
from kbatch.cli.render import align, render_yaml
from kbatch.families.core.describe_text import events_about, events_table

__all__ = ["BackendReader", "describe_object"]

Obj = dict[str, Any]


def _conditions(obj: Obj) -> list[str]:
    conds = (obj.get("status") or {}).get("conditions") or []
    if not conds:
        return []
    rows = [["Type", "Status", "Reason", "Message"], ["----", "------", "------", "-------"]]
    rows += [[c.get("type", ""), c.get("status", ""), c.get("reason", ""), c.get("message",
                                                                                 "")] for c in conds]
    return ["Conditions:", *("  " + line for line in align(rows).splitlines())]


def _header(obj: Obj, spec: KindSpec) -> list[tuple[str, str]]:
    meta = obj.get("metadata") or {}
    pairs: list[tuple[str, str]] = [("Name", meta.get("name", ""))]
    if spec.info.namespaced:
        pairs.append(("Namespace", meta.get("namespace", "")))
    pairs += kv_lines("Labels", meta.get("labels"))
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items()
                   if k != "kubectl.kubernetes.io/last-applied-configuration"}
    pairs += kv_lines("Annotations", annotations)
    owner = next((r for r in meta.get("ownerReferences") or () if r.get("controller")), None)
    if owner:
        pairs.append(("Controlled By", f"{owner.get('kind')}/{owner.get('name')}"))
    if meta.get("deletionTimestamp"):
        pairs.append(("Terminating Since", meta["deletionTimestamp"]))
    return pairs


def _events_block(backend: Any, spec: KindSpec, obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    try:
        event_info = backend.registry.for_name("events").info
        namespace = meta.get("namespace") or ("default" if spec.info.namespaced else None)
        events = backend.list(event_info, namespace)
    except Exception:  # describing must not fail because events cannot be read
        return ["Events:  <unknown>"]
    # kubectl's searchEvents: not the events of an earlier object of the same name (another uid)
    return events_table(events_about(events["items"], meta, spec.info.kind), backend.now()).splitlines()


def _indent(text: str, by: str = "  ") -> list[str]:
    return [by + line for line in text.splitlines()]


class BackendReader:
    """A :class:`~kbatch.api.printing.DescribeReader` over the CLI's backend (in process or over HTTP)."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def list(self, resource: str, field_selector: str | None = None) -> list[Obj]:
        try:
            info = self._backend.registry.for_name(resource).info
        except StatusError:  # not served by this control plane (DRA off)
            return []
        return list(self._backend.list(info, None, field_selector=field_selector)["items"])

    def get(self, resource: str, namespace: str | None, name: str) -> Obj | None:
        try:
            return self._backend.get(self._backend.registry.for_name(resource).info, namespace, name)
        except NotFound:
            return None

    def now(self) -> datetime:
        return self._backend.now()


def describe_object(backend: Any, spec: KindSpec, obj: Obj) -> str:
    """The kind's whole page when its family gives one (a Node's, kubectl's own); otherwise the header,
    the kind's own lines (its family's describer) or, for a kind without one, its spec and status as
    YAML, then conditions and events."""
    if spec.page is not None:
        return spec.page(BackendReader(backend), obj)
    pairs = _header(obj, spec) + (spec.describe(obj) if spec.describe is not None else [])
    width = max(len(k) for k, _ in pairs) + 2
    lines = [(f"{k}:" if k else "").ljust(width) + v for k, v in pairs]
    if spec.describe is None:
        for section in ("spec", "status"):
            if obj.get(section):
                lines += [f"{section.capitalize()}:", *_indent(render_yaml(obj[section]))]
    lines += _conditions(obj)
    lines += _events_block(backend, spec, obj)
    return "\n".join(lines)
