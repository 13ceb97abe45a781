"""The Kueue Configuration's ``resources.deviceClassMappings``: decoding and validation.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``
(``DeviceClassMapping``: ``name``, ``deviceClassNames``, ``sources``; ``DeviceClassCounterSource``
and ``DeviceClassCapacitySource``: ``name``, ``driver``, ``deviceSelector``) and
``pkg/config/validation.go`` (``validateDeviceClassMappings``, ``validateDeviceClassSource``,
``counterNameForMapping``, ``validateQualifiedName``): at most 16 mappings; each name and device
class name a qualified name (``content.IsLabelKey``) of at most 253 characters; names unique; 1 to
8 device class names per mapping, unique within it; a DeviceClass in one mapping only, unless every
mapping naming it has a counter source first and their counter names differ (each tracks another
counter of the same devices). ``sources`` entries must set exactly one of ``counter`` and
``capacity``, and a mapping may not mix the two; counter sources need
``KueueDRAIntegrationPartitionableDevices`` (beta, on), capacity sources
``KueueDRAIntegrationConsumableCapacity`` (alpha, off). A counter's ``name`` is a DNS label, a
capacity's a DRA qualified name; a source's ``driver`` a DNS subdomain of at most 63 characters;
its ``deviceSelector.cel.expression`` is required and must compile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, ClassVar

from kbatch.api.base import KubeModel
from kbatch.api.cel import CompileError, compile_selector
from kbatch.api.errors import FieldError
from kbatch.api.gotypes import GoType, ResourceName
from kbatch.api.resource_v1.claim import DeviceSelector
from kbatch.api.strategies.resource.common import validate_qualified_name
from kbatch.api.validation import is_dns1123_label, is_dns1123_subdomain, is_qualified_name

__all__ = ["DeviceClassMapping", "DeviceClassMappingModel", "DeviceSource", "device_class_mappings"]

PATH = "resources.deviceClassMappings"
MAX_MAPPINGS = 16
MAX_CLASSES = 8
MAX_NAME = 253
MAX_DRIVER = 63  # resourcev1.DriverNameMaxLength


class SourceModel(KubeModel):
    name: str = ""
    driver: str = ""
    device_selector: DeviceSelector | None = None


class CounterSource(SourceModel):
    go_type: ClassVar[GoType] = GoType("DeviceClassCounterSource")


class CapacitySource(SourceModel):
    go_type: ClassVar[GoType] = GoType("DeviceClassCapacitySource")

    name: Annotated[str, GoType("QualifiedName", "v1")] = ""  # resourcev1.QualifiedName


class DeviceClassSource(KubeModel):
    go_type: ClassVar[GoType] = GoType("DeviceClassSourceConfig")

    counter: CounterSource | None = None
    capacity: CapacitySource | None = None


class DeviceClassMappingModel(KubeModel):
    go_type: ClassVar[GoType] = GoType("DeviceClassMapping")

    name: ResourceName = ""
    device_class_names: list[ResourceName] | None = None
    sources: list[DeviceClassSource] | None = None


@dataclass(frozen=True, slots=True)
class DeviceSource:
    """One settled counter or capacity source: the counter (or capacity dimension) ``name`` of
    ``driver``'s devices that ``selector`` (a CEL expression) scopes."""

    name: str
    driver: str
    selector: str


@dataclass(frozen=True, slots=True)
class DeviceClassMapping:
    """One settled mapping: the quota resource ``name`` the DeviceClasses count as, and its counter
    and capacity sources (in order)."""

    name: str
    device_class_names: tuple[str, ...]
    counters: tuple[DeviceSource, ...] = ()
    capacity: tuple[DeviceSource, ...] = ()

    @property
    def counter_drivers(self) -> tuple[str, ...]:
        return tuple(s.driver for s in self.counters)

    @property
    def capacity_drivers(self) -> tuple[str, ...]:
        return tuple(s.driver for s in self.capacity)


def _name_errors(path: str, value: str) -> list[FieldError]:
    errs = []
    problems = is_qualified_name(value)
    if problems:
        errs.append(FieldError.invalid(path, value, "; ".join(problems)))
    if len(value) > MAX_NAME:
        errs.append(FieldError.invalid(path, value, f"must not exceed {MAX_NAME} characters"))
    return errs


def _selector_errors(driver: str, selector: DeviceSelector | None, path: str) -> list[FieldError]:
    """``validateDeviceClassSource``: the source's driver and its CEL device selector."""
    errs = []
    if not driver:
        errs.append(FieldError.required(f"{path}.driver"))
    elif len(driver) > MAX_DRIVER:
        errs.append(FieldError.invalid(f"{path}.driver", driver, f"must not exceed {MAX_DRIVER} characters"))
    elif problems := is_dns1123_subdomain(driver):
        errs.append(FieldError.invalid(f"{path}.driver", driver, ",".join(problems)))
    spath = f"{path}.deviceSelector.cel.expression"
    expression = selector.cel.expression if selector is not None and selector.cel is not None else ""
    if not expression:
        errs.append(FieldError.required(spath))
    else:
        try:
            compile_selector(expression)
        except CompileError as err:
            errs.append(FieldError.invalid(spath, expression, f"CEL compilation failed: {err}"))
    return errs


def _counter_errors(source: SourceModel, path: str) -> list[FieldError]:
    if not source.name:
        errs = [FieldError.required(f"{path}.name")]
    else:
        problems = is_dns1123_label(source.name)
        errs = [FieldError.invalid(f"{path}.name", source.name, ",".join(problems))] if problems else []
    return errs + _selector_errors(source.driver, source.device_selector, path)


def _capacity_errors(source: SourceModel, path: str) -> list[FieldError]:
    return validate_qualified_name(source.name, f"{path}.name") + _selector_errors(
        source.driver, source.device_selector, path
    )


# each source type: its field, the gate it needs, its own checks
_SOURCE_TYPES = (("counter", "KueueDRAIntegrationPartitionableDevices", _counter_errors),
                 ("capacity", "KueueDRAIntegrationConsumableCapacity", _capacity_errors))


def _source_errors(
    path: str, sources: list[DeviceClassSource], gate: Callable[[str], bool]
) -> list[FieldError]:
    errs = []
    used: set[str] = set()
    for i, source in enumerate(sources):
        spath = f"{path}.sources[{i}]"
        set_types = [t for t in _SOURCE_TYPES if getattr(source, t[0]) is not None]
        if not set_types:
            errs.append(FieldError.required(spath, "exactly one source type must be set per entry"))
            continue
        if len(set_types) > 1:
            errs.append(
                FieldError.invalid(spath, "counter+capacity", "exactly one source type must be set per entry")
            )
            continue
        kind, gate_name, check = set_types[0]
        used.add(kind)
        if not gate(gate_name):
            detail = f"{kind} sources require {gate_name} to be enabled"
            errs.append(FieldError.invalid(f"{spath}.{kind}", True, detail))
        else:
            errs += check(getattr(source, kind), f"{spath}.{kind}")
    if len(used) > 1:
        errs.append(
            FieldError.invalid(
                f"{path}.sources", len(sources), "cannot mix counter and capacity sources in the same mapping"
            )
        )
    return errs


def _settled(source: SourceModel) -> DeviceSource:
    sel = source.device_selector
    return DeviceSource(source.name, source.driver, sel.cel.expression if sel is not None and sel.cel else "")


def _mapping(m: DeviceClassMappingModel) -> DeviceClassMapping:
    sources = m.sources or []
    return DeviceClassMapping(
        m.name,
        tuple(m.device_class_names or ()),
        tuple(_settled(s.counter) for s in sources if s.counter is not None and s.capacity is None),
        tuple(_settled(s.capacity) for s in sources if s.capacity is not None and s.counter is None),
    )


def _counter_name(m: DeviceClassMappingModel) -> str:
    """``counterNameForMapping``: the first source's counter name, if the first source is a counter."""
    first = m.sources[0] if m.sources else None
    return first.counter.name if first is not None and first.counter is not None else ""


@dataclass(slots=True)
class _Owners:
    """Per DeviceClass, the first mapping naming it and the counter names mapped to it so far."""

    resource: dict[str, str]
    counters: dict[str, set[str]]

    def conflict(self, dc: str, mapping: str, counter: str) -> str | None:
        first = self.resource.setdefault(dc, mapping)
        if first == mapping:
            if counter:
                self.counters.setdefault(dc, set()).add(counter)
            return None
        seen = self.counters.setdefault(dc, set())
        if not counter or not seen:
            return f"device class already mapped to resource {first}"
        if counter in seen:
            return f'device class already has a counter source for counter "{counter}"'
        seen.add(counter)
        return None


def _class_errors(path: str, m: DeviceClassMappingModel, owners: _Owners) -> list[FieldError]:
    errs: list[FieldError] = []
    classes = m.device_class_names or []
    if not classes:
        detail = "at least one device class name is required"
        errs.append(FieldError.required(f"{path}.deviceClassNames", detail))
    if len(classes) > MAX_CLASSES:
        errs.append(FieldError.too_many(f"{path}.deviceClassNames", len(classes), MAX_CLASSES))
    seen: set[str] = set()
    for ci, dc in enumerate(classes):
        dpath = f"{path}.deviceClassNames[{ci}]"
        errs += _name_errors(dpath, dc)
        if dc in seen:
            errs.append(FieldError.duplicate(dpath, dc))
        seen.add(dc)
        problem = owners.conflict(dc, m.name, _counter_name(m))
        if problem is not None:
            errs.append(FieldError.invalid(dpath, dc, problem))
    return errs


def device_class_mappings(
    models: list[DeviceClassMappingModel] | None, gate: Callable[[str], bool], errs: list[FieldError]
) -> tuple[DeviceClassMapping, ...]:
    """The settled mappings; each problem is appended to ``errs`` in upstream's order."""
    models = models or []
    if len(models) > MAX_MAPPINGS:
        errs.append(FieldError.too_many(PATH, len(models), MAX_MAPPINGS))
    seen_names: set[str] = set()
    owners = _Owners({}, {})
    for idx, m in enumerate(models):
        path = f"{PATH}[{idx}]"
        errs += _name_errors(f"{path}.name", m.name)
        if m.name in seen_names:
            errs.append(FieldError.duplicate(f"{path}.name", m.name))
        seen_names.add(m.name)
        errs += _class_errors(path, m, owners)
        errs += _source_errors(path, m.sources or [], gate)
    return tuple(_mapping(m) for m in models)
