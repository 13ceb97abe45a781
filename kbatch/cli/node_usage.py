"""``describe node``'s "Non-terminated Pods" and "Allocated resources" blocks, from the node and its pods.

kubectl computes both on the client (k8s.io/kubectl ``pkg/describe/describe.go``,
``describeNodeResource``) from the pods ``spec.nodeName=NODE,status.phase!=Succeeded,
status.phase!=Failed``: per pod its cpu and memory requests and limits with the percentage of the
node's allocatable (truncated to a whole percent), then the node's totals for cpu, memory and
ephemeral-storage (with percentages), ``hugepages-*`` (with percentages) and every extended resource
the node's allocatable names (``nvidia.com/gpu``; plain amounts). A pod's amount is upstream's
``PodRequests``/``PodLimits`` (component-helpers ``resource/helpers.go``): the containers' sum, the
init containers by the max rule (sidecars, ``restartPolicy: Always``, run alongside), pod-level
``spec.resources`` replacing cpu, memory and hugepages (KEP-2837), ``overhead`` added.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.humanize import age
from kbatch.api.quantity import Quantity

__all__ = ["NODE_POD_SELECTOR", "node_usage_lines", "pod_totals"]

Obj = dict[str, Any]
Amounts = dict[str, Quantity]
NODE_POD_SELECTOR = "spec.nodeName={},status.phase!=Succeeded,status.phase!=Failed"
_STANDARD = ("cpu", "memory", "ephemeral-storage")
_POD_LEVEL = ("cpu", "memory")


def _amounts(resources: Obj | None, which: str) -> Amounts:
    return {k: Quantity(v) for k, v in ((resources or {}).get(which) or {}).items()}


def _add(into: Amounts, more: Amounts) -> None:
    for name, value in more.items():
        into[name] = into[name].add(value) if name in into else value


def _max(into: Amounts, other: Amounts) -> None:
    for name, value in other.items():
        if name not in into or into[name] < value:
            into[name] = value


def pod_totals(pod: Obj, which: str) -> Amounts:
    """The pod's ``requests`` or ``limits`` by upstream's ``PodRequests``/``PodLimits`` rules."""
    spec = pod.get("spec") or {}
    total: Amounts = {}
    for container in spec.get("containers") or ():
        _add(total, _amounts(container.get("resources"), which))
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for init in spec.get("initContainers") or ():
        amounts = _amounts(init.get("resources"), which)
        if init.get("restartPolicy") == "Always":
            _add(sidecars, amounts)
            running = dict(sidecars)
        else:
            running = dict(sidecars)
            _add(running, amounts)
        _max(init_peak, running)
    _add(total, sidecars)
    _max(total, init_peak)
    for name, value in _amounts(spec.get("resources"), which).items():
        if name in _POD_LEVEL or name.startswith("hugepages-"):
            total[name] = value
    if which == "requests" or total:
        _add(total, {k: Quantity(v) for k, v in (spec.get("overhead") or {}).items()})
    return total


def _percent(amount: Quantity, allocatable: Quantity | None, milli: bool) -> int:
    if allocatable is None or allocatable.is_zero():
        return 0
    part = amount.milli_value() if milli else amount.value()
    whole = allocatable.milli_value() if milli else allocatable.value()
    return int(part / whole * 100)


def _cell(amounts: Amounts, name: str, allocatable: Amounts) -> str:
    amount = amounts.get(name, Quantity(0))
    return f"{amount} ({_percent(amount, allocatable.get(name), name == 'cpu')}%)"


def _aligned(rows: list[list[str]]) -> list[str]:
    """Columns as kubectl's describe tabwriter sets them (padding 2), indented one level."""
    widths = [max(len(r[i]) for r in rows) + 2 for i in range(len(rows[0]))]
    return ["  " + "".join(c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)).rstrip()
            for r in rows]


def node_usage_lines(node: Obj, pods: list[Obj], now: datetime) -> list[str]:
    """The two blocks, in kubectl's order; ``pods`` are the node's non-terminated pods."""
    allocatable = {k: Quantity(v) for k, v in ((node.get("status") or {}).get("allocatable") or {}).items()}
    pods = sorted(pods, key=lambda p: ((p.get("metadata") or {}).get("namespace", ""),
                                       (p.get("metadata") or {}).get("name", "")))
    rows = [["Namespace", "Name", "CPU Requests", "CPU Limits", "Memory Requests", "Memory Limits", "Age"],
            ["---------", "----", "------------", "----------", "---------------", "-------------", "---"]]
    requests: Amounts = {}
    limits: Amounts = {}
    for pod in pods:
        meta = pod.get("metadata") or {}
        req, lim = pod_totals(pod, "requests"), pod_totals(pod, "limits")
        _add(requests, req)
        _add(limits, lim)
        rows.append([meta.get("namespace", ""), meta.get("name", ""), _cell(req, "cpu", allocatable),
                     _cell(lim, "cpu", allocatable), _cell(req, "memory", allocatable),
                     _cell(lim, "memory", allocatable), age(meta.get("creationTimestamp"), now)])
    lines = [f"Non-terminated Pods:  ({len(pods)} in total)", *_aligned(rows)]
    table = [["Resource", "Requests", "Limits"], ["--------", "--------", "------"]]
    hugepages = sorted(n for n in allocatable if n.startswith("hugepages-"))
    for name in (*_STANDARD, *hugepages):
        table.append([name, _cell(requests, name, allocatable), _cell(limits, name, allocatable)])
    extended = sorted(n for n in allocatable  # not IsStandardContainerResourceName, not pods
                      if n not in (*_STANDARD, "pods") and not n.startswith("hugepages-"))
    for name in extended:
        table.append([name, str(requests.get(name, "0")), str(limits.get(name, "0"))])
    lines += ["Allocated resources:", "  (Total limits may be over 100 percent, i.e., overcommitted.)",
              *_aligned(table)]
    return lines
