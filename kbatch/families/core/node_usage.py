"""``describe node``'s "Non-terminated Pods" and "Allocated resources" blocks, from the node and its pods.

kubectl computes both on the client (k8s.io/kubectl ``pkg/describe/describe.go``,
``describeNodeResource``) from the pods ``spec.nodeName=NODE,status.phase!=Succeeded,
status.phase!=Failed``: per pod its cpu and memory requests and limits with the percentage of the
node's allocatable (truncated to a whole percent), then the node's totals for cpu, memory and
ephemeral-storage (with percentages), ``hugepages-*`` (with percentages) and every extended resource
the node's allocatable names (``nvidia.com/gpu``; plain amounts). A pod's amount is upstream's
``PodRequests``/``PodLimits`` (component-helpers ``resource/helpers.go``): the containers' sum, the
init containers by the max rule (sidecars, ``restartPolicy: Always``, run alongside), pod-level
``spec.resources`` replacing cpu, memory and hugepages (KEP-2837), ``overhead`` added. A node without
``allocatable`` is measured against its ``capacity``, as kubectl does.

Below kubectl's table kbatch adds the DRA devices the pods hold (:mod:`kbatch.families.core.node_devices`),
after a title line without tabs, so kubectl's own columns keep their widths (docs/cli.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.humanize import age
from kbatch.api.pod_resources import ContainerRequests, pod_requests
from kbatch.api.quantity import Format, Quantity

__all__ = ["NODE_POD_SELECTOR", "node_usage_lines", "pod_totals"]

Obj = dict[str, Any]
Amounts = dict[str, Quantity]
NODE_POD_SELECTOR = "spec.nodeName={},status.phase!=Succeeded,status.phase!=Failed"
_STANDARD = ("cpu", "memory", "ephemeral-storage")


def _quantities(resources: Obj | None, which: str) -> dict[str, Quantity]:
    return {k: Quantity(v) for k, v in ((resources or {}).get(which) or {}).items()}


def _units(amounts: dict[str, Quantity]) -> dict[str, int]:
    """The scheduler's integer units: cpu in millicores, everything else whole (both rounded up)."""
    return {k: v.milli_value() if k == "cpu" else v.value() for k, v in amounts.items()}


def pod_totals(pod: Obj, which: str) -> Amounts:
    """The pod's ``requests`` or ``limits`` by upstream's ``PodRequests``/``PodLimits`` rules (the
    scheduler's :func:`~kbatch.api.pod_resources.pod_requests`), each amount printed in
    the format of the first quantity the pod gives for it (``Quantity.Add`` keeps the receiver's)."""
    spec = pod.get("spec") or {}
    containers = [_quantities(c.get("resources"), which) for c in spec.get("containers") or ()]
    inits = [(_quantities(c.get("resources"), which), c.get("restartPolicy") == "Always")
             for c in spec.get("initContainers") or ()]
    level = _quantities(spec.get("resources"), which)
    overhead = {k: Quantity(v) for k, v in (spec.get("overhead") or {}).items()}
    formats: dict[str, Format] = {}
    for amounts in (*containers, *(a for a, _ in inits), level, overhead):
        for name, value in amounts.items():
            formats.setdefault(name, value.format)
    totals = pod_requests([_units(c) for c in containers],
                          [ContainerRequests(_units(a), sidecar) for a, sidecar in inits],
                          _units(level) or None, _units(overhead) if which == "requests" else None)
    return {name: Quantity.milli(value, formats[name]) if name == "cpu" else
            Quantity.scaled(value, 0, formats.get(name, Format.DECIMAL_SI)) for name, value in totals.items()}


def _add(into: Amounts, more: Amounts) -> None:
    for name, value in more.items():
        into[name] = into[name].add(value) if name in into else value


def _percent(amount: Quantity, allocatable: Quantity | None, milli: bool) -> int:
    if allocatable is None or allocatable.is_zero():
        return 0
    part = amount.milli_value() if milli else amount.value()
    whole = allocatable.milli_value() if milli else allocatable.value()
    return int(part / whole * 100)


def _cell(amounts: Amounts, name: str, allocatable: Amounts) -> str:
    amount = amounts.get(name, Quantity(0))
    return f"{amount} ({_percent(amount, allocatable.get(name), name == 'cpu')}%)"


def _dra_lines(devices: list[tuple[str, str, int]]) -> list[str]:
    """kbatch's DRA rows below kubectl's table (a title line without tabs keeps kubectl's columns)."""
    if not devices:
        return []
    return ["  DRA devices (allocated to these pods' ResourceClaims):", "  Device Class\tDriver\tDevices",
            "  ------------\t------\t-------",
            *(f"  {cls}\t{driver}\t{count}" for cls, driver, count in devices)]


def node_usage_lines(node: Obj, pods: list[Obj], now: datetime,
                     devices: list[tuple[str, str, int]] | None = None) -> list[str]:
    """The two blocks in kubectl's order, as tab-separated cells for :func:`~kbatch.api.tabwriter.tabwrite`
    (kubectl's exact ``Write`` calls: the empty column after Name is kubectl's); ``pods`` are the node's
    non-terminated pods, ``devices`` the DRA devices they hold (:mod:`kbatch.families.core.node_devices`)."""
    status = node.get("status") or {}
    whole = status.get("allocatable") or status.get("capacity") or {}
    allocatable = {k: Quantity(v) for k, v in whole.items()}
    pods = sorted(pods, key=lambda p: ((p.get("metadata") or {}).get("namespace", ""),
                                       (p.get("metadata") or {}).get("name", "")))
    lines = [f"Non-terminated Pods:\t({len(pods)} in total)",
             "  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge",
             "  ---------\t----\t\t------------\t----------\t---------------\t-------------\t---"]
    requests: Amounts = {}
    limits: Amounts = {}
    for pod in pods:
        meta = pod.get("metadata") or {}
        req, lim = pod_totals(pod, "requests"), pod_totals(pod, "limits")
        _add(requests, req)
        _add(limits, lim)
        cells = [meta.get("namespace", ""), meta.get("name", ""), "", _cell(req, "cpu", allocatable),
                 _cell(lim, "cpu", allocatable), _cell(req, "memory", allocatable),
                 _cell(lim, "memory", allocatable), age(meta.get("creationTimestamp"), now)]
        lines.append("  " + "\t".join(cells))
    lines += ["Allocated resources:", "  (Total limits may be over 100 percent, i.e., overcommitted.)",
              "  Resource\tRequests\tLimits", "  --------\t--------\t------"]
    hugepages = sorted(n for n in allocatable if n.startswith("hugepages-"))
    for name in (*_STANDARD, *hugepages):
        lines.append(f"  {name}\t{_cell(requests, name, allocatable)}\t{_cell(limits, name, allocatable)}")
    extended = sorted(n for n in allocatable  # not IsStandardContainerResourceName, not pods
                      if n not in (*_STANDARD, "pods") and not n.startswith("hugepages-"))
    for name in extended:
        lines.append(f"  {name}\t{requests.get(name, '0')}\t{limits.get(name, '0')}")
    return lines + _dra_lines(devices or [])
