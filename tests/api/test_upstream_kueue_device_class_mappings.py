"""``validateDeviceClassMappings``, translated from kueue v0.19.2 ``pkg/config/validation_test.go``
(``TestValidateDeviceClassMappings``: the name and device class cases; upstream compares the error
types and fields only). The source cases are in ``test_upstream_kueue_dra_sources.py``."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import FieldErrorType, Invalid
from kbatch.api.kueue_config import load

INV, REQ = FieldErrorType.INVALID, FieldErrorType.REQUIRED
DUP, MANY = FieldErrorType.DUPLICATE, FieldErrorType.TOO_MANY
P = "resources.deviceClassMappings"


def _m(name: str, *classes: str) -> dict[str, Any]:
    return {"name": name, "deviceClassNames": list(classes)}


def _many(n: int) -> list[dict[str, Any]]:
    return [_m(f"resource-{i}", f"device-{i}.example.com") for i in range(n)]


LONG_253 = f"{'a' * 240}/{'b' * 12}"
LONG_255 = f"{'a' * 240}/{'b' * 14}"

CASES: dict[str, tuple[list[dict[str, Any]] | None, list[tuple[FieldErrorType, str]]]] = {
    "nil DRA config": (None, []),
    "empty DRA resources": ([], []),
    "valid single resource": ([_m("whole-foo", "foo.com/device")], []),
    "valid multiple resources": ([_m("whole-foo", "foo.com/device"), _m("whole-bar", "bar.com/device")], []),
    "empty device class names": ([_m("empty-devices")], [(REQ, f"{P}[0].deviceClassNames")]),
    "invalid device class name": (
        [_m("valid-name", "valid.com/device", "@invalid-device")],
        [(INV, f"{P}[0].deviceClassNames[1]")],
    ),
    "device class in two mappings": (
        [_m("first-resource", "foo.com/device"), _m("second-resource", "foo.com/device")],
        [(INV, f"{P}[1].deviceClassNames[0]")],
    ),
    "multiple errors": (
        [_m("@invalid"), _m("valid-name", "@invalid-device", "valid.com/device")],
        [(INV, f"{P}[0].name"), (REQ, f"{P}[0].deviceClassNames"), (INV, f"{P}[1].deviceClassNames[0]")],
    ),
    "duplicate device classes": (
        [_m("duplicate-devices", "foo.com/device", "bar.com/device", "foo.com/device")],
        [(DUP, f"{P}[0].deviceClassNames[2]")],
    ),
    "empty name": ([_m("", "foo.com/device")], [(INV, f"{P}[0].name")]),
    "name with a space": ([_m("foo bar", "foo.com/device")], [(INV, f"{P}[0].name")]),
    "empty device class": ([_m("valid-name", "")], [(INV, f"{P}[0].deviceClassNames[0]")]),
    "device class with spaces": ([_m("valid-name", "foo   bar")], [(INV, f"{P}[0].deviceClassNames[0]")]),
    "name of 253 characters": ([_m(LONG_253, "foo.com/device")], []),
    "name of 255 characters": ([_m(LONG_255, "foo.com/device")], [(INV, f"{P}[0].name")]),
    "device class of 253 characters": ([_m("valid-name", LONG_253)], []),
    "device class of 255 characters": ([_m("valid-name", LONG_255)], [(INV, f"{P}[0].deviceClassNames[0]")]),
    "17 mappings": (_many(17), [(MANY, P)]),
    "16 mappings": (_many(16), []),
    "9 device classes": (
        [_m("many-devices", *(f"device-{i}.example.com" for i in range(9)))],
        [(MANY, f"{P}[0].deviceClassNames")],
    ),
    "8 device classes": ([_m("max-devices", *(f"device-{i}.example.com" for i in range(8)))], []),
}


def _errors(mappings: list[dict[str, Any]] | None) -> list[tuple[FieldErrorType, str]]:
    cfg: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    if mappings is not None:
        cfg["resources"] = {"deviceClassMappings": mappings}
    try:
        load(cfg)
    except Invalid as err:
        return [(e.type, e.field) for e in err.errors]
    return []


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_device_class_mappings(name: str) -> None:
    mappings, want = CASES[name]
    assert _errors(mappings) == want


def test_the_messages_are_upstreams() -> None:
    cfg = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "resources": {
        "deviceClassMappings": [_m("first", "foo.com/device"), _m("second", "foo.com/device"), _m("third"),
                                {"name": "fourth", "deviceClassNames": ["x.com"], "sources": [{}]}]}}
    with pytest.raises(Invalid) as info:
        load(cfg)
    assert [str(e) for e in info.value.errors] == [
        f'{P}[1].deviceClassNames[0]: Invalid value: "foo.com/device": '
        "device class already mapped to resource first",
        f"{P}[2].deviceClassNames: Required value: at least one device class name is required",
        f"{P}[3].sources[0]: Required value: exactly one source type must be set per entry",
    ]


def test_the_settled_mappings_keep_their_order() -> None:
    cfg = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
           "resources": {"deviceClassMappings": [_m("gpus", "gpu.example.com", "gpu2.example.com")]}}
    [mapping] = load(cfg).device_class_mappings
    assert (mapping.name, mapping.device_class_names) == ("gpus", ("gpu.example.com", "gpu2.example.com"))


def test_capacity_sources_need_their_gate() -> None:
    """``KueueDRAIntegrationConsumableCapacity`` is alpha (off): a capacity source is refused until
    the Configuration's ``featureGates`` (or ``--feature-gates``) turn it on."""
    sel = {"cel": {"expression": "true"}}
    source = {"name": "memory", "driver": "gpu.example.com", "deviceSelector": sel}
    mapping = {"name": "gpu.memory", "deviceClassNames": ["vgpu.example.com"],
               "sources": [{"capacity": source}]}
    cfg: dict[str, Any] = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "resources": {"deviceClassMappings": [mapping]}}
    with pytest.raises(Invalid) as info:
        load(cfg)
    assert [str(e) for e in info.value.errors] == [
        f"{P}[0].sources[0].capacity: Invalid value: true: "
        "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled"
    ]
    load({**cfg, "featureGates": {"KueueDRAIntegrationConsumableCapacity": True}})
