"""Counter-based quota for partitionable devices, translated from kueue v0.19.2
``pkg/dra/counters_test.go`` (``TestComputeCounterCharges``, ``TestGroupSlicesByPool``,
``TestSelectorErrorPaths``; the log-line test has no counterpart: kbatch's manager does not log),
plus ``counter_requests`` over whole Workloads and a hypothesis property: the charge is the sum
over requests of count x the per-device counter."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import FieldErrorType
from kbatch.api.kueue_config_dra import DeviceClassMapping, DeviceSource
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.resource_v1.claim import ExactDeviceRequest, ResourceClaimSpec
from kbatch.api.resource_v1.device import Device
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.controllers.kueue.model.dra_counters import counter_charge, counter_requests
from kbatch.controllers.kueue.model.dra_sources import (
    MAX_INT64,
    SourceConfigs,
    group_slices_by_pool,
    match_devices,
    request_selectors,
)

MI = 1024 * 1024
GI = 1024 * MI


def device(name: str, profile: str, memory: str = "", **extra: str) -> Device:
    counters = {"memory": {"value": memory}, **{k: {"value": v} for k, v in extra.items()}}
    return Device.model_validate(
        {
            "name": name,
            "attributes": {"gpu.nvidia.com/profile": {"string": profile}},
            **(
                {"consumesCounters": [{"counterSet": "gpu-counter-set", "counters": counters}]}
                if memory
                else {}
            ),
        }
    )


def rs(
    name: str, driver: str, pool: str, gen: int, count: int, devices: list[Any] | None = None
) -> ResourceSlice:
    return ResourceSlice.model_validate(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "pool": {"name": pool, "generation": gen, "resourceSliceCount": count},
                "devices": devices or [],
            },
        }
    )


COUNTER_CASES: dict[str, tuple[list[Device], int, int | None]] = {
    "single device, count=1": ([device("mig-1g10gb-0", "1g.10gb", "9856Mi")], 1, 9856 * MI),
    "single device, count=3": ([device("mig-1g10gb-0", "1g.10gb", "9856Mi")], 3, 9856 * MI * 3),
    "multiple devices same value, MAX is same": (
        [device(f"mig-1g10gb-{i}", "1g.10gb", "9856Mi") for i in range(3)],
        1,
        9856 * MI,
    ),
    "multiple devices different values, MAX wins": (
        [device("mig-1g10gb-0", "1g.10gb", "9856Mi"), device("mig-3g40gb-0", "3g.40gb", "40Gi")],
        1,
        40 * GI,
    ),
    "counter not in config, skipped": (
        [device("mig-1g10gb-0", "1g.10gb", "9856Mi", multiprocessors="14")],
        1,
        9856 * MI,
    ),
    "multiple ConsumesCounters entries, MAX across counter sets": (
        [
            Device.model_validate(
                {
                    "name": "multi-set-device",
                    "consumesCounters": [
                        {"counterSet": "set-a", "counters": {"memory": {"value": "10Gi"}}},
                        {"counterSet": "set-b", "counters": {"memory": {"value": "30Gi"}}},
                    ],
                }
            )
        ],
        1,
        30 * GI,
    ),
    "no consumesCounters, no deviceSelector": ([device("whole-gpu-0", "")], 1, None),
    "count multiplication saturates instead of overflowing int64": (
        [device("big-counter-0", "big", "8000000000000000000")],
        2,
        MAX_INT64,
    ),
    "counter that Value() would truncate is clamped before multiply": (
        [device("truncating-0", "big", "10000000000000000000")],
        2,
        MAX_INT64,
    ),
    "counter above int64 is clamped at count=1": (
        [device("overmax-0", "big", "9223372036854775808")],
        1,
        MAX_INT64,
    ),
    "negative counter is clamped to zero": ([device("negative-0", "big", "-5")], 2, 0),
    "fractional counter rounds up at count=1": ([device("fractional-0", "small", "500m")], 1, 1),
    "negative counter is clamped to zero at count=1": ([device("negative-count1-0", "big", "-5")], 1, 0),
    "sub-integer negative counter is clamped to zero": (
        [device("negative-fractional-0", "small", "-500m")],
        1,
        0,
    ),
}


@pytest.mark.parametrize("name", list(COUNTER_CASES))
def test_compute_counter_charges(name: str) -> None:
    matched, count, want = COUNTER_CASES[name]
    assert counter_charge("memory", matched, count) == want


POOL_CASES: dict[str, tuple[list[ResourceSlice], dict[str, tuple[bool, int]]]] = {
    "single pool, complete": (
        [
            rs("slice1", "gpu.nvidia.com", "node1-gpu0", 1, 2),
            rs("slice2", "gpu.nvidia.com", "node1-gpu0", 1, 2),
        ],
        {"node1-gpu0": (True, 1)},
    ),
    "single pool, incomplete": (
        [rs("slice1", "gpu.nvidia.com", "node1-gpu0", 1, 2)],
        {"node1-gpu0": (False, 1)},
    ),
    "two pools": (
        [rs(f"slice{i}", "gpu.nvidia.com", f"node1-gpu{(i - 1) // 2}", 1, 2) for i in range(1, 5)],
        {"node1-gpu0": (True, 1), "node1-gpu1": (True, 1)},
    ),
    "filter by driver": (
        [
            rs("slice1", "gpu.nvidia.com", "node1-gpu0", 1, 1),
            rs("slice2", "net.example.com", "node1-net0", 1, 1),
        ],
        {"node1-gpu0": (True, 1)},
    ),
    "higher generation replaces older": (
        [
            rs("slice1-old", "gpu.nvidia.com", "node1-gpu0", 1, 2),
            rs("slice2-old", "gpu.nvidia.com", "node1-gpu0", 1, 2),
            rs("slice1-new", "gpu.nvidia.com", "node1-gpu0", 2, 2),
            rs("slice2-new", "gpu.nvidia.com", "node1-gpu0", 2, 2),
        ],
        {"node1-gpu0": (True, 2)},
    ),
    "mixed generation, incomplete new": (
        [
            rs("slice1-old", "gpu.nvidia.com", "node1-gpu0", 1, 2),
            rs("slice2-old", "gpu.nvidia.com", "node1-gpu0", 1, 2),
            rs("slice1-new", "gpu.nvidia.com", "node1-gpu0", 2, 2),
        ],
        {"node1-gpu0": (False, 2)},
    ),
}


@pytest.mark.parametrize("name", list(POOL_CASES))
def test_group_slices_by_pool(name: str) -> None:
    slices, want = POOL_CASES[name]
    pools = group_slices_by_pool(slices, "gpu.nvidia.com")
    assert {n: (p.complete, p.generation) for n, p in pools.items()} == want


CLAIM = "spec.podSets[0].template.spec.resourceClaims[0]"
REQ = f"{CLAIM}.devices.requests[1]"


def _classes(name: str) -> list[str] | None:
    return [] if name == "valid-device-class" else None


def test_selector_error_paths() -> None:
    """``TestSelectorErrorPaths``: where each error points."""
    missing = ExactDeviceRequest.model_validate({"deviceClassName": "missing-device-class"})
    errs = request_selectors(missing, _classes, REQ)[2]
    assert [(e.type, e.field) for e in errs] == [(FieldErrorType.INTERNAL, REQ)]
    bad = ExactDeviceRequest.model_validate(
        {"deviceClassName": "valid-device-class", "selectors": [{"cel": {"expression": "device.driver =="}}]}
    )
    errs = request_selectors(bad, _classes, REQ)[2]
    assert [(e.type, e.field) for e in errs] == [
        (FieldErrorType.INVALID, f"{REQ}.exactly.selectors[0].cel.expression")
    ]
    pools = group_slices_by_pool(
        [
            rs(
                "s",
                "gpu.example.com",
                "pool1",
                1,
                1,
                [{"name": "gpu-0", "attributes": {"gpu.example.com/type": {}}}],
            )
        ],
        "gpu.example.com",
    )
    stages = [("deviceSelector", ["device.driver == 'gpu.example.com'"]), ("DeviceClass selector", [])]
    matched, errs = match_devices(pools, "gpu.example.com", stages, REQ)
    assert matched == [] and [(e.type, e.field) for e in errs] == [(FieldErrorType.INTERNAL, REQ)]
    assert (
        "CEL evaluation error in deviceSelector for device gpu-0: unsupported attribute value"
        in errs[0].detail
    )


# --- whole Workloads -------------------------------------------------------------------------------

MIG_CLASS = "mig.example.com"
SOURCE = DeviceSource("memory", "gpu.example.com", "device.driver == 'gpu.example.com'")
CONFIGS = SourceConfigs.of([DeviceClassMapping("gpu.memory", (MIG_CLASS,), counters=(SOURCE,))])
MIG_SELECTOR = "device.attributes['gpu.example.com'].type == 'mig'"


def mig(name: str, profile: str, memory: str) -> dict[str, Any]:
    return {
        "name": name,
        "attributes": {"type": {"string": "mig"}, "profile": {"string": profile}},
        "consumesCounters": [{"counterSet": "gpu-0-counter-set", "counters": {"memory": {"value": memory}}}],
    }


def workload(*claims: tuple[str, str], count: int = 1) -> Workload:
    return Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ns"},
            "spec": {
                "podSets": [
                    {
                        "name": "main",
                        "count": count,
                        "template": {
                            "spec": {
                                "containers": [{"name": "c", "image": "pause"}],
                                "resourceClaims": [
                                    {"name": n, "resourceClaimTemplateName": t} for n, t in claims
                                ],
                            }
                        },
                    }
                ]
            },
        }
    )


def template(count: int, selector: str | None) -> ResourceClaimSpec:
    exactly: dict[str, Any] = {"deviceClassName": MIG_CLASS, "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return ResourceClaimSpec.model_validate({"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}})


def resolve(wl: Workload, templates: dict[str, ResourceClaimSpec], *slices: ResourceSlice) -> Any:
    return counter_requests(
        wl,
        lambda ns, name: templates.get(name),
        CONFIGS,
        lambda dc: [MIG_SELECTOR] if dc == MIG_CLASS else None,
        lambda driver: [s for s in slices if s.spec.driver == driver],
    )


MIG_SLICE = rs(
    "pd",
    "gpu.example.com",
    "node1-gpu0",
    1,
    1,
    [
        {
            "name": "gpu-0",
            "attributes": {"type": {"string": "gpu"}},
            "consumesCounters": [
                {"counterSet": "gpu-0-counter-set", "counters": {"memory": {"value": "40320Mi"}}}
            ],
        },
        mig("gpu-0-mig-1g5gb-0", "1g.5gb", "4864Mi"),
        mig("gpu-0-mig-1g5gb-1", "1g.5gb", "4864Mi"),
        mig("gpu-0-mig-3g20gb-0", "3g.20gb", "20Gi"),
    ],
)
P1G = "device.attributes['gpu.example.com'].profile == '1g.5gb'"


def test_a_profile_is_charged_its_memory_counter_times_count() -> None:
    out = resolve(workload(("mig", "t")), {"t": template(2, P1G)}, MIG_SLICE)
    assert out == ({"main": {"gpu.memory": 2 * 4864 * MI}}, ())


def test_a_broad_selector_is_charged_the_largest_profile() -> None:
    either = P1G + " || device.attributes['gpu.example.com'].profile == '3g.20gb'"
    assert resolve(workload(("mig", "t")), {"t": template(1, either)}, MIG_SLICE)[0] == {
        "main": {"gpu.memory": 20 * GI}
    }


def test_too_few_devices_and_incomplete_pools_are_internal_errors() -> None:
    """``insufficient matching devices for counter driver``: retried until slices provide them;
    a pool missing one of its slices is not counted."""
    requests, errs = resolve(workload(("mig", "t")), {"t": template(3, P1G)}, MIG_SLICE)
    assert requests == {} and [str(e) for e in errs] == [
        f"{CLAIM}.devices.requests[0]: Internal error: insufficient matching devices for counter driver: "
        "2 device(s) match but 3 requested"
    ]
    incomplete = MIG_SLICE.model_copy(deep=True)
    incomplete.spec.pool.resource_slice_count = 2
    errs = resolve(workload(("mig", "t")), {"t": template(1, P1G)}, incomplete)[1]
    assert "0 device(s) match but 1 requested" in str(errs[0])


def test_devices_without_the_counter_are_an_internal_error() -> None:
    bare = rs(
        "bare", "gpu.example.com", "p", 1, 1, [{"name": "m", "attributes": {"type": {"string": "mig"}}}]
    )
    errs = resolve(workload(("mig", "t")), {"t": template(1, None)}, bare)[1]
    assert [str(e) for e in errs] == [
        f"{CLAIM}.devices.requests[0]: Internal error: matched devices have no consumesCounters entry "
        'for counter "memory"'
    ]


def test_a_missing_template_is_an_internal_error() -> None:
    errs = resolve(workload(("mig", "t")), {}, MIG_SLICE)[1]
    assert [e.type for e in errs] == [FieldErrorType.INTERNAL]
    assert "failed to get claim spec for ResourceClaimTemplate t: " in errs[0].detail


PROFILES = {"1g.5gb": 4864 * MI, "2g.10gb": 9856 * MI, "3g.20gb": 20 * GI, "7g.40gb": 40320 * MI}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(sorted(PROFILES)), st.integers(1, 3)), min_size=1, max_size=4),
)
def test_the_charge_is_the_sum_of_count_times_the_device_counter(requests: list[tuple[str, int]]) -> None:
    """Per pod set, the counter charge is the sum over its template requests of count x the memory counter
    of the profile the request selects (each profile publishes enough devices)."""
    devices = [mig(f"{p}-{i}", p, str(mem)) for p, mem in sorted(PROFILES.items()) for i in range(3)]
    slice_ = rs("s", "gpu.example.com", "pool", 1, 1, devices)
    templates = {
        f"t{i}": template(n, f"device.attributes['gpu.example.com'].profile == '{p}'")
        for i, (p, n) in enumerate(requests)
    }
    wl = workload(*((f"c{i}", f"t{i}") for i in range(len(requests))))
    charges, errs = resolve(wl, templates, slice_)
    assert errs == ()
    assert charges == {"main": {"gpu.memory": sum(n * PROFILES[p] for p, n in requests)}}


def test_a_class_in_two_counter_mappings_charges_both_resources() -> None:
    """``PopulateFromConfiguration``: every mapping naming the class adds its counter, charged to
    its own resource (``gpu.memory`` and ``gpu.compute`` from one MIG request)."""
    sm = DeviceSource("multiprocessors", "gpu.example.com", "true")
    configs = SourceConfigs.of(
        [
            DeviceClassMapping("gpu.memory", (MIG_CLASS,), counters=(SOURCE,)),
            DeviceClassMapping("gpu.compute", (MIG_CLASS,), counters=(sm,)),
        ]
    )
    device_ = mig("m", "1g.5gb", "4864Mi")
    device_["consumesCounters"][0]["counters"]["multiprocessors"] = {"value": "14"}
    slice_ = rs("s", "gpu.example.com", "p", 1, 1, [device_])
    out = counter_requests(
        workload(("mig", "t")),
        lambda ns, name: template(1, P1G),
        configs,
        lambda dc: [MIG_SELECTOR],
        lambda driver: [slice_],
    )
    assert out == ({"main": {"gpu.memory": 4864 * MI, "gpu.compute": 14}}, ())
