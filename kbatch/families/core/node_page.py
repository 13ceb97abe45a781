"""``kbatch describe node``: the page kubectl prints, line for line and aligned by one tabwriter.

The lines follow k8s.io/kubectl 1.37 ``pkg/describe/describe.go`` (``describeNode``): Name, Roles (the
``node-role.kubernetes.io/ROLE`` labels and ``kubernetes.io/role``), Labels, Annotations (without
kubectl's last-applied configuration), CreationTimestamp, Taints (sorted by effect and key),
Unschedulable, the node's Lease (``kube-node-lease``), Conditions, Addresses, Capacity, Allocatable,
Node-Local ResourceSlices, System Info, PodCIDR(s), ProviderID, Non-terminated Pods and Allocated
resources (:mod:`kbatch.families.core.node_usage`), then Events. The whole page up to the events is one Go
tabwriter (padding 2, :mod:`kbatch.api.tabwriter`), so a column run spans every consecutive line with
tabs, as kubectl's; the events table is flushed and aligned on its own, as ``DescribeEvents`` does.

Times print as RFC 1123 with a numeric zone in UTC (kubectl prints its local zone); ages are virtual
(kubectl's come from the wall clock, docs/serve.md). kubectl 1.32 also printed ``Kube-Proxy Version``
and no ResourceSlices block; kbatch prints what 1.37 prints.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import DescribeReader
from kbatch.api.quantity import Quantity
from kbatch.families.core.describe_text import (
    annotation_lines,
    map_lines,
    multiline,
    page_and_events,
    rfc1123z,
)
from kbatch.families.core.node_devices import allocated_device_rows, slice_pool_rows
from kbatch.families.core.node_usage import NODE_POD_SELECTOR, node_usage_lines

__all__ = ["NodePageInputs", "describe_node_page", "node_page"]

Obj = dict[str, Any]
_ROLE_PREFIX, _ROLE_LABEL = "node-role.kubernetes.io/", "kubernetes.io/role"
_SYSTEM_INFO = (("Machine ID", "machineID"), ("System UUID", "systemUUID"), ("Boot ID", "bootID"),
                ("Kernel Version", "kernelVersion"), ("OS Image", "osImage"),
                ("Operating System", "operatingSystem"), ("Architecture", "architecture"),
                ("Container Runtime Version", "containerRuntimeVersion"),
                ("Kubelet Version", "kubeletVersion"))


class NodePageInputs:
    """What kubectl fetches besides the node: its lease, events, pod/allocation lines and slices."""

    def __init__(self, lease: Obj | None, events: list[Obj], usage: list[str], slices: list[str]) -> None:
        self.lease, self.events, self.usage, self.slices = lease, events, usage, slices


def _roles(labels: dict[str, str]) -> str:
    roles = {k.removeprefix(_ROLE_PREFIX) for k in labels if k.startswith(_ROLE_PREFIX)} - {""}
    roles |= {v for k, v in labels.items() if k == _ROLE_LABEL and v}
    return ",".join(sorted(roles)) or "<none>"


def _taint(taint: Obj) -> str:
    value = f"={taint['value']}" if taint.get("value") else ""
    return f"{taint.get('key', '')}{value}:{taint.get('effect', '')}"


def _lease(lease: Obj | None, name: str) -> list[str]:
    if lease is None:
        return [f'Lease:\tFailed to get lease: leases.coordination.k8s.io "{name}" not found']
    spec = lease.get("spec") or {}
    return ["Lease:", f"  HolderIdentity:\t{spec.get('holderIdentity') or '<unset>'}",
            f"  AcquireTime:\t{rfc1123z(spec['acquireTime']) if spec.get('acquireTime') else '<unset>'}",
            f"  RenewTime:\t{rfc1123z(spec['renewTime']) if spec.get('renewTime') else '<unset>'}"]


def _conditions(conditions: list[Obj]) -> list[str]:
    if not conditions:
        return []
    lines = ["Conditions:", "  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage",
             "  ----\t------\t-----------------\t------------------\t------\t-------"]
    for c in conditions:
        times = [rfc1123z(c[k]) if c.get(k) else "Mon, 01 Jan 0001 00:00:00 +0000"
                 for k in ("lastHeartbeatTime", "lastTransitionTime")]
        lines.append(f"  {c.get('type', '')} \t{c.get('status', '')} \t{times[0]} \t{times[1]} \t"
                     f"{c.get('reason', '')} \t{c.get('message', '')}")
    return lines


def _resources(title: str, resources: dict[str, Any] | None) -> list[str]:
    if not resources:
        return []
    return [f"{title}:", *(f"  {k}:\t{Quantity(resources[k])}" for k in sorted(resources))]


def _header(node: Obj, inputs: NodePageInputs) -> list[str]:
    meta, spec, status = node.get("metadata") or {}, node.get("spec") or {}, node.get("status") or {}
    labels = meta.get("labels") or {}
    taints = sorted(spec.get("taints") or (), key=lambda t: f"{t.get('effect', '')},{t.get('key', '')}")
    lines = [f"Name:\t{meta.get('name', '')}", f"Roles:\t{_roles(labels)}",
             *map_lines("Labels", labels),
             *annotation_lines(meta.get("annotations") or {}),
             f"CreationTimestamp:\t{rfc1123z(meta['creationTimestamp'])}",
             *multiline("Taints", [_taint(t) for t in taints]),
             f"Unschedulable:\t{'true' if spec.get('unschedulable') else 'false'}",
             *_lease(inputs.lease, meta.get("name", "")), *_conditions(status.get("conditions") or []),
             "Addresses:",
             *(f"  {a.get('type', '')}:\t{a.get('address', '')}" for a in status.get("addresses") or ()),
             *_resources("Capacity", status.get("capacity")),
             *_resources("Allocatable", status.get("allocatable")),
             *inputs.slices, "System Info:"]
    info = status.get("nodeInfo") or {}
    lines += [f"  {title}:\t{info.get(key, '')}" for title, key in _SYSTEM_INFO]
    if spec.get("podCIDR"):
        lines.append(f"PodCIDR:\t{spec['podCIDR']}")
    if spec.get("podCIDRs"):
        lines.append(f"PodCIDRs:\t{','.join(spec['podCIDRs'])}")
    if spec.get("providerID"):
        lines.append(f"ProviderID:\t{spec['providerID']}")
    return lines


def node_page(node: Obj, inputs: NodePageInputs, now: datetime) -> str:
    """The whole ``kubectl describe node`` text (without a trailing newline)."""
    return page_and_events([*_header(node, inputs), *inputs.usage], inputs.events, now)


def describe_node_page(reader: DescribeReader, node: Obj) -> str:
    """The core family's Node page: what kubectl reads besides the node (its non-terminated pods by
    field selector, its Lease, the ResourceSlices local to it, its events; and, kbatch's addition, the
    claims its pods hold), then :func:`node_page`."""
    meta = node.get("metadata") or {}
    name = meta.get("name", "")
    pods = reader.list("pods", NODE_POD_SELECTOR.format(name))
    claims = reader.list("resourceclaims.resource.k8s.io") if pods else []
    slices = [s for s in reader.list("resourceslices.resource.k8s.io")
              if (s.get("spec") or {}).get("nodeName") == name]
    events = [e for e in reader.list("events")
              if (e.get("involvedObject") or {}).get("kind") == "Node"
              and (e.get("involvedObject") or {}).get("name") == name
              and (e.get("involvedObject") or {}).get("uid") in (meta.get("uid"), name)]
    now = reader.now()
    usage = node_usage_lines(node, pods, now, allocated_device_rows(claims, pods))
    lease = reader.get("leases", "kube-node-lease", name)
    return node_page(node, NodePageInputs(lease, events, usage, slice_pool_rows(slices)), now)
