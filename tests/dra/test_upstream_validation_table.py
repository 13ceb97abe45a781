"""Upstream's resource.k8s.io validation cases, translated into API calls.

Sources: ``pkg/apis/resource/validation/validation_deviceclass_test.go`` (``TestValidateClass``,
``TestValidateClassUpdate``), ``validation_devicetaintrule_test.go`` (``TestValidateDeviceTaint``,
``TestValidateDeviceTaintUpdate``), ``validation_resourceclaim_test.go`` (``TestValidateClaim``),
``validation_resourceslice_test.go`` (``TestValidateResourceSlice``) and
``validation_resourceclaimtemplate_test.go`` (``TestValidateClaimTemplate``, ``...Update``).
Each object is created through kbatch's API as a user's would be; the expected causes (reason, field
path, message) are upstream's, checked against the newest ``validation.go`` where the stored tests
are older: qualified names ("a fully qualified name must be a domain and a name separated by a
slash", an empty name is an invalid C identifier, no "name required"), duplicates reported at the
list index, a constraint with neither attribute ("exactly one of ... is required").

Not translated: the metadata cases that only set server-owned fields (uid, resourceVersion,
generation, creationTimestamp, managedFields: kbatch's API server owns them); the DeviceTaintRule
"bad-class", "CEL-*" cases (``deviceClassName`` and ``selectors`` left DeviceTaintSelector in 1.35);
the claim's "CEL-compile-errors" (``device.attributes[true]`` compiles in kbatch: ``device`` is a
map of dynamic values, docs/dra.md; "CEL-cost" is in test_upstream_cel_compile.py); raw-JSON cases
(``xxx``, ``{``, empty bytes: a Python client cannot send them, and kbatch measures parameters as
compact JSON, so the size cases use compact lengths).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.errors import Invalid
from kbatch.api.resource_v1 import (
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)

BAD_NAME = "!@#$%^"
BAD_VALUE = "spaces not allowed"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
C_IDENTIFIER = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
NOT_A_REQUEST = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)
MAX = 10 * 1024  # OpaqueParametersMaxLength, CELSelectorExpressionMaxLength


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(controllers=[])


def _causes(cp: ControlPlane, obj: Any) -> list[tuple[str, str, str]]:
    with pytest.raises(Invalid) as info:
        cp.client.create(obj)
    return [(c.reason, c.field, c.message) for c in info.value.status.details.causes]


def _invalid(path: str, value: str, message: str) -> tuple[str, str, str]:
    return ("FieldValueInvalid", path, f'Invalid value: "{value}": {message}')


# --- DeviceClass (TestValidateClass) ----------------------------------------------------------------


def _class(name: str = "foo", **spec: Any) -> DeviceClass:
    return DeviceClass.model_validate({"metadata": {"name": name}, "spec": spec})


@pytest.mark.parametrize(
    "meta",
    [
        {"name": "foo"},  # "good-class"
        {"generateName": "pvc-"},  # "generate-name"
        {"name": "foo", "labels": {"apps.kubernetes.io/name": "test"}},  # "good-labels"
        {"name": "foo", "annotations": {"foo": "bar"}},  # "good-annotations"
        {"name": "foo", "finalizers": ["example.com/foo"]},  # "finalizers"
        {"name": "foo", "deletionGracePeriodSeconds": 10},  # "deletion-grace-period-seconds"
        {  # "owner-references"
            "name": "foo",
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "pod",
                    "name": "foo",
                    "uid": "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d",
                }
            ],
        },
    ],
)
def test_class_valid_metadata(cp: ControlPlane, meta: dict[str, Any]) -> None:
    assert cp.client.create(DeviceClass.model_validate({"metadata": meta})).metadata.name


def test_class_missing_name(cp: ControlPlane) -> None:
    assert _causes(cp, _class("")) == [
        ("FieldValueRequired", "metadata.name", "Required value: name or generateName is required")
    ]


def test_class_bad_name(cp: ControlPlane) -> None:
    assert _causes(cp, _class(BAD_NAME)) == [_invalid("metadata.name", BAD_NAME, SUBDOMAIN)]


def test_class_bad_labels_and_annotations(cp: ControlPlane) -> None:
    # "bad-labels", "bad-annotations"
    labels = DeviceClass.model_validate({"metadata": {"name": "foo", "labels": {"hello-world": BAD_VALUE}}})
    [(reason, path, message)] = _causes(cp, labels)
    assert (reason, path) == ("FieldValueInvalid", "metadata.labels")
    assert message.startswith(f'Invalid value: "{BAD_VALUE}": a valid label must be an empty string')
    annotations = DeviceClass.model_validate({"metadata": {"name": "foo", "annotations": {BAD_NAME: "x"}}})
    [(reason, path, message)] = _causes(cp, annotations)
    assert (reason, path) == ("FieldValueInvalid", "metadata.annotations")
    assert message.startswith(f'Invalid value: "{BAD_NAME}": name part must consist of alphanumeric')


def test_class_extended_resource_name(cp: ControlPlane) -> None:
    # "good-extended-resource-name", "bad-extended-resource-name"
    assert cp.client.create(_class("good", extendedResourceName="example.com/gpu"))
    assert _causes(cp, _class(extendedResourceName="example.com")) == [
        _invalid("spec.extendedResourceName", "example.com", "must be a valid extended resource name")
    ]


def test_class_selectors(cp: ControlPlane) -> None:
    # "selectors": a selector without cel, an undeclared variable; 32 selectors are allowed
    valid = {"cel": {"expression": "true"}}
    selectors = [valid, {}, {"cel": {"expression": "noSuchVar"}}] + [valid] * 29
    assert _causes(cp, _class(selectors=selectors)) == [
        ("FieldValueRequired", "spec.selectors[1].cel", "Required value"),
        _invalid(
            "spec.selectors[2].cel.expression",
            "noSuchVar",
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')"
            "\n | noSuchVar\n | ^",
        ),
    ]


def test_class_too_many_selectors_and_configs(cp: ControlPlane) -> None:
    # "too-many-selectors", "too-many-configs": the size check short-circuits the items
    valid = {"cel": {"expression": "true"}}
    assert _causes(cp, _class(selectors=[valid] * 33)) == [
        ("FieldValueTooMany", "spec.selectors", "Too many: 33: must have at most 32 items")
    ]
    config = {"opaque": {"driver": "foo", "parameters": {"foo": 42}}}
    assert _causes(cp, _class(config=[config] * 33)) == [
        ("FieldValueTooMany", "spec.config", "Too many: 33: must have at most 32 items")
    ]


def _opaque(parameters: Any, driver: str = "foo") -> dict[str, Any]:
    return {"opaque": {"driver": driver, "parameters": parameters}}


def _sized(total: int) -> dict[str, str]:
    """A parameters object whose compact JSON encoding is ``total`` bytes (``{"str":"…"}``)."""
    return {"str": "x" * (total - len('{"str":""}'))}


def test_class_configuration(cp: ControlPlane) -> None:
    # "configuration": opaque without driver and parameters, a non-object, null, no opaque, at the
    # size limit (valid) and one byte over it
    config = [
        _opaque({"foo": 42}),
        {"opaque": {}},
        _opaque("hello-world"),
        _opaque(None),
        {},
        _opaque(_sized(MAX)),
        _opaque(_sized(MAX + 1)),
    ] + [_opaque({"foo": 42})] * 25
    assert _causes(cp, _class(config=config)) == [
        ("FieldValueRequired", "spec.config[1].opaque.driver", "Required value"),
        ("FieldValueRequired", "spec.config[1].opaque.parameters", "Required value"),
        (
            "FieldValueInvalid",
            "spec.config[2].opaque.parameters",
            'Invalid value: "<value omitted>": must be a valid JSON object',
        ),
        ("FieldValueRequired", "spec.config[3].opaque.parameters", "Required value"),
        ("FieldValueRequired", "spec.config[4].opaque", "Required value"),
        (
            "FieldValueTooLong",
            "spec.config[6].opaque.parameters",
            "Too long: may not be more than 10240 bytes",
        ),
    ]


def test_class_update_config_too_large_only_when_changed(cp: ControlPlane) -> None:
    # TestValidateClassUpdate "valid-config-large", "invalid-config-too-large"
    stored = cp.client.create(_class())
    large = edit(stored)
    large.spec = _class(config=[_opaque(_sized(MAX))]).spec
    stored = cp.client.update(large)
    too_large = edit(stored)
    too_large.spec = _class(config=[_opaque(_sized(MAX + 1))]).spec
    with pytest.raises(Invalid) as info:
        cp.client.update(too_large)
    [cause] = info.value.status.details.causes
    assert (cause.reason, cause.field) == ("FieldValueTooLong", "spec.config[0].opaque.parameters")


# --- DeviceTaintRule (TestValidateDeviceTaint) -----------------------------------------------------

SELECTOR = {"driver": "test.example.com", "pool": "foo", "device": "foo"}
TAINT = {"key": "example.com/taint", "value": "tainted", "effect": "NoSchedule"}


def _rule(
    name: str = "foo", selector: dict[str, Any] | None = None, taint: dict[str, Any] | None = None
) -> DeviceTaintRule:
    return DeviceTaintRule.model_validate(
        {
            "metadata": {"name": name},
            "spec": {"deviceSelector": selector or SELECTOR, "taint": taint or TAINT},
        }
    )


def test_taint_rule_good_and_valid_taint(cp: ControlPlane) -> None:
    # "good", "valid-taint"
    assert cp.client.create(_rule())
    assert cp.client.create(_rule("bar", taint={"key": "foo", "value": "foo", "effect": "NoExecute"}))


def test_taint_rule_missing_and_bad_name(cp: ControlPlane) -> None:
    # "missing-name", "bad-name"
    assert _causes(cp, _rule("")) == [
        ("FieldValueRequired", "metadata.name", "Required value: name or generateName is required")
    ]
    assert _causes(cp, _rule(BAD_NAME)) == [_invalid("metadata.name", BAD_NAME, SUBDOMAIN)]


@pytest.mark.parametrize(
    ("key", "message"),
    [("driver", SUBDOMAIN), ("pool", SUBDOMAIN), ("device", LABEL)],  # "bad-driver", "bad-pool", "bad-device"
)
def test_taint_rule_bad_selector(cp: ControlPlane, key: str, message: str) -> None:
    assert _causes(cp, _rule(selector={**SELECTOR, key: BAD_NAME})) == [
        _invalid(f"spec.deviceSelector.{key}", BAD_NAME, message)
    ]


def test_taint_rule_invalid_taint(cp: ControlPlane) -> None:
    # "invalid-taint": the effect is required
    assert _causes(cp, _rule(taint={"key": "foo", "value": "foo"})) == [
        ("FieldValueRequired", "spec.taint.effect", "Required value")
    ]


def test_taint_rule_name_is_immutable(cp: ControlPlane) -> None:
    # TestValidateDeviceTaintUpdate "valid-no-op-update"; "invalid-name-update" is a rename, which
    # an API server answers as another object (the name is the key)
    stored = cp.client.create(_rule("valid"))
    assert cp.client.update(edit(stored)).metadata.name == "valid"


# --- ResourceClaim (TestValidateClaim) -------------------------------------------------------------

REQUEST = {"name": "my-request", "exactly": {"deviceClassName": "my-class"}}
OPAQUE = _opaque({"kind": "foo", "apiVersion": "dra.example.com/v1"}, driver="dra.example.com")


def _claim(**devices: Any) -> ResourceClaim:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": "foo", "namespace": "kube-system"},
            "spec": {"devices": {"requests": [REQUEST], **devices}},
        }
    )


def test_claim_invalid_spec(cp: ControlPlane) -> None:
    # "invalid-spec": constraint and config request references, qualified names
    claim = _claim(
        constraints=[
            {"requests": ["my-request", BAD_NAME], "matchAttribute": "missing-domain"},
            {"matchAttribute": ""},
            {},
        ],
        config=[{"requests": ["my-request", BAD_NAME], **OPAQUE}],
    )
    fully = "a fully qualified name must be a domain and a name separated by a slash"
    assert _causes(cp, claim) == [
        _invalid("spec.devices.constraints[0].requests[1]", BAD_NAME, LABEL),
        _invalid("spec.devices.constraints[0].requests[1]", BAD_NAME, NOT_A_REQUEST),
        _invalid("spec.devices.constraints[0].matchAttribute", "missing-domain", C_IDENTIFIER),
        _invalid("spec.devices.constraints[0].matchAttribute", "missing-domain", fully),
        _invalid("spec.devices.constraints[1].matchAttribute", "", C_IDENTIFIER),
        _invalid("spec.devices.constraints[1].matchAttribute", "", fully),
        (
            "FieldValueRequired",
            "spec.devices.constraints[2]",
            'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, '
            "but multiple fields are set",
        ),
        _invalid("spec.devices.config[0].requests[1]", BAD_NAME, LABEL),
        _invalid("spec.devices.config[0].requests[1]", BAD_NAME, NOT_A_REQUEST),
    ]


def test_claim_valid_request_at_the_limits(cp: ControlPlane) -> None:
    # "valid-request": 32 requests, 32 constraints, 32 configs
    requests = [REQUEST] + [{**REQUEST, "name": f"my-request{i}"} for i in range(1, 32)]
    claim = _claim(constraints=[{"matchAttribute": "foo/bar"}] * 32, config=[OPAQUE] * 32)
    claim.spec.devices.requests = ResourceClaim.model_validate(
        {"metadata": {"name": "x"}, "spec": {"devices": {"requests": requests}}}
    ).spec.devices.requests
    assert cp.client.create(claim).metadata.name == "foo"


def test_claim_allocation_mode(cp: ControlPlane) -> None:
    # "allocation-mode": count below one, an unknown mode, a count with All, a duplicate name
    def request(name: str, mode: str, count: int | None) -> dict[str, Any]:
        exactly: dict[str, Any] = {"deviceClassName": "my-class", "allocationMode": mode}
        if count is not None:
            exactly["count"] = count
        return {"name": name, "exactly": exactly}

    claim = ResourceClaim.model_validate(
        {
            "metadata": {"name": "foo", "namespace": "kube-system"},
            "spec": {
                "devices": {
                    "requests": [
                        request("foo", "ExactCount", 1),
                        request("foo2", "All", None),
                        request("foo3", "ExactCount", -1),
                        request("foo4", "other", 1),
                        request("foo5", "All", 2),
                        request("foo", "ExactCount", 1),
                    ]
                }
            },
        }
    )
    assert _causes(cp, claim) == [
        (
            "FieldValueInvalid",
            "spec.devices.requests[2].exactly.count",
            "Invalid value: -1: must be greater than zero",
        ),
        (
            "FieldValueNotSupported",
            "spec.devices.requests[3].exactly.allocationMode",
            'Unsupported value: "other": supported values: "All", "ExactCount"',
        ),
        (
            "FieldValueInvalid",
            "spec.devices.requests[4].exactly.count",
            "Invalid value: 2: must not be specified when allocationMode is 'All'",
        ),
        ("FieldValueDuplicate", "spec.devices.requests[5]", 'Duplicate value: "foo"'),
    ]


def test_claim_configuration(cp: ControlPlane) -> None:
    # "configuration": a non-object, null, at the limit, one byte over it
    config = [
        _opaque("hello-world", "dra.example.com"),
        _opaque(None, "dra.example.com"),
        _opaque(_sized(MAX), "dra.example.com"),
        _opaque(_sized(MAX + 1), "dra.example.com"),
    ]
    assert _causes(cp, _claim(config=config)) == [
        (
            "FieldValueInvalid",
            "spec.devices.config[0].opaque.parameters",
            'Invalid value: "<value omitted>": must be a valid JSON object',
        ),
        ("FieldValueRequired", "spec.devices.config[1].opaque.parameters", "Required value"),
        (
            "FieldValueTooLong",
            "spec.devices.config[3].opaque.parameters",
            "Too long: may not be more than 10240 bytes",
        ),
    ]


def test_claim_cel_length(cp: ControlPlane) -> None:
    # "CEL-length": an expression of exactly the limit is valid, one byte more is TooLong
    expression = 'device.driver == ""'
    ok = expression.replace('""', '"' + "x" * (MAX - len(expression)) + '"')
    too_long = expression.replace('""', '"' + "x" * (MAX - len(expression) + 1) + '"')
    second = {
        "name": "my-request-2",
        "exactly": {
            "deviceClassName": "my-class",
            "selectors": [{"cel": {"expression": e}} for e in (ok, too_long)],
        },
    }
    claim = _claim()
    claim.spec.devices.requests = ResourceClaim.model_validate(
        {"metadata": {"name": "x"}, "spec": {"devices": {"requests": [REQUEST, second]}}}
    ).spec.devices.requests
    assert _causes(cp, claim) == [
        (
            "FieldValueTooLong",
            "spec.devices.requests[1].exactly.selectors[1].cel.expression",
            "Too long: may not be more than 10240 bytes",
        )
    ]


# --- ResourceSlice (TestValidateResourceSlice) -----------------------------------------------------


def _slice(**spec: Any) -> ResourceSlice:
    body: dict[str, Any] = {
        "driver": "test.example.com",
        "nodeName": "foo",
        "pool": {"name": "foo", "resourceSliceCount": 1},
        "devices": [{"name": "device-0"}],
    }
    body.update(spec)
    return ResourceSlice.model_validate(
        {"metadata": {"name": "foo"}, "spec": {k: v for k, v in body.items() if v is not None}}
    )


MULTIPLE = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"


def test_slice_bad_nodename(cp: ControlPlane) -> None:
    # "bad-nodename": the pool (named after the node) and the node name
    assert _causes(cp, _slice(nodeName=BAD_NAME, pool={"name": BAD_NAME, "resourceSliceCount": 1})) == [
        _invalid("spec.pool.name", BAD_NAME, SUBDOMAIN),
        _invalid("spec.nodeName", BAD_NAME, SUBDOMAIN),
    ]


def test_slice_bad_pool(cp: ControlPlane) -> None:
    # "bad-pool": too long (PoolNameMaxLength 253), no slices, a negative generation
    name = "x/" * (253 // 2) + "xy"
    causes = _causes(cp, _slice(pool={"name": name, "resourceSliceCount": 0, "generation": -1}))
    assert [(reason, path) for reason, path, _ in causes] == [
        ("FieldValueTooLong", "spec.pool.name"),
        ("FieldValueInvalid", "spec.pool.resourceSliceCount"),
        ("FieldValueInvalid", "spec.pool.generation"),
    ]
    assert causes[1][2] == "Invalid value: 0: must be greater than zero"
    assert causes[2][2] == "Invalid value: -1: must be greater than or equal to zero"


def test_slice_missing_pool_name(cp: ControlPlane) -> None:
    assert _causes(cp, _slice(pool={"name": "", "resourceSliceCount": 1})) == [
        ("FieldValueRequired", "spec.pool.name", "Required value")
    ]


def test_slice_node_selection(cp: ControlPlane) -> None:
    # "bad-empty-node-selector", "bad-node-selection", "bad-node-selection-all-nodes",
    # "empty-node-selection"
    assert _causes(cp, _slice(nodeName=None, nodeSelector={})) == [
        (
            "FieldValueRequired",
            "spec.nodeSelector.nodeSelectorTerms",
            "Required value: must have at least one node selector term",
        ),
        (
            "FieldValueInvalid",
            "spec.nodeSelector.nodeSelectorTerms",
            "Invalid value: []: must have exactly one node selector term",
        ),
    ]
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker"]}]}
    both = _slice(nodeName="worker", nodeSelector={"nodeSelectorTerms": [term]})
    assert _causes(cp, both) == [
        _invalid("spec", "{`nodeName`, `nodeSelector`}", MULTIPLE + ", but multiple fields are set")
    ]
    assert _causes(cp, _slice(nodeName="worker", allNodes=True)) == [
        _invalid("spec", "{`nodeName`, `allNodes`}", MULTIPLE + ", but multiple fields are set")
    ]
    assert _causes(cp, _slice(nodeName=None)) == [
        ("FieldValueRequired", "spec", f"Required value: {MULTIPLE}")
    ]


def test_slice_bad_driver_and_devices(cp: ControlPlane) -> None:
    # "bad-drivername", "bad-devices", "both-shared-counters-and-devices"
    assert _causes(cp, _slice(driver=BAD_NAME)) == [_invalid("spec.driver", BAD_NAME, SUBDOMAIN)]
    devices = [{"name": "device-0"}, {"name": BAD_NAME}, {"name": "device-2"}]
    assert _causes(cp, _slice(devices=devices)) == [_invalid("spec.devices[1].name", BAD_NAME, LABEL)]
    counters = [{"name": "counterset", "counters": {"memory": {"value": "1Gi"}}}]
    assert _causes(cp, _slice(sharedCounters=counters)) == [
        _invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed")
    ]


def test_slice_bad_attribute(cp: ControlPlane) -> None:
    # "bad-attribute": a bad key without a value, two values, a bad and too long version, a too
    # long string (DeviceAttributeMaxValueLength 64)
    devices = [
        {"name": "d0"},
        {"name": "d1", "attributes": {BAD_NAME: {}}},
        {"name": "d2", "attributes": {"foo": {"string": "x", "version": "1.2.3"}}},
        {"name": "d3", "attributes": {"foo": {"version": "x" * 65}}},
        {"name": "d4", "attributes": {"foo": {"string": "x" * 65}}},
    ]
    causes = _causes(cp, _slice(devices=devices))
    assert [(reason, path) for reason, path, _ in causes] == [
        ("FieldValueInvalid", f"spec.devices[1].attributes[{BAD_NAME}]"),
        ("FieldValueInvalid", f"spec.devices[1].attributes[{BAD_NAME}]"),
        ("FieldValueInvalid", "spec.devices[2].attributes[foo]"),
        ("FieldValueInvalid", "spec.devices[3].attributes[foo].version"),
        ("FieldValueTooLong", "spec.devices[3].attributes[foo].version"),
        ("FieldValueTooLong", "spec.devices[4].attributes[foo].string"),
    ]
    assert causes[0][2] == f'Invalid value: "{BAD_NAME}": {C_IDENTIFIER}'
    assert causes[1][2] == 'Invalid value: "": exactly one value must be specified'
    assert causes[3][2].endswith("must be a string compatible with semver.org spec 2.0.0")
    assert causes[5][2] == "Too long: may not be more than 64 bytes"


@pytest.mark.parametrize("version", ["1.2.3", "1.2.3-rc.1+build.5"])
def test_slice_version_ending_in_a_newline(version: str) -> None:
    # validateDeviceAttribute parses the version with blang/semver, which refuses a trailing "\n";
    # a Python ``$`` anchor matched before it, so kbatch stored "1.2.3\n"
    def versioned(text: str) -> ResourceSlice:
        return _slice(devices=[{"name": "d0", "attributes": {"v": {"version": text}}}])

    assert ControlPlane(controllers=[]).client.create(versioned(version)).metadata.uid
    assert _causes(ControlPlane(controllers=[]), versioned(version + "\n")) == [
        _invalid("spec.devices[0].attributes[v].version", version + "\\n",
                 "must be a string compatible with semver.org spec 2.0.0")
    ]


def test_slice_device_limits(cp: ControlPlane) -> None:
    # "too-large" (128 devices), "good-taints" and "too-large-taints" (64 with taints)
    assert _causes(cp, _slice(devices=[{"name": f"d{i}"} for i in range(129)])) == [
        ("FieldValueTooMany", "spec.devices", "Too many: 129: must have at most 128 items")
    ]
    taint = [{"key": "example.com/taint", "effect": "NoExecute"}]
    assert _causes(cp, _slice(devices=[{"name": f"d{i}", "taints": taint} for i in range(65)])) == [
        ("FieldValueTooMany", "spec.devices", "Too many: 65: must have at most 64 items")
    ]
    assert cp.client.create(_slice(devices=[{"name": f"d{i}", "taints": taint} for i in range(64)]))


# --- ResourceClaimTemplate (TestValidateClaimTemplate) ---------------------------------------------


def _template(name: str = "foo", request: dict[str, Any] | None = None, **meta: Any) -> ResourceClaimTemplate:
    return ResourceClaimTemplate.model_validate(
        {
            "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"metadata": meta or None, "spec": {"devices": {"requests": [request or REQUEST]}}},
        }
    )


def test_template_bad_name_and_class(cp: ControlPlane) -> None:
    # "bad-name", "bad-classname"
    assert _causes(cp, _template(BAD_NAME)) == [_invalid("metadata.name", BAD_NAME, SUBDOMAIN)]
    bad_class = {"name": "my-request", "exactly": {"deviceClassName": BAD_NAME}}
    assert _causes(cp, _template(request=bad_class)) == [
        _invalid("spec.spec.devices.requests[0].exactly.deviceClassName", BAD_NAME, SUBDOMAIN)
    ]


def test_template_metadata_is_validated(cp: ControlPlane) -> None:
    # validation.go validateResourceClaimTemplateSpec: corevalidation.ValidateTemplateObjectMeta on
    # spec.metadata (annotations, then labels), as the claims made from it carry them
    template = _template(labels={"hello-world": BAD_VALUE}, annotations={BAD_NAME: "x"})
    causes = _causes(cp, template)
    assert [(reason, path) for reason, path, _ in causes] == [
        ("FieldValueInvalid", "spec.metadata.annotations"),
        ("FieldValueInvalid", "spec.metadata.labels"),
    ]
    assert causes[1][2].startswith(f'Invalid value: "{BAD_VALUE}": a valid label must be an empty string')


def test_template_spec_is_immutable(cp: ControlPlane) -> None:
    # TestValidateClaimTemplateUpdate "invalid-update-class"
    stored = cp.client.create(_template())
    changed = edit(stored)
    changed.spec.spec.devices.requests[0].exactly.device_class_name = "my-class2"
    with pytest.raises(Invalid) as info:
        cp.client.update(changed)
    [cause] = info.value.status.details.causes
    assert (cause.reason, cause.field) == ("FieldValueInvalid", "spec")
    assert cause.message.endswith("field is immutable")
