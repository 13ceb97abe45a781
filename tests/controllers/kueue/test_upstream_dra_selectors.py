"""Template CEL selectors against the cluster's ResourceSlices: the CEL cases of kueue v0.19.2
``pkg/dra/claims_test.go`` (``Test_GetResourceRequests``; upstream compares error types and fields,
kbatch also the messages of ``validateCELSelectorsAgainstDevices``), run through
:class:`~kbatch.controllers.kueue.dra_requests.DraResolver` over an informer-cache stand-in.
"Invalid CEL selector returns error" is not translated: kbatch's API server refuses such a template."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import FieldErrorType, NotFound
from kbatch.api.kueue_config_dra import DeviceClassMapping, DeviceSource
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.resource_v1.claim import ResourceClaimTemplate
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.controllers.kueue.dra_requests import DraGates, DraResolver

SEL = "spec.podSets[0].template.spec.resourceClaims[0].devices.requests"


def _req(name: str, device_class: str | None, count: int, *cel: str) -> dict[str, Any]:
    ex: dict[str, Any] = {"count": count, "allocationMode": "ExactCount"}
    if device_class:
        ex["deviceClassName"] = device_class
    if cel:
        ex["selectors"] = [{"cel": {"expression": e}} for e in cel]
    return {"name": name, "exactly": ex}


def _tmpl(*requests: dict[str, Any]) -> ResourceClaimTemplate:
    return ResourceClaimTemplate.model_validate(
        {
            "metadata": {"name": "t", "namespace": "ns1"},
            "spec": {"spec": {"devices": {"requests": list(requests)}}},
        }
    )


def _class(name: str, *cel: str) -> DeviceClass:
    return DeviceClass.model_validate(
        {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": e}} for e in cel]}}
    )


def _slice(name: str, driver: str, *devices: str) -> ResourceSlice:
    return ResourceSlice.model_validate(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "pool": {"name": "pool-1", "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": d} for d in devices],
            },
        }
    )


class Cache:
    def __init__(self, *objects: Any) -> None:
        self.objects = list(objects)

    def get(self, kind: Any, name: str, namespace: str | None = None) -> Any:
        for o in self.objects:
            if isinstance(o, kind) and o.metadata.name == name:
                return o
        raise NotFound.of(kind.api_info.group_resource, name)

    def list(self, kind: Any, namespace: str | None = None) -> list[Any]:
        return sorted((o for o in self.objects if isinstance(o, kind)), key=lambda o: o.metadata.name)


WL = Workload.model_validate(
    {
        "metadata": {"name": "wl", "namespace": "ns1"},
        "spec": {
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {
                        "spec": {
                            "containers": [{"name": "c", "image": "pause"}],
                            "resourceClaims": [{"name": "req", "resourceClaimTemplateName": "t"}],
                        }
                    },
                }
            ]
        },
    }
)
DRIVER = 'device.driver == "test-driver"'
MAPPINGS = (DeviceClassMapping("res-1", ("test-deviceclass-1", "gpu-class", "nonexistent-class")),)


def _resolve(*objects: Any, mappings: tuple[DeviceClassMapping, ...] = MAPPINGS) -> Any:
    return DraResolver(Cache(*objects), mappings, DraGates(True, True, True))(WL)


def test_cel_selectors_with_device_class_name_count_correctly() -> None:
    out = _resolve(
        _tmpl(_req("req", "test-deviceclass-1", 1, DRIVER)),
        _class("test-deviceclass-1"),
        _slice("slice-1", "test-driver", "dev-0", "dev-1"),
    )
    assert (out.errors, out.requests) == ((), {"main": {"res-1": 1}})


def test_cel_selectors_prefiltered_by_device_class_selectors() -> None:
    gpu = 'device.driver == "gpu-driver"'
    out = _resolve(
        _tmpl(_req("req", "gpu-class", 1, gpu)),
        _class("gpu-class", gpu),
        _slice("gpu-slice", "gpu-driver", "gpu-0"),
        _slice("nic-slice", "nic-driver", "n0", "n1", "n2"),
    )
    assert (out.errors, out.requests) == ((), {"main": {"res-1": 1}})


@pytest.mark.parametrize(
    ("template", "devices", "index", "matched", "wanted"),
    [
        # CEL selectors with unsatisfiable expression returns error
        (
            _tmpl(_req("req", "test-deviceclass-1", 2, 'device.driver == "nonexistent-driver"')),
            ("dev-0",),
            0,
            0,
            2,
        ),
        # CEL selectors with insufficient matching devices returns error
        (_tmpl(_req("req", "test-deviceclass-1", 3, DRIVER)), ("dev-0", "dev-1"), 0, 2, 3),
        # Multi-request CEL selectors do not double-count devices
        (
            _tmpl(
                _req("req-a", "test-deviceclass-1", 1, DRIVER), _req("req-b", "test-deviceclass-1", 1, DRIVER)
            ),
            ("dev-0",),
            1,
            0,
            1,
        ),
    ],
)
def test_too_few_matching_devices_is_an_internal_error(
    template: ResourceClaimTemplate, devices: tuple[str, ...], index: int, matched: int, wanted: int
) -> None:
    out = _resolve(template, _class("test-deviceclass-1"), _slice("s", "test-driver", *devices))
    assert [(e.type, e.field) for e in out.errors] == [
        (FieldErrorType.INTERNAL, f"{SEL}[{index}].exactly.selectors")
    ]
    assert out.retry
    assert out.message == (
        f"{SEL}[{index}].exactly.selectors: Internal error: ResourceClaimTemplate t: "
        "insufficient matching devices for CEL selector in DeviceClass test-deviceclass-1: "
        f"{matched} device(s) match in the cluster but {wanted} requested"
    )


def test_cel_selectors_with_a_nonexistent_device_class_return_an_error() -> None:
    out = _resolve(_tmpl(_req("req", "nonexistent-class", 1, DRIVER)), _slice("s", "test-driver", "dev-0"))
    assert [(e.type, e.field) for e in out.errors] == [(FieldErrorType.INTERNAL, f"{SEL}[0]")]


def test_cel_selectors_with_empty_device_class_name_succeed() -> None:
    out = _resolve(_tmpl(_req("req", None, 1, DRIVER)), _slice("s", "test-driver", "dev-0"))
    assert (out.errors, out.requests) == ((), {})


def test_a_runtime_error_is_invalid() -> None:
    bad = 'device.attributes["test-driver"].missing == 1'
    out = _resolve(
        _tmpl(_req("req", "test-deviceclass-1", 1, bad)),
        _class("test-deviceclass-1"),
        _slice("s", "test-driver", "dev-0"),
    )
    assert [(e.type, e.field) for e in out.errors] == [
        (FieldErrorType.INVALID, f"{SEL}[0].exactly.selectors")
    ]
    assert "CEL evaluation failed for DeviceClass test-deviceclass-1: " in out.message
    assert not out.retry


def test_only_source_drivers_slices_count_when_every_class_has_sources() -> None:
    """``validateCELSelectorsAgainstDevices``: with counter sources on every class, only those
    drivers' slices are read."""
    counter = DeviceSource("memory", "other-driver", "true")
    sourced = (DeviceClassMapping("res-1", ("test-deviceclass-1",), counters=(counter,)),)
    template = _tmpl(_req("req", "test-deviceclass-1", 1, "true"))
    out = _resolve(
        template, _class("test-deviceclass-1"), _slice("s", "test-driver", "dev-0"), mappings=sourced
    )
    assert out.retry
    out = _resolve(
        template, _class("test-deviceclass-1"), _slice("s", "other-driver", "dev-0"), mappings=sourced
    )
    assert not out.inadmissible
