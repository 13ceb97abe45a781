"""``deviceClassMappings[].sources``: counter and capacity sources, translated from kueue v0.19.2
``pkg/config/validation_test.go`` (``TestValidate``'s source cases, ``TestValidateDeviceClassMappings``'
capacity-name cases; upstream compares error types and fields). A source without a selector in
upstream's table has one here unless the case is about the selector."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import FieldErrorType, Invalid
from kbatch.api.kueue_config import load
from kbatch.api.kueue_config_dra import DeviceSource
from kbatch.controllers.kueue.config import check_config_text

INV, REQ, LONG = FieldErrorType.INVALID, FieldErrorType.REQUIRED, FieldErrorType.TOO_LONG
P = "resources.deviceClassMappings"
PD, CC = "KueueDRAIntegrationPartitionableDevices", "KueueDRAIntegrationConsumableCapacity"
SEL = {"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}


def _counter(name: str = "memory", driver: str = "gpu.nvidia.com", sel: Any = SEL) -> dict[str, Any]:
    src = {"name": name, "driver": driver}
    return {"counter": {**src, "deviceSelector": sel} if sel else src}


def _capacity(name: str = "memory", driver: str = "gpu.example.com") -> dict[str, Any]:
    return {"capacity": {"name": name, "driver": driver, "deviceSelector": SEL}}


def _m(name: str, dc: str, *sources: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "deviceClassNames": [dc]}
    if sources:
        out["sources"] = list(sources)
    return out


MIG = "mig.nvidia.com"
CASES: dict[str, tuple[dict[str, bool], list[dict[str, Any]], list[tuple[FieldErrorType, str]]]] = {
    "valid counter source on deviceClassMapping": ({PD: True}, [_m("gpu.memory", MIG, _counter())], []),
    "multi-counter: same DeviceClass with different counter names allowed": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter()), _m("gpu.compute", MIG, _counter("multiprocessors"))],
        [],
    ),
    "multi-counter: same DeviceClass with same counter name rejected": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter()), _m("gpu.memory2", MIG, _counter())],
        [(INV, f"{P}[1].deviceClassNames[0]")],
    ),
    "multi-counter: whole-device and counter for same DeviceClass rejected": (
        {PD: True},
        [_m("gpu", "gpu.nvidia.com"), _m("gpu.memory", "gpu.nvidia.com", _counter())],
        [(INV, f"{P}[1].deviceClassNames[0]")],
    ),
    "multi-counter: counter then whole-device for same DeviceClass rejected": (
        {PD: True},
        [_m("gpu.memory", "gpu.nvidia.com", _counter()), _m("gpu", "gpu.nvidia.com")],
        [(INV, f"{P}[1].deviceClassNames[0]")],
    ),
    "sources configured but KueueDRAIntegrationPartitionableDevices disabled": (
        {PD: False},
        [_m("gpu.memory", MIG, _counter())],
        [(INV, f"{P}[0].sources[0].counter")],
    ),
    "sources: missing driver": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter(driver=""))],
        [(REQ, f"{P}[0].sources[0].counter.driver")],
    ),
    "sources: missing name": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter(name=""))],
        [(REQ, f"{P}[0].sources[0].counter.name")],
    ),
    "sources: invalid counter name format": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter(name="INVALID_NAME"))],
        [(INV, f"{P}[0].sources[0].counter.name")],
    ),
    "sources: invalid driver name format": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter(driver="NOT_VALID!!"))],
        [(INV, f"{P}[0].sources[0].counter.driver")],
    ),
    "sources: driver name exceeds max length": (
        {PD: True},
        [
            _m(
                "gpu.memory",
                MIG,
                _counter(driver="gpu-accelerator.nvidia-corporation.datacenter.example.com.internal"),
            )
        ],
        [(INV, f"{P}[0].sources[0].counter.driver")],
    ),
    "sources: missing deviceSelector": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter(sel=None))],
        [(REQ, f"{P}[0].sources[0].counter.deviceSelector.cel.expression")],
    ),
    "sources: multiple counter entries valid": (
        {PD: True},
        [_m("gpu.memory", MIG, _counter(), _counter("multiprocessors"))],
        [],
    ),
    "valid capacity source": ({CC: True}, [_m("gpu.memory", "vgpu.example.com", _capacity())], []),
    "valid capacity source with qualified name": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("gpu.example.com/memory"))],
        [],
    ),
    "capacity source with CC gate disabled": (
        {},
        [_m("gpu.memory", "vgpu.example.com", _capacity())],
        [(INV, f"{P}[0].sources[0].capacity")],
    ),
    "multiple capacity sources (multi-dimension)": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity(), _capacity("cores"))],
        [],
    ),
    "counter and capacity mixing rejected": (
        {CC: True, PD: True},
        [_m("gpu.memory", MIG, _counter(), _capacity("cores", "gpu.nvidia.com"))],
        [(INV, f"{P}[0].sources")],
    ),
    "capacity source with mixed-case driver rejected": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity(driver="Gpu.Example.Com"))],
        [(INV, f"{P}[0].sources[0].capacity.driver")],
    ),
    # TestValidateDeviceClassMappings (ConsumableCapacity on)
    "valid capacity C identifier": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("gpu.example.com/Memory_Bytes"))],
        [],
    ),
    "valid capacity name with uppercase domain": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("GPU.example.com/memory"))],
        [],
    ),
    "capacity name with empty domain": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("/memory"))],
        [(INV, f"{P}[0].sources[0].capacity.name")],
    ),
    "capacity name with invalid C identifier": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("gpu.example.com/memory-bytes"))],
        [(INV, f"{P}[0].sources[0].capacity.name")],
    ),
    "capacity name domain exceeds max length": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("a" * 64 + "/memory"))],
        [(LONG, f"{P}[0].sources[0].capacity.name")],
    ),
    "capacity name identifier exceeds max length": (
        {CC: True},
        [_m("gpu.memory", "vgpu.example.com", _capacity("gpu.example.com/" + "a" * 33))],
        [(LONG, f"{P}[0].sources[0].capacity.name")],
    ),
}


def _cfg(gates: dict[str, bool], mappings: list[dict[str, Any]]) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "resources": {"deviceClassMappings": mappings},
    }
    if gates:
        cfg["featureGates"] = gates
    return cfg


@pytest.mark.parametrize("name", list(CASES))
def test_validate_sources(name: str) -> None:
    gates, mappings, want = CASES[name]
    try:
        load(_cfg(gates, mappings))
    except Invalid as err:
        got = [(e.type, e.field) for e in err.errors]
    else:
        got = []
    assert got == want


def test_messages() -> None:
    """Upstream's wording of the conflicts and the mix."""
    with pytest.raises(Invalid) as info:
        load(
            _cfg({}, [_m("gpu.memory", MIG, _counter()), _m("gpu.memory2", MIG, _counter()), _m("gpu", MIG)])
        )
    assert [str(e) for e in info.value.errors] == [
        f'{P}[1].deviceClassNames[0]: Invalid value: "{MIG}": device class already has a counter source '
        'for counter "memory"',
        f'{P}[2].deviceClassNames[0]: Invalid value: "{MIG}": device class already mapped to resource '
        "gpu.memory",
    ]
    with pytest.raises(Invalid) as info:
        load(_cfg({}, [_m("gpu.memory", MIG, _capacity(), _counter())]))
    assert [str(e) for e in info.value.errors] == [
        f"{P}[0].sources[0].capacity: Invalid value: true: "
        "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled",
        f"{P}[0].sources: Invalid value: 2: cannot mix counter and capacity sources in the same mapping",
    ]


def test_the_settled_sources() -> None:
    cfg = load(_cfg({}, [_m("gpu.memory", MIG, _counter()), _m("gpu.compute", MIG, _counter("sm"))]))
    memory, compute = cfg.device_class_mappings
    assert memory.counters == (DeviceSource("memory", "gpu.nvidia.com", SEL["cel"]["expression"]),)
    assert compute.counter_drivers == ("gpu.nvidia.com",) and compute.capacity == ()


def test_the_feature_gates_flag_counts_for_validation() -> None:
    """Kueue validates its Configuration after ``--feature-gates`` is applied (``cmd/kueue/main.go``):
    a capacity source is accepted with the flag alone."""
    text = (
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n"
        "  deviceClassMappings:\n  - name: gpu.memory\n    deviceClassNames: [vgpu.example.com]\n"
        "    sources:\n    - capacity: {name: memory, driver: gpu.example.com, "
        "deviceSelector: {cel: {expression: 'true'}}}\n"
    )
    with pytest.raises(Invalid):
        check_config_text(text)
    [mapping] = check_config_text(text, f"{CC}=true").device_class_mappings
    assert mapping.capacity == (DeviceSource("memory", "gpu.example.com", "true"),)
