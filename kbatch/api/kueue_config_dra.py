"""The Kueue Configuration's ``resources.deviceClassMappings``: decoding and validation.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``
(``DeviceClassMapping``: ``name``, ``deviceClassNames``, ``sources``) and
``pkg/config/validation.go`` (``validateDeviceClassMappings``): at most 16 mappings; each name and
device class name a qualified name (``content.IsLabelKey``) of at most 253 characters; names
unique; 1 to 8 device class names per mapping, unique within it; a DeviceClass in one mapping only
(upstream allows a second mapping only for a different counter source, which needs
ResourceSlice counters kbatch does not account: see docs/kueue.md). ``sources`` entries must set
exactly one of ``counter`` and ``capacity``; capacity sources need
``KueueDRAIntegrationConsumableCapacity`` (off by default). kbatch keeps each source's ``driver``
(``DeviceClassCounterSource.Driver``, ``DeviceClassCapacitySource.Driver``): the ResourceSlice
reconciler watches those drivers and the selector check lists their slices, but kbatch does not
count counters or capacity: such a mapping counts devices like one without sources.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.api.base import KubeModel
from kbatch.api.errors import FieldError
from kbatch.api.validation import is_qualified_name

__all__ = ["DeviceClassMapping", "DeviceClassMappingModel", "device_class_mappings"]

PATH = "resources.deviceClassMappings"
MAX_MAPPINGS = 16
MAX_CLASSES = 8
MAX_NAME = 253


class DeviceClassSource(KubeModel):
    counter: dict[str, Any] | None = None
    capacity: dict[str, Any] | None = None


class DeviceClassMappingModel(KubeModel):
    name: str = ""
    device_class_names: list[str] | None = None
    sources: list[DeviceClassSource] | None = None


@dataclass(frozen=True, slots=True)
class DeviceClassMapping:
    """One settled mapping: the quota resource ``name`` the DeviceClasses count as."""

    name: str
    device_class_names: tuple[str, ...]
    counter_drivers: tuple[str, ...] = ()  # ``sources[].counter.driver``, in order
    capacity_drivers: tuple[str, ...] = ()  # ``sources[].capacity.driver``, in order


def _name_errors(path: str, value: str) -> list[FieldError]:
    errs = []
    problems = is_qualified_name(value)
    if problems:
        errs.append(FieldError.invalid(path, value, "; ".join(problems)))
    if len(value) > MAX_NAME:
        errs.append(FieldError.invalid(path, value, f"must not exceed {MAX_NAME} characters"))
    return errs


def _source_errors(
    path: str, sources: list[DeviceClassSource], gate: Callable[[str], bool]
) -> list[FieldError]:
    errs = []
    for i, source in enumerate(sources):
        spath = f"{path}.sources[{i}]"
        if source.counter is None and source.capacity is None:
            errs.append(FieldError.required(spath, "exactly one source type must be set per entry"))
        elif source.counter is not None and source.capacity is not None:
            errs.append(
                FieldError.invalid(spath, "counter+capacity", "exactly one source type must be set per entry")
            )
        elif source.counter is not None and not gate("KueueDRAIntegrationPartitionableDevices"):
            errs.append(
                FieldError.invalid(
                    f"{spath}.counter",
                    True,
                    "counter sources require KueueDRAIntegrationPartitionableDevices to be enabled",
                )
            )
        elif source.capacity is not None and not gate("KueueDRAIntegrationConsumableCapacity"):
            errs.append(
                FieldError.invalid(
                    f"{spath}.capacity",
                    True,
                    "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled",
                )
            )
    return errs


def _drivers(sources: list[DeviceClassSource]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    counters = tuple(str(s.counter.get("driver") or "") for s in sources if s.counter is not None)
    capacity = tuple(str(s.capacity.get("driver") or "") for s in sources if s.capacity is not None)
    return counters, capacity


def device_class_mappings(
    models: list[DeviceClassMappingModel] | None, gate: Callable[[str], bool], errs: list[FieldError]
) -> tuple[DeviceClassMapping, ...]:
    """The settled mappings; each problem is appended to ``errs`` in upstream's order."""
    models = models or []
    if len(models) > MAX_MAPPINGS:
        errs.append(FieldError.too_many(PATH, len(models), MAX_MAPPINGS))
    seen_names: set[str] = set()
    owner: dict[str, str] = {}  # device class -> the first mapping's name
    out = []
    for idx, m in enumerate(models):
        path = f"{PATH}[{idx}]"
        errs += _name_errors(f"{path}.name", m.name)
        if m.name in seen_names:
            errs.append(FieldError.duplicate(f"{path}.name", m.name))
        seen_names.add(m.name)
        classes = m.device_class_names or []
        if not classes:
            errs.append(
                FieldError.required(f"{path}.deviceClassNames", "at least one device class name is required")
            )
        if len(classes) > MAX_CLASSES:
            errs.append(FieldError.too_many(f"{path}.deviceClassNames", len(classes), MAX_CLASSES))
        seen_classes: set[str] = set()
        for ci, dc in enumerate(classes):
            dpath = f"{path}.deviceClassNames[{ci}]"
            errs += _name_errors(dpath, dc)
            if dc in seen_classes:
                errs.append(FieldError.duplicate(dpath, dc))
            seen_classes.add(dc)
            first = owner.setdefault(dc, m.name)
            if first != m.name:
                errs.append(FieldError.invalid(dpath, dc, f"device class already mapped to resource {first}"))
        errs += _source_errors(path, m.sources or [], gate)
        out.append(DeviceClassMapping(m.name, tuple(classes), *_drivers(m.sources or [])))
    return tuple(out)
