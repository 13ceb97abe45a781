"""``kbatch describe``: an object as readable text, then its events (kubectl describe's layout).

A header (Name, Namespace, Labels, Annotations, and a few lines per kind), the rest of ``spec`` and
``status`` as indented YAML, then an ``Events:`` table with Type, Reason, Age, From and Message
(k8s.io/kubectl ``pkg/describe/describe.go``, ``DescribeEvents``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.base import ApiInfo
from kbatch.cli.render import align, render_yaml
from kbatch.server.humanize import age

__all__ = ["describe_object"]

Obj = dict[str, Any]


def _kv_block(title: str, values: dict[str, Any] | None) -> list[tuple[str, str]]:
    if not values:
        return [(title, "<none>")]
    rows = sorted(values.items())
    return [(title if i == 0 else "", f"{k}={v}") for i, (k, v) in enumerate(rows)]


def _conditions(obj: Obj) -> list[str]:
    conds = (obj.get("status") or {}).get("conditions") or []
    if not conds:
        return []
    rows = [["Type", "Status", "Reason", "Message"], ["----", "------", "------", "-------"]]
    rows += [[c.get("type", ""), c.get("status", ""), c.get("reason", ""), c.get("message",
                                                                                 "")] for c in conds]
    return ["Conditions:", *("  " + line for line in align(rows).splitlines())]


def _header(obj: Obj, info: ApiInfo) -> list[tuple[str, str]]:
    meta = obj.get("metadata") or {}
    pairs: list[tuple[str, str]] = [("Name", meta.get("name", ""))]
    if info.namespaced:
        pairs.append(("Namespace", meta.get("namespace", "")))
    pairs += _kv_block("Labels", meta.get("labels"))
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items()
                   if k != "kubectl.kubernetes.io/last-applied-configuration"}
    pairs += _kv_block("Annotations", annotations)
    owner = next((r for r in meta.get("ownerReferences") or () if r.get("controller")), None)
    if owner:
        pairs.append(("Controlled By", f"{owner.get('kind')}/{owner.get('name')}"))
    if meta.get("deletionTimestamp"):
        pairs.append(("Terminating Since", meta["deletionTimestamp"]))
    return pairs


def _job_lines(job: Obj) -> list[tuple[str, str]]:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    out = [("Parallelism", str(spec.get("parallelism", ""))), ("Completions", str(spec.get("completions",
                                                                                          "<unset>"))),
           ("Completion Mode", spec.get("completionMode", "NonIndexed")),
           ("Suspend", str(spec.get("suspend", False)).lower()),
           ("Backoff Limit", str(spec.get("backoffLimit", "")))]
    if status.get("startTime"):
        out.append(("Start Time", status["startTime"]))
    if status.get("completionTime"):
        out.append(("Completed At", status["completionTime"]))
    out.append(("Pods Statuses", f"{status.get('active', 0)} Active ({status.get('ready', 0)} Ready) / "
                                 f"{status.get('succeeded', 0)} Succeeded / "
                                 f"{status.get('failed', 0)} Failed"))
    if status.get("completedIndexes"):
        out.append(("Completed Indexes", status["completedIndexes"]))
    return out


def _pod_lines(pod: Obj) -> list[tuple[str, str]]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    out = [("Node", spec.get("nodeName") or "<none>"), ("Start Time", status.get("startTime") or "<unset>"),
           ("Status", status.get("phase", "")), ("IP", status.get("podIP") or "")]
    if status.get("reason"):
        out.append(("Reason", status["reason"]))
    for st in status.get("containerStatuses") or ():
        state = st.get("state") or {}
        which = next(iter(state), "waiting")
        detail = state.get(which) or {}
        out.append((f"Container {st.get('name')}", f"{which.capitalize()}"
                    + (f" ({detail['reason']})" if detail.get("reason") else "")
                    + (f", exit code {detail['exitCode']}" if "exitCode" in detail else "")
                    + f", restarts {st.get('restartCount', 0)}"))
    return out


def _node_lines(node: Obj) -> list[tuple[str, str]]:
    spec = node.get("spec") or {}
    taints = [f"{t['key']}" + (f"={t['value']}" if t.get("value") else "") + f":{t['effect']}"
              for t in spec.get("taints") or ()]
    out = [("Taints", taints[0] if taints else "<none>")] + [("", t) for t in taints[1:]]
    out.append(("Unschedulable", str(bool(spec.get("unschedulable"))).lower()))
    for title in ("capacity", "allocatable"):
        out += _kv_block(title.capitalize(), (node.get("status") or {}).get(title))
    return out


_KIND_LINES = {"Job": _job_lines, "Pod": _pod_lines, "Node": _node_lines}


def _events_block(backend: Any, info: ApiInfo, obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    try:
        event_info = backend.registry.for_name("events").info
        events = backend.list(event_info, meta.get("namespace") or ("default" if info.namespaced else None))
    except Exception:  # describing must not fail because events cannot be read
        return ["Events:  <unknown>"]
    mine = [e for e in events["items"] if (e.get("involvedObject") or {}).get("uid") == meta.get("uid")
            or ((e.get("involvedObject") or {}).get("kind") == info.kind
                and (e.get("involvedObject") or {}).get("name") == meta.get("name"))]
    if not mine:
        return ["Events:  <none>"]
    mine.sort(key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")
    now = backend.now()
    rows = [["Type", "Reason", "Age", "From", "Message"], ["----", "------", "----", "----", "-------"]]
    for e in mine:
        when = age(e.get("lastTimestamp") or e.get("eventTime"), now)
        count = e.get("count") or 1
        shown = f"{when} (x{count} over {age(e.get('firstTimestamp'), now)})" if count > 1 else when
        source = (e.get("source") or {}).get("component") or e.get("reportingComponent") or ""
        rows.append([e.get("type", ""), e.get("reason", ""), shown, source, (e.get("message") or "").strip()])
    return ["Events:", *("  " + line for line in align(rows).splitlines())]


def _indent(text: str, by: str = "  ") -> list[str]:
    return [by + line for line in text.splitlines()]


def describe_object(backend: Any, info: ApiInfo, obj: Obj) -> str:
    pairs = _header(obj, info) + _KIND_LINES.get(info.kind, lambda _o: [])(obj)
    width = max(len(k) for k, _ in pairs) + 2
    lines = [(f"{k}:" if k else "").ljust(width) + v for k, v in pairs]
    if info.kind not in _KIND_LINES:
        for section in ("spec", "status"):
            if obj.get(section):
                lines += [f"{section.capitalize()}:", *_indent(render_yaml(obj[section]))]
    lines += _conditions(obj)
    lines += _events_block(backend, info, obj)
    return "\n".join(lines)
