"""resource.k8s.io/v1 through the API server: defaulting, upstream validation messages, immutability,
CEL compile errors, the admission plugin, printers (pkg/apis/resource/validation/validation.go)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Namespace
from kbatch.api.errors import Invalid
from kbatch.api.resource_v1 import (
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(controllers=[])


def _claim(requests: list[dict[str, Any]], **devices: Any) -> ResourceClaim:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": requests, **devices}},
        }
    )


def _invalid(cp: ControlPlane, obj: Any) -> list[str]:
    with pytest.raises(Invalid) as info:
        cp.client.create(obj)
    return [f"{c.field}: {c.message}" for c in info.value.status.details.causes]


def test_claim_defaults_exact_count_and_count() -> None:
    cp = ControlPlane(controllers=[])
    stored = cp.client.create(
        _claim([{"name": "gpu", "exactly": {"deviceClassName": "gpu", "tolerations": [{"key": "k"}]}}])
    )
    exactly = stored.spec.devices.requests[0].exactly
    assert (exactly.allocation_mode, exactly.count, exactly.tolerations[0].operator) == (
        "ExactCount",
        1,
        "Equal",
    )
    assert stored.status is not None and stored.status.to_dict() == {}  # upstream: "status": {}


def test_claim_validation_messages(cp: ControlPlane) -> None:
    errors = _invalid(
        cp,
        _claim(
            [
                {"name": "gpu"},
                {"name": "gpu", "exactly": {"deviceClassName": "Bad_Class"}},
                {"name": "x", "exactly": {"deviceClassName": "gpu", "allocationMode": "All", "count": 2}},
            ],
            constraints=[{"requests": ["nope"], "matchAttribute": "model"}],
        ),
    )
    assert (
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"
        in errors
    )
    assert any(
        e.startswith('spec.devices.requests[1].exactly.deviceClassName: Invalid value: "Bad_Class"')
        for e in errors
    )
    assert (
        "spec.devices.requests[2].exactly.count: Invalid value: 2: must not be specified when allocationMode "
        "is 'All'" in errors
    )
    assert 'spec.devices.requests[1]: Duplicate value: "gpu"' in errors
    assert (
        'spec.devices.constraints[0].requests[0]: Invalid value: "nope": must be the name of a request in '
        "the claim or the name of a request and a subrequest separated by '/'" in errors
    )
    assert (
        'spec.devices.constraints[0].matchAttribute: Invalid value: "model": a fully qualified name must be '
        "a domain and a name separated by a slash" in errors
    )


def test_cel_compile_errors_are_rejected_at_create(cp: ControlPlane) -> None:
    errors = _invalid(
        cp,
        _claim(
            [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu",
                        "selectors": [
                            {"cel": {"expression": "device.nope == "}},
                            {"cel": {"expression": "1 + 1"}},
                            {"cel": {"expression": "undeclared > 1"}},
                        ],
                    },
                }
            ]
        ),
    )
    assert errors[0].startswith(
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
        '"device.nope == ": compilation failed: ERROR: <input>:1:16: Syntax error'
    )
    assert errors[1].endswith("must evaluate to bool or the unknown type, not int")
    assert "undeclared reference to 'undeclared'" in errors[2]
    nested = "device.attributes.all(a, " * 4 + "true" + ")" * 4
    errors = _invalid(
        cp,
        _claim(
            [
                {
                    "name": "gpu",
                    "exactly": {"deviceClassName": "gpu", "selectors": [{"cel": {"expression": nested}}]},
                }
            ]
        ),
    )
    assert errors == [
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too complex, "
        "exceeds cost limit"
    ]


def test_claim_spec_is_immutable_and_status_rules_hold(cp: ControlPlane) -> None:
    from kbatch.api import edit

    stored = cp.client.create(_claim([{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]))
    changed = edit(stored)
    changed.spec.devices.requests[0].exactly.count = 2
    with pytest.raises(Invalid, match=r"spec: Invalid value: .*field is immutable"):
        cp.client.update(changed)
    reserved = ResourceClaim.model_validate(
        {**stored.to_dict(), "status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}}
    )
    with pytest.raises(
        Invalid, match=r"status\.reservedFor: Forbidden: may not be specified when `allocated` is not set"
    ):
        cp.client.update_status(reserved)


def test_slice_validation(cp: ControlPlane) -> None:
    body = {
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "p", "resourceSliceCount": 0},
            "nodeName": "n",
            "allNodes": True,
            "devices": [
                {
                    "name": "a",
                    "attributes": {"x": {"int": 1, "bool": True}},
                    "capacity": {"m": {"value": "1", "requestPolicy": {}}},
                }
            ],
        },
    }
    errors = _invalid(cp, ResourceSlice.model_validate(body))
    assert "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero" in errors
    assert any(
        e.startswith(
            'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, '
            "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields "
            "are set"
        )
        for e in errors
    )
    assert any(
        e.startswith("spec.devices[0].attributes[x]: Invalid value:")
        and "exactly one value must be specified" in e
        for e in errors
    )
    assert (
        "spec.devices[0].capacity[m].requestPolicy: Forbidden: allowMultipleAllocations must be true"
        in errors
    )


def test_device_class_extended_resource_name_and_taint_rule(cp: ControlPlane) -> None:
    errors = _invalid(
        cp, DeviceClass.model_validate({"metadata": {"name": "gpu"}, "spec": {"extendedResourceName": "cpu"}})
    )
    assert errors == [
        'spec.extendedResourceName: Invalid value: "cpu": must be a valid extended resource name'
    ]
    errors = _invalid(
        cp,
        DeviceTaintRule.model_validate(
            {"metadata": {"name": "r"}, "spec": {"taint": {"key": "k", "effect": "Evict"}}}
        ),
    )
    assert errors == [
        'spec.taint.effect: Unsupported value: "Evict": supported values: "NoExecute", "NoSchedule", "None"'
    ]
    rule = cp.client.create(
        DeviceTaintRule.model_validate(
            {"metadata": {"name": "r"}, "spec": {"taint": {"key": "k", "effect": "NoExecute"}}}
        )
    )
    assert rule.spec.taint.time_added is not None


def test_admin_access_needs_the_namespace_label(cp: ControlPlane) -> None:
    admin = [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "adminAccess": True}}]
    errors = _invalid(cp, _claim(admin))
    assert errors == [
        "spec.devices.requests[0].exactly.adminAccess: Forbidden: admin access to devices requires the "
        "`resource.kubernetes.io/admin-access: true` label on the containing namespace"
    ]
    cp.client.create(
        Namespace.model_validate(
            {"metadata": {"name": "ops", "labels": {"resource.kubernetes.io/admin-access": "true"}}}
        )
    )
    claim = _claim(admin)
    claim.metadata.namespace = "ops"
    assert cp.client.create(claim).spec.devices.requests[0].exactly.admin_access is True


def test_template_spec_is_immutable(cp: ControlPlane) -> None:
    from kbatch.api import edit

    template = cp.client.create(
        ResourceClaimTemplate.model_validate(
            {
                "metadata": {"name": "t", "namespace": "default"},
                "spec": {
                    "spec": {
                        "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}
                    }
                },
            }
        )
    )
    changed = edit(template)
    changed.spec.spec.devices.requests[0].name = "other"
    with pytest.raises(Invalid, match="field is immutable"):
        cp.client.update(changed)
