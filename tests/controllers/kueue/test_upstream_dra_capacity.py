"""Capacity-based quota (consumable capacity), translated from kueue v0.19.2 ``pkg/dra/capacity_test.go``
(``TestRoundToValidValues``, ``TestRoundToValidRange``, ``TestComputeCapacityCharge``), plus
``capacity_requests`` over a Workload: an explicit ``capacity.requests`` is charged, a request
without one the device policy's default."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import FieldErrorType
from kbatch.api.kueue_config_dra import DeviceClassMapping, DeviceSource
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.quantity import Quantity
from kbatch.api.resource_v1.claim import ResourceClaimSpec
from kbatch.api.resource_v1.device import CapacityRequestPolicyRange, Device
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.controllers.kueue.model.dra_capacity import (
    capacity_charge,
    capacity_requests,
    round_to_valid_range,
    round_to_valid_values,
)
from kbatch.controllers.kueue.model.dra_sources import SourceConfigs

GI = 1024**3
Q = Quantity.parse

VALUES_CASES: dict[str, tuple[str, list[str], str | None]] = {
    "exact match": ("20Gi", ["10Gi", "20Gi", "40Gi"], "20Gi"),
    "round up to next": ("15Gi", ["10Gi", "20Gi", "40Gi"], "20Gi"),
    "below minimum rounds to first": ("5Gi", ["10Gi", "20Gi", "40Gi"], "10Gi"),
    "exceeds all values": ("50Gi", ["10Gi", "20Gi", "40Gi"], None),
    "single valid value exact": ("80Gi", ["80Gi"], "80Gi"),
}


@pytest.mark.parametrize("name", list(VALUES_CASES))
def test_round_to_valid_values(name: str) -> None:
    value, valid, want = VALUES_CASES[name]
    got = round_to_valid_values(Q(value), [Q(v) for v in valid])
    assert (got is None) if want is None else (got is not None and got.cmp(Q(want)) == 0)


RANGE_CASES: dict[str, tuple[str, str, str, str, str | None]] = {
    "already aligned": ("20Gi", "1Gi", "80Gi", "1Gi", "20Gi"),
    "round up to step": ("15500Mi", "1Gi", "80Gi", "1Gi", "16Gi"),
    "below min rounds to min": ("500Mi", "1Gi", "80Gi", "1Gi", "1Gi"),
    "exceeds max after rounding": ("81Gi", "1Gi", "80Gi", "1Gi", None),
    "no step no rounding": ("15500Mi", "1Gi", "80Gi", "", "15500Mi"),
    "step without min skips alignment": ("15500Mi", "", "80Gi", "1Gi", "15500Mi"),
    "large step alignment": ("25Gi", "10Gi", "80Gi", "20Gi", "30Gi"),
    "exact step boundary": ("30Gi", "10Gi", "80Gi", "20Gi", "30Gi"),
}


@pytest.mark.parametrize("name", list(RANGE_CASES))
def test_round_to_valid_range(name: str) -> None:
    value, low, high, step, want = RANGE_CASES[name]
    r = CapacityRequestPolicyRange(
        min=Q(low) if low else None, max=Q(high) if high else None, step=Q(step) if step else None
    )
    got = round_to_valid_range(Q(value), r)
    assert (got is None) if want is None else (got is not None and got.cmp(Q(want)) == 0)


def dev(name: str, value: str | None = None, policy: dict[str, Any] | None = None) -> Device:
    cap: dict[str, Any] = {"value": value}
    if policy:
        cap["requestPolicy"] = policy
    return Device.model_validate({"name": name, **({"capacity": {"memory": cap}} if value else {})})


CHARGE_CASES: dict[str, tuple[list[Device], str | None, int | FieldErrorType]] = {
    "explicit request with single device": ([dev("gpu-0", "80Gi")], "20Gi", 20 * GI),
    "no request uses device Default": ([dev("gpu-0", "80Gi", {"default": "40Gi"})], None, 40 * GI),
    "heterogeneous Defaults uses max": (
        [dev("gpu-0", "80Gi", {"default": "40Gi"}), dev("gpu-1", "100Gi", {"default": "10Gi"})],
        None,
        40 * GI,
    ),
    "no capacity dimension returns InternalError": ([dev("gpu-0")], None, FieldErrorType.INTERNAL),
    "all policies reject returns Invalid not InternalError": (
        [
            dev("gpu-0", "80Gi", {"validValues": ["10Gi", "20Gi"]}),
            dev("gpu-1", "80Gi", {"validValues": ["10Gi", "30Gi"]}),
        ],
        "50Gi",
        FieldErrorType.INVALID,
    ),
    "mixed devices some without dimension all with-dimension reject": (
        [dev("gpu-0", "80Gi", {"validValues": ["10Gi"]}), dev("gpu-1")],
        "50Gi",
        FieldErrorType.INVALID,
    ),
}


@pytest.mark.parametrize("name", list(CHARGE_CASES))
def test_compute_capacity_charge(name: str) -> None:
    matched, explicit, want = CHARGE_CASES[name]
    charge, errs = capacity_charge("memory", matched, 1, Q(explicit) if explicit else None, "test")
    if isinstance(want, FieldErrorType):
        assert errs and errs[0].type is want
    else:
        assert (charge, errs) == (want, [])


# --- a Workload ------------------------------------------------------------------------------------

SOURCE = DeviceSource("memory", "gpu.example.com", "device.driver == 'gpu.example.com'")
MAPPING = DeviceClassMapping("gpu.memory", ("vgpu.example.com",), capacity=(SOURCE,))
SLICE = ResourceSlice.model_validate(
    {
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "gpu-0",
                    "allowMultipleAllocations": True,
                    "capacity": {
                        "memory": {
                            "value": "80Gi",
                            "requestPolicy": {
                                "default": "8Gi",
                                "validRange": {"min": "1Gi", "max": "80Gi", "step": "1Gi"},
                            },
                        }
                    },
                }
            ],
        },
    }
)
WL = Workload.model_validate(
    {
        "metadata": {"name": "wl", "namespace": "ns"},
        "spec": {
            "podSets": [
                {
                    "name": "main",
                    "count": 2,
                    "template": {
                        "spec": {
                            "containers": [{"name": "c", "image": "pause"}],
                            "resourceClaims": [{"name": "vgpu", "resourceClaimTemplateName": "t"}],
                        }
                    },
                }
            ]
        },
    }
)


def _resolve(capacity: dict[str, str] | None, count: int = 1) -> Any:
    exactly: dict[str, Any] = {"deviceClassName": "vgpu.example.com", "count": count}
    if capacity is not None:
        exactly["capacity"] = {"requests": capacity}
    spec = ResourceClaimSpec.model_validate({"devices": {"requests": [{"name": "r", "exactly": exactly}]}})
    return capacity_requests(
        WL,
        lambda ns, name: spec if name == "t" else None,
        SourceConfigs.of([MAPPING]),
        {"vgpu.example.com": "gpu.memory"},
        lambda dc: [],
        lambda driver: [SLICE] if driver == "gpu.example.com" else [],
    )


def test_an_explicit_request_is_rounded_by_the_device_policy() -> None:
    assert _resolve({"memory": "15500Mi"}) == ({"main": {"gpu.memory": 16 * GI}}, ())


def test_without_a_request_the_policy_default_is_charged() -> None:
    assert _resolve(None) == ({"main": {"gpu.memory": 8 * GI}}, ())


def test_a_request_above_every_policy_is_invalid_and_too_few_devices_internal() -> None:
    _, errs = _resolve({"memory": "81Gi"})
    assert [str(e) for e in errs] == [
        "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Invalid value: null: "
        'capacity request cannot be satisfied by any matched device\'s RequestPolicy for dimension "memory"'
    ]
    _, errs = _resolve(None, count=2)
    assert [e.type for e in errs] == [FieldErrorType.INTERNAL]
    assert (
        "insufficient matching devices for capacity driver: 1 device(s) match but 2 requested"
        in errs[0].detail
    )
