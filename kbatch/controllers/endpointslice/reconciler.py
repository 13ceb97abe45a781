"""The EndpointSlices a Service should have: a pure plan (k8s.io/endpointslice ``reconciler.go``
``Reconcile``, ``reconcileByAddressType``, ``reconcileByPortMapping``, ``finalize``; ``utils.go``
``podToEndpoint``, ``getEndpointPorts``, ``newEndpointSlice``, ``setEndpointSliceLabels``,
``getAddressTypesForService``).

1. The address types: the Service's ``ipFamilies`` (IPv4 for kbatch's single-stack range); slices of
   another type go.
2. Desired endpoints, grouped by their port set: every selected pod that should be in endpoints
   (terminating ones included) whose node exists (unless ``publishNotReadyAddresses``), with
   ``ready`` (serving and not terminating, or ``publishNotReadyAddresses``), ``serving`` (the pod is
   Ready), ``terminating``, ``nodeName``, the node's ``topology.kubernetes.io/zone``, ``hostname`` and
   the pod as ``targetRef``. An endpoint is known by its addresses, hostname and pod (``endpointset.go``).
3. Per port set: existing slices keep the endpoints still desired (updated when one changed), lose
   the others (deleted when empty); slices whose labels differ from the Service's are updated; the
   remaining endpoints fill the updated slices (fullest first), then one unchanged slice they fit in,
   then new slices of at most ``max_endpoints`` each.
4. Slices of port sets no longer desired go; with no slice left, one placeholder (no ports, no
   endpoints) is kept or created.
5. Creates turn into updates of slices that would be deleted (same address type, owned).

Where upstream picks from a set (``PopAny``, ``UnsortedList``), kbatch takes pods in key order and
slices by name, so the same cluster gives the same slices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.core_v1 import IS_HEADLESS_SERVICE, ObjectReference
from kbatch.api.discovery_v1 import (
    LABEL_MANAGED_BY,
    LABEL_SERVICE_NAME,
    Endpoint,
    EndpointConditions,
    EndpointPort,
    EndpointSlice,
)
from kbatch.api.frozen import edit
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.api.validation import name_is_dns1123_subdomain
from kbatch.controllers.endpointslice.pods import (
    find_port,
    is_pod_ready,
    pod_ips,
    should_be_in_endpoints,
    should_set_hostname,
)

__all__ = ["MAX_ENDPOINTS_PER_SLICE", "NodeLookup", "SlicePlan", "address_types", "desired_endpoints",
           "endpoint_key", "plan_slices", "slice_labels"]

MAX_ENDPOINTS_PER_SLICE = 100  # --max-endpoints-per-slice
ZONE_LABEL = "topology.kubernetes.io/zone"
_RESERVED = (LABEL_SERVICE_NAME, LABEL_MANAGED_BY, IS_HEADLESS_SERVICE)

# a node's name -> (exists, its zone label or None)
NodeLookup = Callable[[str], tuple[bool, str | None]]
_PortKey = tuple[tuple[str, str, int, str], ...]
_EndpointKey = tuple[tuple[str, ...], str, str, str]
_Group = tuple[list[EndpointPort], dict[_EndpointKey, Endpoint]]  # a port set's ports and endpoints


@dataclass
class SlicePlan:
    """What to write: slices to create (no name: ``generateName``), to update, to delete; ``missing_node``:
    a selected pod's node was not found (the sync is retried, as upstream's error)."""

    create: list[EndpointSlice] = field(default_factory=list)
    update: list[EndpointSlice] = field(default_factory=list)
    delete: list[EndpointSlice] = field(default_factory=list)
    missing_node: bool = False


def _ip_set(service: Any) -> bool:
    return service.spec.cluster_ip not in (None, "", "None")


def address_types(service: Any) -> list[str]:
    """``getAddressTypesForService``."""
    families = [f for f in service.spec.ip_families or () if f in ("IPv4", "IPv6")]
    if families:
        return sorted(set(families))
    if _ip_set(service):
        return ["IPv6" if ":" in service.spec.cluster_ip else "IPv4"]
    return ["IPv4", "IPv6"]


def slice_labels(current: dict[str, str] | None, service: Any,
                 controller: str) -> tuple[dict[str, str], bool]:
    """``setEndpointSliceLabels``: the Service's labels but the reserved ones, the headless label, the
    service name and managed-by; and whether the non-reserved labels differed."""
    mine = {k: v for k, v in (current or {}).items() if k not in _RESERVED}
    wanted = {k: v for k, v in (service.metadata.labels or {}).items() if k not in _RESERVED}
    changed = mine != wanted
    if not _ip_set(service):
        wanted[IS_HEADLESS_SERVICE] = ""
    wanted[LABEL_SERVICE_NAME] = service.metadata.name or ""
    wanted[LABEL_MANAGED_BY] = controller
    return wanted, changed


def _endpoint_ports(service: Any, pod: Any) -> list[EndpointPort]:
    """``getEndpointPorts``: one per Service port the pod has (a headless Service may have none)."""
    out: list[EndpointPort] = []
    for port in service.spec.ports or ():
        number = find_port(pod, port)
        if number is not None:
            out.append(EndpointPort(name=port.name or "", port=number, protocol=port.protocol,
                                    app_protocol=port.app_protocol))
    return out


def _port_key(ports: Sequence[EndpointPort]) -> _PortKey:
    return tuple(sorted((p.name or "", p.protocol or "", p.port or 0, p.app_protocol or "") for p in ports))


def endpoint_key(endpoint: Endpoint) -> _EndpointKey:
    """``hashEndpoint``: addresses (sorted), hostname, the target's namespace and name."""
    ref = endpoint.target_ref
    return (tuple(sorted(endpoint.addresses)), endpoint.hostname or "", (ref.namespace or "") if ref else "",
            (ref.name or "") if ref else "")


def _pod_endpoint(pod: Any, zone: str | None, service: Any, address_type: str) -> Endpoint:
    """``podToEndpoint``."""
    serving = is_pod_ready(pod)
    terminating = pod.metadata.deletion_timestamp is not None
    ready = bool(service.spec.publish_not_ready_addresses) or (serving and not terminating)
    family = 6 if address_type == "IPv6" else 4
    addresses = [ip for ip in pod_ips(pod) if (6 if ":" in ip else 4) == family]
    return Endpoint(
        addresses=addresses,
        conditions=EndpointConditions(ready=ready, serving=serving, terminating=terminating),
        target_ref=ObjectReference(kind="Pod", namespace=pod.metadata.namespace, name=pod.metadata.name,
                                   uid=pod.metadata.uid),
        node_name=pod.spec.node_name or None, zone=zone,
        hostname=pod.spec.hostname if should_set_hostname(pod, service) else None)


def desired_endpoints(service: Any, pods: Sequence[Any], nodes: NodeLookup, address_type: str
                      ) -> tuple[dict[_PortKey, _Group], bool]:
    """Step 2: port set -> (its ports, its endpoints by key); and whether a pod's node was missing."""
    out: dict[_PortKey, _Group] = {}
    missing = False
    for pod in pods:
        if not should_be_in_endpoints(pod, True):
            continue
        ports = _endpoint_ports(service, pod)
        group = out.setdefault(_port_key(ports), (ports, {}))
        exists, zone = nodes(pod.spec.node_name or "")
        if not exists and not service.spec.publish_not_ready_addresses:
            missing = True
            continue
        endpoint = _pod_endpoint(pod, zone, service, address_type)
        if endpoint.addresses:
            group[1][endpoint_key(endpoint)] = endpoint
    return out, missing


def _owned(eps: EndpointSlice, service: Any) -> bool:
    return any(r.uid == service.metadata.uid and r.kind == "Service" and r.api_version == "v1"
               for r in eps.metadata.owner_references or ())


def _prefix(name: str) -> str:
    """``getEndpointSlicePrefix``."""
    return f"{name}-" if not name_is_dns1123_subdomain(f"{name}-", True) else name


def new_slice(service: Any, ports: list[EndpointPort], address_type: str, controller: str) -> EndpointSlice:
    """``newEndpointSlice``: generateName ``<service>-``, the Service as controller owner."""
    labels, _ = slice_labels({}, service, controller)
    owner = OwnerReference(api_version="v1", kind="Service", name=service.metadata.name or "",
                           uid=service.metadata.uid or "", controller=True, block_owner_deletion=True)
    meta = ObjectMeta(generate_name=_prefix(service.metadata.name or ""),
                      namespace=service.metadata.namespace, labels=labels, owner_references=[owner])
    return EndpointSlice(metadata=meta, address_type=address_type, ports=list(ports) or None)


def _endpoints_equal(a: Endpoint, b: Endpoint) -> bool:
    """``EndpointsEqualBeyondHash``: node, zone, the three conditions and the target (its
    resourceVersion aside)."""
    ref_a = a.target_ref.model_copy(update={"resource_version": None}) if a.target_ref else None
    ref_b = b.target_ref.model_copy(update={"resource_version": None}) if b.target_ref else None
    return (a.node_name, a.zone, a.conditions, ref_a) == (b.node_name, b.zone, b.conditions, ref_b)


@dataclass
class _PortPlan:
    create: list[EndpointSlice] = field(default_factory=list)
    update: list[EndpointSlice] = field(default_factory=list)
    delete: list[EndpointSlice] = field(default_factory=list)


def _trim_existing(existing: list[EndpointSlice], desired: dict[_EndpointKey, Endpoint], service: Any,
                   controller: str) -> tuple[dict[str, EndpointSlice], list[str], list[str], list[str]]:
    """Step 3, first part: (slices by name, names to update, to delete, unchanged); takes the
    endpoints placed out of ``desired``."""
    by_name: dict[str, EndpointSlice] = {}
    to_update: list[str] = []
    to_delete: list[str] = []
    unchanged: list[str] = []
    for eps in existing:
        name = eps.metadata.name or ""
        by_name[name] = eps
        kept: list[Endpoint] = []
        updated = False
        for endpoint in eps.endpoints or ():
            got = desired.pop(endpoint_key(endpoint), None)
            if got is not None:
                kept.append(got)
                updated = updated or not _endpoints_equal(got, endpoint)
        labels, labels_changed = slice_labels(eps.metadata.labels, service, controller)
        if updated or len(kept) != len(eps.endpoints or ()):
            if not kept:
                to_delete.append(name)
                continue
            changed = edit(eps)
            changed.endpoints, changed.metadata.labels = kept, labels
            by_name[name] = changed
            to_update.append(name)
        elif labels_changed:
            changed = edit(eps)
            changed.metadata.labels = labels
            by_name[name] = changed
            to_update.append(name)
        else:
            unchanged.append(name)
    return by_name, to_update, to_delete, unchanged


def _slice_to_fill(slices: list[EndpointSlice], count: int, most: int) -> EndpointSlice | None:
    """``getSliceToFill``: the slice that ``count`` more endpoints bring closest to full."""
    best, best_diff = None, most
    for eps in slices:
        diff = most - (count + len(eps.endpoints or ()))
        if 0 <= diff < best_diff:
            best, best_diff = eps, diff
            if diff == 0:
                break
    return best


def _by_port_mapping(service: Any, existing: list[EndpointSlice], desired: dict[_EndpointKey, Endpoint],
                     ports: list[EndpointPort], address_type: str, controller: str, most: int) -> _PortPlan:
    """``reconcileByPortMapping`` (module docstring, step 3)."""
    by_name, to_update, to_delete, unchanged = _trim_existing(existing, desired, service, controller)
    remaining = list(desired.values())
    for name in sorted(to_update, key=lambda n: -len(by_name[n].endpoints or ())):  # fullest first
        eps = by_name[name]
        room = most - len(eps.endpoints or ())
        if room > 0 and remaining:
            eps.endpoints = [*(eps.endpoints or ()), *remaining[:room]]
            remaining = remaining[room:]
    plan = _PortPlan()
    while remaining:
        target = None
        if len(remaining) < most and unchanged:
            target = _slice_to_fill([by_name[n] for n in sorted(unchanged)], len(remaining), most)
        if target is None:
            target = new_slice(service, ports, address_type, controller)
        else:
            target = edit(target)
            by_name[target.metadata.name or ""] = target
        room = most - len(target.endpoints or ())
        target.endpoints = [*(target.endpoints or ()), *remaining[:room]]
        remaining = remaining[room:]
        if target.metadata.name:
            to_update.append(target.metadata.name)
            unchanged.remove(target.metadata.name)
        else:
            plan.create.append(target)
    plan.update = [by_name[n] for n in sorted(to_update)]
    plan.delete = [by_name[n] for n in sorted(to_delete)]
    return plan


def _is_placeholder_of(eps: EndpointSlice, placeholder: EndpointSlice) -> bool:
    """``placeholderSliceCompare``: same namespace, labels, owners, address type, no endpoints or ports."""
    return (eps.metadata.namespace == placeholder.metadata.namespace
            and (eps.metadata.labels or {}) == (placeholder.metadata.labels or {})
            and (eps.metadata.owner_references or []) == (placeholder.metadata.owner_references or [])
            and eps.address_type == placeholder.address_type and not eps.endpoints and not eps.ports)


def _by_address_type(service: Any, pods: Sequence[Any], nodes: NodeLookup, existing: list[EndpointSlice],
                     address_type: str, controller: str, most: int) -> SlicePlan:
    """``reconcileByAddressType``."""
    plan = SlicePlan()
    existing_by_ports: dict[_PortKey, list[EndpointSlice]] = {}
    for eps in existing:
        if _owned(eps, service):
            existing_by_ports.setdefault(_port_key(eps.ports or []), []).append(eps)
        else:
            plan.delete.append(eps)
    desired, plan.missing_node = desired_endpoints(service, pods, nodes, address_type)
    for key, (ports, endpoints) in desired.items():
        part = _by_port_mapping(service, existing_by_ports.get(key, []), endpoints, ports, address_type,
                                controller, most)
        plan.create += part.create
        plan.update += part.update
        plan.delete += part.delete
    for key, slices in existing_by_ports.items():
        if key not in desired:
            plan.delete += slices
    if len(existing) == len(plan.delete) and not plan.create:
        placeholder = new_slice(service, [], address_type, controller)
        if len(plan.delete) == 1 and _is_placeholder_of(plan.delete[0], placeholder):
            plan.delete = []
        else:
            plan.create.append(placeholder)
    return _finalize(plan, service)


def _finalize(plan: SlicePlan, service: Any) -> SlicePlan:
    """``finalize``'s first step: a create becomes the update of a slice that would go."""
    kept: list[EndpointSlice] = []
    for doomed in plan.delete:
        if plan.create and doomed.address_type == plan.create[-1].address_type and _owned(doomed, service):
            reuse, changed = plan.create.pop(), edit(doomed)
            changed.endpoints, changed.ports = reuse.endpoints, reuse.ports
            changed.metadata.labels = reuse.metadata.labels
            plan.update.append(changed)
        else:
            kept.append(doomed)
    plan.delete = kept
    return plan


def plan_slices(service: Any, pods: Sequence[Any], nodes: NodeLookup, existing: Sequence[EndpointSlice],
                controller: str, most: int = MAX_ENDPOINTS_PER_SLICE) -> SlicePlan:
    """``Reconcile``: the whole plan for one Service (module docstring)."""
    types = address_types(service)
    plan = SlicePlan()
    by_type: dict[str, list[EndpointSlice]] = {}
    for eps in sorted(existing, key=lambda e: e.metadata.name or ""):
        if eps.address_type in types:
            by_type.setdefault(eps.address_type, []).append(eps)
        else:
            plan.delete.append(eps)
    for address_type in types:
        part = _by_address_type(service, pods, nodes, by_type.get(address_type, []), address_type,
                                controller, most)
        plan.create += part.create
        plan.update += part.update
        plan.delete += part.delete
        plan.missing_node = plan.missing_node or part.missing_node
    return plan
