"""Extended resources backed by DRA (KEP-5004, ``DRAExtendedResource``, GA and locked in 1.37): which
DeviceClass an extended resource name maps to, and the device requests of a pod's special claim.

Upstream: ``k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache`` (the resolver),
``pkg/scheduler/util`` ``IsDRAExtendedResourceName`` and
``pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go``
(``createRequestsAndMappings``, ``createResourceRequestAndMappings``, ``partitionContainerIndices``).

* A name is DRA-extended when it is an extended resource name (``example.com/gpu``) or the implicit
  ``deviceclass.resource.kubernetes.io/<class>``.
* The implicit name maps to the class of that name; an explicit name to the classes whose
  ``spec.extendedResourceName`` is it: the one created last, on a tie the first by name (the field's
  documented rule).
* Requests: per resource (sorted by name), each long-lived container (regular or sidecar) that
  requests it gets its own ``container-<i>-request-<j>`` (``i`` its index among init then regular
  containers, ``j`` the resource's index among the container's sorted request names) for the whole
  quantity; a short-lived init container first reuses the requests of long-lived containers at or
  after its index, and asks only for the rest; of those short-lived requests only the largest is
  kept, and every short-lived mapping is rewritten to it. Requests are sorted by name.

Everything here is pure: the caller passes the classes and the pod's containers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kbatch.api.resource_v1 import DeviceClass, DeviceRequest, ExactDeviceRequest
from kbatch.api.resource_v1.constants import DEVICE_CLASS_PREFIX
from kbatch.api.validation import is_extended_resource_name

__all__ = [
    "ContainerInfo",
    "ExtendedIndex",
    "RequestMapping",
    "is_dra_extended_name",
    "requests_and_mappings",
    "selected_device_class",
]


def is_dra_extended_name(name: str) -> bool:
    """Upstream ``schedutil.IsDRAExtendedResourceName``."""
    return name.startswith(DEVICE_CLASS_PREFIX) or is_extended_resource_name(name)


class ExtendedIndex:
    """Extended resource name → the DeviceClass it maps to (upstream ``DeviceClassResolver``), built
    from the classes the caller knows."""

    def __init__(self, classes: Iterable[DeviceClass]) -> None:
        self._by_name: dict[str, DeviceClass] = {}
        explicit: dict[str, list[DeviceClass]] = {}
        for dc in classes:
            name = dc.metadata.name or ""
            self._by_name[name] = dc
            mapped = dc.spec.extended_resource_name if dc.spec is not None else None
            if mapped:
                explicit.setdefault(mapped, []).append(dc)
        self._explicit = {name: selected_device_class(found) for name, found in explicit.items()}

    def resolve(self, name: str) -> DeviceClass | None:
        if name.startswith(DEVICE_CLASS_PREFIX):
            return self._by_name.get(name[len(DEVICE_CLASS_PREFIX):])
        return self._explicit.get(name)

    def __bool__(self) -> bool:
        return bool(self._by_name)


def selected_device_class(classes: Iterable[DeviceClass]) -> DeviceClass:
    """The class created last; on a tie, the first by name (``DeviceClassSpec.extendedResourceName``)."""
    return min(classes, key=lambda dc: (-_created(dc), dc.metadata.name or ""))


def _created(dc: DeviceClass) -> int:
    ts = dc.metadata.creation_timestamp
    return int(ts.timestamp()) if ts is not None else 0


@dataclass(frozen=True, slots=True)
class ContainerInfo:
    """One container as the mapping needs it: its name, whether it is a short-lived init container
    (an init container that is not a sidecar) and its requests, sorted by name."""

    name: str
    short_lived: bool
    requests: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class RequestMapping:
    """``ContainerExtendedResourceRequest``: container and resource → request of the special claim."""

    container: str
    resource: str
    request: str


def _container_request(
    index: int, container: ContainerInfo, resource: str, class_name: str,
    reusable: list[DeviceRequest | None],
) -> tuple[DeviceRequest | None, list[RequestMapping]]:
    """``createResourceRequestAndMappings``: the container's request for ``resource`` (None when it
    asks none, or ``reusable`` requests cover it) and its mappings."""
    wanted = dict(container.requests).get(resource, 0)
    if wanted <= 0:
        return None, []
    mappings: list[RequestMapping] = []
    covered = 0
    for other in reusable:
        if other is None:
            continue
        assert other.exactly is not None
        covered += other.exactly.count or 0
        mappings.append(RequestMapping(container.name, resource, other.name))
        if covered >= wanted:
            return None, mappings
    position = [name for name, _ in container.requests].index(resource)
    name = f"container-{index}-request-{position}"
    request = DeviceRequest(name=name, exactly=ExactDeviceRequest(
        device_class_name=class_name, allocation_mode="ExactCount", count=wanted - covered))
    mappings.append(RequestMapping(container.name, resource, name))
    return request, mappings


def _resource_requests(
    containers: tuple[ContainerInfo, ...], resource: str, class_name: str,
) -> tuple[list[DeviceRequest], list[RequestMapping]]:
    """One resource's requests and mappings: long-lived containers first, then the short-lived
    init containers' largest request (``createRequestsAndMappings``' loop body)."""
    long_requests: list[DeviceRequest | None] = [None] * len(containers)
    long_mappings: list[RequestMapping] = []
    for i, c in enumerate(containers):
        if not c.short_lived:
            long_requests[i], found = _container_request(i, c, resource, class_name, [])
            long_mappings.extend(found)
    largest: DeviceRequest | None = None
    short_names: set[str] = set()
    short_mappings: list[RequestMapping] = []
    for i, c in enumerate(containers):
        if not c.short_lived:
            continue
        request, found = _container_request(i, c, resource, class_name, long_requests[i:])
        if request is not None:
            short_names.add(request.name)
            if largest is None or _count(largest) < _count(request):
                largest = request
        short_mappings.extend(found)
    if largest is not None and len(short_names) > 1:
        short_names.discard(largest.name)
        name = largest.name
        short_mappings = [RequestMapping(m.container, m.resource, name) if m.request in short_names else m
                          for m in short_mappings]
    requests = ([largest] if largest is not None else []) + [r for r in long_requests if r is not None]
    return requests, long_mappings + short_mappings


def _count(request: DeviceRequest) -> int:
    return (request.exactly.count or 0) if request.exactly is not None else 0


def requests_and_mappings(
    containers: tuple[ContainerInfo, ...], resources: Mapping[str, int],
    resolve: Callable[[str], DeviceClass | None],
) -> tuple[list[DeviceRequest], list[RequestMapping]]:
    """``createRequestsAndMappings``: the special claim's requests for ``resources`` (the extended
    resources this node must provide through DRA) and the container mappings."""
    requests: list[DeviceRequest] = []
    mappings: list[RequestMapping] = []
    for resource in sorted(resources):
        dc = resolve(resource)
        if dc is None:
            continue
        found, mapped = _resource_requests(containers, resource, dc.metadata.name or "")
        requests.extend(found)
        mappings.extend(mapped)
    requests.sort(key=lambda r: r.name)
    return requests, mappings
