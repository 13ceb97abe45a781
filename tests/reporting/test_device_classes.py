"""DRA utilisation per DeviceClass (``deviceclass/<name>``): a device counts for every class whose CEL
selectors all accept it (evaluated by kbatch's CEL library, as the allocator does); per-class use
never exceeds the class's devices (a property)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.reporting import build_report
from kbatch.reporting.device_classes import DeviceClasses
from kbatch.reporting.devices import device_capacity, device_use, published_devices
from tests.reporting.builders import custom, node, pod

DRIVER = "gpu.example.com"
MODEL = 'device.attributes["gpu.example.com"].model == "{}"'


def slice_of(node_name: str, models: list[str]) -> dict[str, Any]:
    devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": m}, "index": {"int": i}},
                "capacity": {"memory": {"value": "80Gi" if m == "H100" else "40Gi"}}}
               for i, m in enumerate(models)]
    spec = {"driver": DRIVER, "nodeName": node_name, "devices": devices,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1}}
    return custom("resource.k8s.io/v1", "ResourceSlice", f"{node_name}-slice", -10, spec=spec, ns="")


def device_class(name: str, *expressions: str) -> dict[str, Any]:
    spec = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    return custom("resource.k8s.io/v1", "DeviceClass", name, -10, spec=spec, ns="")


def claim(name: str, node_name: str, *devices: int, reserved_for: str | None = None) -> dict[str, Any]:
    results = [{"request": "r", "driver": DRIVER, "pool": node_name, "device": f"gpu-{i}"} for i in devices]
    status: dict[str, Any] = {"allocation": {"devices": {"results": results}}}
    if reserved_for:
        status["reservedFor"] = [{"resource": "pods", "name": reserved_for, "uid": f"uid-{reserved_for}"}]
    return custom("resource.k8s.io/v1", "ResourceClaim", name, 0, status=status)


def using(p: dict[str, Any], *claims: str) -> dict[str, Any]:
    p["status"]["resourceClaimStatuses"] = [{"name": c, "resourceClaimName": c} for c in claims]
    return p


CLASSES = [device_class("a100", MODEL.format("A100")), device_class("h100", MODEL.format("H100")),
           device_class("any"),  # no selectors: every device
           device_class("big", 'device.capacity["gpu.example.com"].memory.compareTo(quantity("60Gi")) >= 0',
                        f'device.driver == "{DRIVER}"'),
           device_class("broken", 'device.attributes["gpu.example.com"].missing == 1'),  # runtime error
           device_class("other", 'device.driver == "nic.example.com"')]


def test_a_device_counts_for_every_class_that_accepts_it() -> None:
    objs = [*CLASSES, node("node-0"), slice_of("node-0", ["A100", "A100", "H100"])]
    classes = DeviceClasses(objs, published_devices(objs))
    assert classes.of((DRIVER, "node-0", "gpu-2")) == ("deviceclass/any", "deviceclass/big",
                                                        "deviceclass/h100")
    assert classes.of((DRIVER, "node-0", "gpu-0")) == ("deviceclass/a100", "deviceclass/any")
    assert device_capacity(objs, classes) == {"node-0": {
        "devices/gpu.example.com": 3.0, "deviceclass/a100": 2.0, "deviceclass/any": 3.0,
        "deviceclass/big": 1.0, "deviceclass/h100": 1.0}}


def test_utilisation_per_class_over_time() -> None:
    objs = [*CLASSES, node("node-0"), slice_of("node-0", ["A100", "A100", "H100", "H100"]),
            claim("x", "node-0", 0, 2), claim("y", "node-0", 3),
            using(pod("p0", 0, scheduled=0, started=0, finished=50), "x"),
            using(pod("p1", 0, scheduled=0, started=10, finished=100), "y")]
    report = build_report(objs)
    by = {u.resource: u for u in report.utilisation}
    assert [(s.t, s.value) for s in by["deviceclass/h100"].used] == [(0, 1), (10, 2), (50, 1)]
    assert [(s.t, s.value) for s in by["deviceclass/a100"].used] == [(0, 1), (50, 0)]
    assert by["deviceclass/h100"].mean == pytest.approx((1 * 10 + 2 * 40 + 1 * 50) / (2 * 100))
    assert by["deviceclass/any"].mean == by["devices/gpu.example.com"].mean
    assert "deviceclass/broken" not in by and "deviceclass/other" not in by  # no device: no capacity
    assert report.to_dict()["cluster"]["utilisation"]["deviceclass/big"]["mean"] == pytest.approx(
        by["deviceclass/h100"].mean)


def test_no_device_classes_no_class_resources() -> None:
    objs = [node("node-0"), slice_of("node-0", ["A100"]), claim("x", "node-0", 0),
            using(pod("p0", 0, scheduled=0, started=0, finished=50), "x")]
    resources = [u.resource for u in build_report(objs).utilisation]
    assert resources == ["cpu", "memory", "devices/gpu.example.com"]


@given(st.lists(st.sampled_from(["A100", "H100"]), min_size=1, max_size=8), st.data())
def test_per_class_use_never_exceeds_the_class_devices(models: list[str], data: st.DataObject) -> None:
    # the allocator never gives one device to two claims at once: a claim per pod, disjoint devices
    owners = data.draw(st.lists(st.integers(0, 3), min_size=len(models), max_size=len(models)))
    objs: list[dict[str, Any]] = [*CLASSES, node("node-0"), slice_of("node-0", models)]
    for k in range(4):
        mine = [i for i, o in enumerate(owners) if o == k]
        start = data.draw(st.integers(0, 50))
        end = data.draw(st.integers(start + 1, 100))
        user = pod(f"p{k}", 0, scheduled=0, started=start, finished=end)
        objs += [claim(f"c{k}", "node-0", *mine), using(user, f"c{k}")]
    report = build_report(objs)
    for u in report.utilisation:
        if u.resource.startswith(("deviceclass/", "devices/")):
            assert all(s.value <= 1 + 1e-9 for s in u.ratio), u.resource
            assert max(s.value for s in u.used) <= u.capacity[-1].value
            assert u.mean is None or u.mean <= 1 + 1e-9
    held = device_use(objs, classes=DeviceClasses(objs, published_devices(objs))).held
    assert sum(h.get("deviceclass/any", 0) for h in held.values()) == sum(o < 4 for o in owners)
