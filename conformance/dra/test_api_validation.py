"""resource.k8s.io/v1 validation: an invalid claim, template, class or slice is refused with
``422 Invalid``, upstream's field path, reason and message, and nothing is stored.

Upstream: pkg/apis/resource/validation/validation.go (Kubernetes 1.37); CEL compile errors from
k8s.io/dynamic-resource-allocation/cel/compile.go.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.job.test_api_validation import expect_invalid
from conformance.target import Obj

pytestmark = pytest.mark.api_validation

VALIDATION = "kubernetes/kubernetes pkg/apis/resource/validation/validation.go"
V1 = "resource.k8s.io/v1"


def _claim(name: str, *requests: dict[str, Any], **devices: Any) -> Obj:
    return {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": {"requests": list(requests), **devices}},
    }


def _exactly(name: str = "gpu", **fields: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "gpu", **fields}}


@pytest.mark.semantic(
    "validation: a request needs exactly one of exactly or firstAvailable",
    source=f"{VALIDATION} validateDeviceRequest",
)
def test_request_needs_exactly_or_first_available(target) -> None:
    expect_invalid(
        target,
        _claim("v-neither", {"name": "gpu"}),
        "spec.devices.requests[0]",
        "FieldValueRequired",
        "exactly one of `exactly` or `firstAvailable` is required",
    )


@pytest.mark.semantic(
    "validation: allocationMode All forbids a count", source=f"{VALIDATION} validateDeviceAllocationMode"
)
def test_all_mode_forbids_count(target) -> None:
    expect_invalid(
        target,
        _claim("v-all", _exactly(allocationMode="All", count=2)),
        "spec.devices.requests[0].exactly.count",
        "FieldValueInvalid",
        "must not be specified when allocationMode is 'All'",
    )


@pytest.mark.semantic(
    "validation: constraints name requests of the claim", source=f"{VALIDATION} validateRequestNameRef"
)
def test_constraint_requests_must_exist(target) -> None:
    expect_invalid(
        target,
        _claim(
            "v-ref", _exactly(), constraints=[{"requests": ["nope"], "matchAttribute": "example.com/model"}]
        ),
        "spec.devices.constraints[0].requests[0]",
        "FieldValueInvalid",
        "must be the name of a request in the claim or the name of a request and a subrequest",
    )


@pytest.mark.semantic(
    "validation: a CEL selector that does not compile is refused at create",
    source="k8s.io/dynamic-resource-allocation/cel/compile.go CompileCELExpression",
)
def test_cel_selector_must_compile(target) -> None:
    expect_invalid(
        target,
        _claim("v-cel", _exactly(selectors=[{"cel": {"expression": "device.driver =="}}])),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression",
        "FieldValueInvalid",
        "compilation failed: ERROR: <input>:1:",
    )


@pytest.mark.semantic(
    "validation: a CEL selector must evaluate to bool",
    source="k8s.io/dynamic-resource-allocation/cel/compile.go CompileCELExpression",
)
def test_cel_selector_must_be_bool(target) -> None:
    expect_invalid(
        target,
        _claim("v-celint", _exactly(selectors=[{"cel": {"expression": "1 + 2"}}])),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression",
        "FieldValueInvalid",
        "must evaluate to bool or the unknown type, not int",
    )


@pytest.mark.semantic(
    "validation: a template's claim spec is validated under spec.spec",
    source=f"{VALIDATION} ValidateResourceClaimTemplate",
)
def test_template_spec_is_validated(target) -> None:
    template = {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "v-template"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": ""}}]}}},
    }
    expect_invalid(
        target, template, "spec.spec.devices.requests[0].exactly.deviceClassName", "FieldValueRequired", ""
    )


@pytest.mark.semantic(
    "validation: a ResourceSlice names exactly one of nodeName, nodeSelector, allNodes, "
    "perDeviceNodeSelection",
    source=f"{VALIDATION} validateResourceSliceSpec",
)
def test_slice_needs_one_node_field(target) -> None:
    name = f"{target.namespace}-v-slice"
    manifest = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "p", "resourceSliceCount": 1},
            "devices": [{"name": "d0"}],
        },
    }
    expect_invalid(
        target,
        manifest,
        "spec",
        "FieldValueRequired",
        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
    )


@pytest.mark.semantic(
    "validation: a DeviceClass extendedResourceName must be an extended resource name",
    source=f"{VALIDATION} validateDeviceClassSpec",
)
def test_class_extended_resource_name(target) -> None:
    manifest = {
        "apiVersion": V1,
        "kind": "DeviceClass",
        "metadata": {"name": f"{target.namespace}-v-class"},
        "spec": {"extendedResourceName": "cpu"},
    }
    expect_invalid(
        target,
        manifest,
        "spec.extendedResourceName",
        "FieldValueInvalid",
        "must be a valid extended resource name",
    )
