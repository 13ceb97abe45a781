"""DRA devices per DeviceClass: which classes accept each published device, as ``deviceclass/<name>``.

A DeviceClass (resource.k8s.io/v1, k8s.io/api ``resource/v1/types.go`` ``DeviceClassSpec``) selects
devices with CEL ``selectors``; every selector must accept a device for the class to (no selectors:
every device). A device thus belongs to every class whose selectors all accept it — one device may
count for several classes, or for none. The selectors are evaluated by kbatch's CEL library as the
allocator evaluates a class's selectors (:mod:`kbatch.api.cel`, upstream
``k8s.io/dynamic-resource-allocation/cel/compile.go``): the device as ``device.driver``,
``device.attributes``, ``device.capacity``, ``device.allowMultipleAllocations``. A selector that fails
at run time on a device (a missing attribute without ``has()``/``.?``) does not accept it (upstream's
allocator stops with that error instead; a report has nothing to stop); a class whose selector does
not compile (the API server refuses one; a file may hold one) accepts nothing.

Capacity of a class on a node: the node's published devices (:func:`~kbatch.reporting.devices.
published_devices`) it accepts. Use: the allocated devices (``status.allocation.devices.results``:
driver, pool, device) it accepts, looked up among the published ones; a result naming a device no
slice publishes any more counts for no class. Allocation results with ``adminAccess`` are no use,
per class as per driver (:mod:`~kbatch.reporting.admin_access` reports them apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kbatch.reporting.wire import Obj, meta, ref_of

__all__ = ["CLASS_PREFIX", "DeviceClasses", "DeviceKey", "PublishedDevice", "class_resource"]

CLASS_PREFIX = "deviceclass/"

DeviceKey = tuple[str, str, str]  # (driver, pool, device)
PublishedDevice = tuple[str, str, str, Obj]  # (driver, pool, node, the device as published)


def class_resource(name: str) -> str:
    return f"{CLASS_PREFIX}{name}"


@dataclass(frozen=True, slots=True)
class _Class:
    name: str
    expressions: tuple[str, ...]


def _classes(objects: Iterable[Obj]) -> list[_Class]:
    out = []
    for obj in objects:
        if ref_of(obj)[:2] != ("resource.k8s.io", "DeviceClass"):
            continue
        selectors = (obj.get("spec") or {}).get("selectors") or ()
        expressions = tuple(str((s.get("cel") or {}).get("expression") or "") for s in selectors
                            if isinstance(s, Mapping))
        out.append(_Class(str(meta(obj).get("name")), expressions))
    return sorted(out, key=lambda c: c.name)


def _accepts(expressions: Sequence[str], device: Obj, driver: str) -> bool:
    from kbatch.api.cel import CompileError, DeviceInput, SelectorRuntimeError, compile_selector
    from kbatch.api.cel import prepare_device as prepare
    from kbatch.api.resource_v1.device import Device

    if not expressions:
        return True
    try:
        model = Device.model_validate(device)
        prepared = prepare(DeviceInput(driver, model.attributes or {},
                                              {n: c.value for n, c in (model.capacity or {}).items()},
                                              bool(model.allow_multiple_allocations)))
        return all(compile_selector(e).matches(prepared) for e in expressions)
    except (CompileError, SelectorRuntimeError, ValueError):
        return False


class DeviceClasses:
    """The classes of every published device; empty when the objects hold no DeviceClass."""

    def __init__(self, objects: Iterable[Obj], devices: Iterable[PublishedDevice]) -> None:
        """``devices``: (driver, pool, node, device dict) of every published device."""
        classes = _classes(objects)
        self._of: dict[DeviceKey, tuple[str, ...]] = {}
        if not classes:
            return
        for driver, pool, _node, device in devices:
            key = (driver, pool, str(device.get("name")))
            self._of[key] = tuple(class_resource(c.name) for c in classes
                                  if _accepts(c.expressions, device, driver))

    def of(self, key: DeviceKey) -> tuple[str, ...]:
        """The ``deviceclass/<name>`` resources the device ``(driver, pool, device)`` counts for."""
        return self._of.get(key, ())
