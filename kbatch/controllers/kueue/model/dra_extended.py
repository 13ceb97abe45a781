"""Extended resources backed by DRA DeviceClasses, as Kueue counts them against quota
(``KueueDRAIntegrationExtendedResource``, beta and on by default since v0.19).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/dra/extended_resources.go``
(``NeedsDRAReconcile``'s extended-resource half, ``selectedDeviceClass``,
``extendedResourceRequests``, ``resolveQuotaKey``, ``ResolveExtendedResourceQuota``) and
``pkg/dra/extended_resource_cache.go`` (``ExtendedResourceCache``).

A container's positive request for an extended resource (``example.com/gpu``) that a DeviceClass
names in ``spec.extendedResourceName`` is DRA-backed. Per pod set, init containers combine by max
and regular containers by sum, then the two by max, per original name. Each name resolves to the
DeviceClass the kube-scheduler would allocate from (the latest created; on a tie, the first by
name); its ``deviceClassMappings`` resource is the quota key, else the extended resource's own name.
The name is then *replaced* in the pod set's requests by the key (:class:`ExtendedOutcome`). A name
whose class has counter (``KueueDRAIntegrationPartitionableDevices``) or capacity
(``KueueDRAIntegrationConsumableCapacity``) sources is refused, as is a fractional request.
Everything is pure: the caller passes the DeviceClasses naming each extended resource.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from kbatch.api.core_v1 import Container
from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.api.validation import is_extended_resource_name
from kbatch.controllers.dra.extended import selected_device_class  # the kube-scheduler's rule, shared

__all__ = [
    "ClassesFor",
    "ExtendedOutcome",
    "ExtendedResourceCache",
    "requests_extended",
    "resolve_extended",
    "selected_device_class",
]

INT64_MAX = (1 << 63) - 1

ClassesFor = Callable[[str], Sequence[DeviceClass]]
"""An extended resource name → the DeviceClasses whose ``spec.extendedResourceName`` is it."""


class ExtendedResourceCache:
    """``ExtendedResourceCache``: extended resource name → the DeviceClasses declaring it, kept by
    the DeviceClass handler (a name stays while one class still backs it)."""

    __slots__ = ("resources",)

    def __init__(self) -> None:
        self.resources: dict[str, set[str]] = {}

    def has(self, name: str) -> bool:
        return bool(self.resources.get(name))

    def add(self, name: str, device_class: str) -> None:
        self.resources.setdefault(name, set()).add(device_class)

    def remove(self, name: str, device_class: str) -> None:
        names = self.resources.get(name)
        if names is not None:
            names.discard(device_class)
            if not names:
                del self.resources[name]


def _containers(wl: Workload) -> Iterator[tuple[int, str, int, Container]]:
    for i, ps in enumerate((wl.spec.pod_sets if wl.spec else None) or ()):
        spec = ps.template.spec if ps.template else None
        if spec is None:
            continue
        for j, c in enumerate(spec.init_containers or ()):
            yield i, "initContainers", j, c
        for j, c in enumerate(spec.containers or ()):
            yield i, "containers", j, c


def _positive_extended(c: Container) -> dict[str, Quantity]:
    """``extendedResourceRequests``: positive requests of extended resource names."""
    requests = c.resources.requests if c.resources is not None else None
    return {
        name: q for name, q in (requests or {}).items() if q.sign() > 0 and is_extended_resource_name(name)
    }


def requests_extended(wl: Workload, cache: ExtendedResourceCache) -> bool:
    """``NeedsDRAReconcile``'s loop: a container requests a nonzero DRA-backed extended resource."""
    if not cache.resources:
        return False
    for *_, c in _containers(wl):
        requests = c.resources.requests if c.resources is not None else None
        for name, q in (requests or {}).items():
            if cache.has(name) and q.sign() != 0 and is_extended_resource_name(name):
                return True
    return False


@dataclass(frozen=True, slots=True)
class ExtendedOutcome:
    """Per pod set: the quota keys one pod adds (``requests``) and the extended resource names they
    replace (``replaced``); or the field ``errors``."""

    requests: dict[str, dict[str, int]] = field(default_factory=dict)
    replaced: dict[str, frozenset[str]] = field(default_factory=dict)
    errors: tuple[FieldError, ...] = ()


@dataclass(frozen=True, slots=True)
class _Entry:
    path: str
    resources: dict[str, Quantity]


def _quota_key(
    name: str,
    path: str,
    classes: Sequence[DeviceClass],
    mapping: Mapping[str, str],
    sourced: Callable[[str], str | None],
) -> tuple[str, FieldError | None]:
    """``resolveQuotaKey``: ``""`` when no DeviceClass backs ``name``."""
    if not classes:
        return "", None
    selected = selected_device_class(classes).metadata.name or ""
    logical = mapping.get(selected)
    if logical is None:
        return name, None
    kind = sourced(selected)
    if kind == "counter":
        detail = (
            f"extended resource {name} resolves to DeviceClass {selected} with counters configured;"
            " use ResourceClaimTemplates with CEL selectors for counter-based quota"
        )
        return "", FieldError.invalid(path, name, detail)
    if kind == "capacity":
        detail = (
            f"extended resource {name} resolves to DeviceClass {selected} with capacity sources configured;"
            " use ResourceClaimTemplates with capacity.requests for capacity-based quota"
        )
        return "", FieldError.invalid(path, name, detail)
    return logical, None


def _integer_errors(name: str, entries: Iterable[_Entry]) -> list[FieldError]:
    errs = []
    for e in entries:
        q = e.resources.get(name)
        if q is not None and q.as_fraction().denominator != 1:
            detail = "extended resource quantity must be an integer"
            errs.append(FieldError.invalid(f"{e.path}.resources.requests.{name}", str(q), detail))
    return errs


def _pod_set_entries(wl: Workload, index: int) -> tuple[list[_Entry], list[_Entry]]:
    inits: list[_Entry] = []
    regular: list[_Entry] = []
    for i, segment, j, c in _containers(wl):
        if i != index:
            continue
        res = _positive_extended(c)
        if res:
            entry = _Entry(f"spec.podSets[{i}].template.spec.{segment}[{j}]", res)
            (inits if segment == "initContainers" else regular).append(entry)
    return inits, regular


def _pod_totals(inits: list[_Entry], regular: list[_Entry]) -> dict[str, Fraction]:
    """Max over init containers, sum over regular ones, max of the two (per original name)."""
    init_max: dict[str, Fraction] = {}
    for e in inits:
        for name, q in e.resources.items():
            init_max[name] = max(init_max.get(name, Fraction(0)), q.as_fraction())
    total: dict[str, Fraction] = {}
    for e in regular:
        for name, q in e.resources.items():
            total[name] = total.get(name, Fraction(0)) + q.as_fraction()
    zero = Fraction(0)
    return {name: max(init_max.get(name, zero), total.get(name, zero)) for name in init_max | total}


def resolve_extended(
    wl: Workload,
    classes_for: ClassesFor,
    mapping: Mapping[str, str],
    sourced: Callable[[str], str | None],
) -> ExtendedOutcome:
    """``ResolveExtendedResourceQuota``. ``sourced(class)`` is ``"counter"`` or ``"capacity"`` when
    the class's mapping has such sources and their gate is on. Names go in sorted order (upstream
    walks a map)."""
    requests: dict[str, dict[str, int]] = {}
    replaced: dict[str, frozenset[str]] = {}
    errs: list[FieldError] = []
    for i, ps in enumerate((wl.spec.pod_sets if wl.spec else None) or ()):
        inits, regular = _pod_set_entries(wl, i)
        first_path: dict[str, str] = {}
        for e in inits + regular:
            for name in e.resources:
                first_path.setdefault(name, e.path)
        aggregated: dict[str, int] = {}
        names: set[str] = set()
        for name, total in sorted(_pod_totals(inits, regular).items()):
            path = f"{first_path[name]}.resources.requests.{name}"
            key, err = _quota_key(name, first_path[name], classes_for(name), mapping, sourced)
            if err is not None:
                errs.append(err)
                continue
            if not key:
                continue
            int_errs = _integer_errors(name, inits + regular)
            if int_errs:
                errs += int_errs
                continue
            if total > INT64_MAX:  # each container's fits, their sum may not
                detail = "total extended resource quantity overflows int64"
                errs.append(FieldError.invalid(path, str(total), detail))
                continue
            names.add(name)
            aggregated[key] = aggregated.get(key, 0) + int(total)
        ps_name = ps.name or "main"
        if aggregated:
            requests[ps_name] = aggregated
        if names:
            replaced[ps_name] = frozenset(names)
    if errs:
        return ExtendedOutcome(errors=tuple(errs))
    return ExtendedOutcome(requests, replaced)
