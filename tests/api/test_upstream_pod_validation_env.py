"""Upstream's ``TestValidateEnv`` table, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go`` (stored copy at commit
000f2605, 1.35+), ``TestValidateEnv`` and ``TestRelaxedValidateEnv``: the success list and each
error case, as a container's ``env`` of a Pod created through ``APIServer.create``. Upstream checks
that each error's text contains ``expectedError``; here each case names the cause's field, reason
and the start of its message. The resourceFieldRef divisor cases come from
``validateContainerResourceDivisor`` (``validation.go``), which ``TestValidateEnv`` does not reach.

Not translated: "missing APIVersion on ObjectFieldSelector" (``SetDefaults_ObjectFieldSelector``
sets ``apiVersion: v1`` before validation, so through the API the var is accepted, as it is by
kube-apiserver); the ``updateErrorCase`` names (they fail only without
RelaxedEnvironmentVariableValidation, GA and locked on since 1.34).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import INVALID, NOT_SUPPORTED, REQUIRED, causes, created, ctr, pod

E0 = "spec.containers[0].env[0]"
ENV_PATHS_MSG = ('supported values: "metadata.name", "metadata.namespace", "metadata.uid", '
                 '"spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", '
                 '"status.podIP", "status.podIPs"')


def _env(*env: dict[str, Any]) -> dict[str, Any]:
    return {"containers": [ctr(env=list(env))]}


def _field(path: str, name: str = "abc") -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": path}}}


def _resource(resource: str, divisor: str) -> dict[str, Any]:
    return {"name": "abc", "valueFrom": {"resourceFieldRef": {"resource": resource, "divisor": divisor}}}


_SECRET = {"secretKeyRef": {"name": "a-secret", "key": "a-key"}}
_CONFIG_MAP = {"configMapKeyRef": {"name": "some-config-map", "key": "some-key"}}
_FIELD_REF = {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}

SUCCESS: dict[str, dict[str, Any]] = {
    "successCase values": _env({"name": "abc", "value": "value"}, {"name": "ABC", "value": "value"},
                               {"name": "AbC_123", "value": "value"}, {"name": "abc", "value": ""},
                               {"name": "a.b.c", "value": "value"}, {"name": "a-b-c", "value": "value"}),
    "successCase fieldRefs": _env(*[_field(p) for p in (
        "metadata.annotations['key']", "metadata.labels['key']", "metadata.name", "metadata.namespace",
        "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP",
        "status.podIPs")]),
    "successCase key refs": _env({"name": "secret_value", "valueFrom": _SECRET},
                                 {"name": "ENV_VAR_1", "valueFrom": _CONFIG_MAP}),
    "updateSuccessCase relaxed names": _env(*[{"name": n, "value": "value"} for n in (
        "!\"#$%&'()", "* +,-./0123456789", ":;<>?@", "ABCDEFG", "abcdefghijklmn", "[\\]^_`{}|~")]),
    "ConvertDownwardAPIFieldLabel: spec.host is spec.nodeName": _env(_field("spec.host")),
    "validateContainerResourceDivisor: 1m for cpu": _env(_resource("limits.cpu", "1m")),
    "validateContainerResourceDivisor: 1Mi for memory": _env(_resource("requests.memory", "1Mi")),
    "validateContainerResourceDivisor: any divisor for hugepages":
        _env(_resource("limits.hugepages-2Mi", "3")),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_env_is_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


# (case, env var, expected (field, reason, message start) list)
ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = [
    ("zero-length name", {"name": ""}, [(f"{E0}.name", REQUIRED, "Required value")]),
    ("TestRelaxedValidateEnv: name with =", {"name": "a=b", "value": "v"},
     [(f"{E0}.name", INVALID, 'Invalid value: "a=b": a valid environment variable name must consist only')]),
    ("value and valueFrom specified", {"name": "abc", "value": "foo", "valueFrom": _FIELD_REF},
     [(f"{E0}.valueFrom", INVALID, 'Invalid value: "": may not be specified when `value`')]),
    ("valueFrom without a source", {"name": "abc", "valueFrom": {}},
     [(f"{E0}.valueFrom", INVALID, 'Invalid value: "": must specify one of: `fieldRef`')]),
    ("valueFrom.fieldRef and valueFrom.secretKeyRef specified",
     {"name": "abc", "valueFrom": {**_FIELD_REF, **_SECRET}},
     [(f"{E0}.valueFrom", INVALID, 'Invalid value: "": may not have more than one field')]),
    ("valueFrom.fieldRef and valueFrom.configMapKeyRef set",
     {"name": "some_var_name", "valueFrom": {**_FIELD_REF, **_CONFIG_MAP}},
     [(f"{E0}.valueFrom", INVALID, 'Invalid value: "": may not have more than one field')]),
    ("valueFrom.secretKeyRef.name invalid",
     {"name": "abc", "valueFrom": {"secretKeyRef": {"name": "$%^&*#", "key": "a-key"}}},
     [(f"{E0}.valueFrom.secretKeyRef.name", INVALID,
       'Invalid value: "$%^&*#": a lowercase RFC 1123 subdomain')]),
    ("valueFrom.configMapKeyRef.name invalid",
     {"name": "abc", "valueFrom": {"configMapKeyRef": {"name": "$%^&*#", "key": "some-key"}}},
     [(f"{E0}.valueFrom.configMapKeyRef.name", INVALID,
       'Invalid value: "$%^&*#": a lowercase RFC 1123 subdomain')]),
    ("missing FieldPath on ObjectFieldSelector",
     {"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1"}}},
     [(f"{E0}.valueFrom.fieldRef.fieldPath", REQUIRED, "Required value")]),
    ("invalid fieldPath", _field("metadata.whoops"),
     [(f"{E0}.valueFrom.fieldRef.fieldPath", INVALID,
       'Invalid value: "metadata.whoops": error converting fieldPath: field label not supported: '
       "metadata.whoops")]),
    ("metadata.name with subscript", _field("metadata.name['key']", "labels"),
     [(f"{E0}.valueFrom.fieldRef.fieldPath", INVALID,
       "Invalid value: \"metadata.name['key']\": error converting fieldPath: field label does not support "
       "subscript")]),
    ("metadata.labels without subscript", _field("metadata.labels", "labels"),
     [(f"{E0}.valueFrom.fieldRef.fieldPath", NOT_SUPPORTED,
       f'Unsupported value: "metadata.labels": {ENV_PATHS_MSG}')]),
    ("metadata.annotations without subscript", _field("metadata.annotations"),
     [(f"{E0}.valueFrom.fieldRef.fieldPath", NOT_SUPPORTED,
       f'Unsupported value: "metadata.annotations": {ENV_PATHS_MSG}')]),
    ("metadata.annotations with invalid key", _field("metadata.annotations['invalid~key']"),
     [(f"{E0}.valueFrom.fieldRef", INVALID, 'Invalid value: "invalid~key"')]),
    ("metadata.labels with invalid key", _field("metadata.labels['Www.k8s.io/test']"),
     [(f"{E0}.valueFrom.fieldRef", INVALID, 'Invalid value: "Www.k8s.io/test"')]),
    ("unsupported fieldPath", _field("status.phase"),
     [(f"{E0}.valueFrom.fieldRef.fieldPath", NOT_SUPPORTED,
       f'Unsupported value: "status.phase": {ENV_PATHS_MSG}')]),
    ("ConvertDownwardAPIFieldLabel: apiVersion other than v1",
     {"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}}},
     [(f"{E0}.valueFrom.fieldRef.fieldPath", INVALID,
       'Invalid value: "metadata.name": error converting fieldPath: unsupported pod version: v2')]),
    ("validateContainerResourceDivisor: 2m for cpu", _resource("limits.cpu", "2m"),
     [(f"{E0}.valueFrom.resourceFieldRef.divisor", INVALID,
       'Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource')]),
    ("validateContainerResourceDivisor: 2Mi for memory", _resource("requests.memory", "2Mi"),
     [(f"{E0}.valueFrom.resourceFieldRef.divisor", INVALID,
       'Invalid value: "requests.memory": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, '
       "1Ti, 1Pi, 1Ei are supported with the memory resource")]),
    ("validateContainerResourceDivisor: 1m for ephemeral storage",
     _resource("limits.ephemeral-storage", "1m"),
     [(f"{E0}.valueFrom.resourceFieldRef.divisor", INVALID,
       'Invalid value: "limits.ephemeral-storage": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, '
       "1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource")]),
]


@pytest.mark.parametrize(("env", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_env_is_rejected(env: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    got = causes(pod(_env(env)))
    assert [(f, r) for f, r, _ in got] == [(f, r) for f, r, _ in expected]
    for (_, _, message), (_, _, start) in zip(got, expected, strict=True):
        assert message.startswith(start), message
