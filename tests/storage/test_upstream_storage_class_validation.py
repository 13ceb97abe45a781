"""Upstream's StorageClass validation tables, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/storage/validation/validation_test.go`` (stored copy with
``MutableCSINodeAllocatableCount``, 1.33+): ``TestValidateStorageClass``,
``TestValidateVolumeBindingMode``, ``TestValidateUpdateVolumeBindingMode``,
``TestValidateAllowedTopologies``. A success case is created (and updated unchanged); an error case
is refused with a 422. Upstream calls the validator on undefaulted objects; through an API server a
class is defaulted first (``reclaimPolicy: Delete``, ``volumeBindingMode: Immediate``), so the rows
that rely on an absent mode read as noted below. "namespace is present" does not translate: the API
server clears the namespace of a cluster-scoped object before validating it (``rest.BeforeCreate``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import Invalid
from kbatch.api.storage_v1 import StorageClass
from tests.api.upstream_batch import rejected, server


def sc(name: str = "foo", **fields: Any) -> StorageClass:
    body: dict[str, Any] = {"metadata": {"name": name}, "provisioner": "kubernetes.io/foo-provisioner"}
    body.update(fields)
    return StorageClass.model_validate(body)


def _long_parameters() -> dict[str, str]:
    """upstream's map just over ``maxProvisionerParameterSize`` (256 kB)."""
    params: dict[str, str] = {}
    total = 0
    while total < 256 * 1024:
        k, v = f"param/{total}", f"value-{total}"
        params[k] = v
        total += len(k) + len(v)
    return params


VALID: dict[str, dict[str, Any]] = {
    "empty parameters": {"parameters": {}, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"},
    "nil parameters": {"reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"},
    "some parameters": {"parameters": {"kubernetes.io/foo-parameter": "free/form/string",
                                       "foo-parameter": "free-form-string",
                                       "foo-parameter2":
                                           '{"embedded": "json", "with": {"structures":"inside"}}'},
                        "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"},
    "retain reclaimPolicy": {"reclaimPolicy": "Retain", "volumeBindingMode": "Immediate"},
}


@pytest.mark.parametrize("fields", VALID.values(), ids=VALID.keys())
def test_validate_storage_class_success_cases(fields: dict[str, Any]) -> None:
    srv = server()
    srv.update(srv.create(sc(**fields)))


INVALID: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {
    "invalid provisioner": ({"provisioner": "kubernetes.io/invalid/provisioner"},
                            [("provisioner", "FieldValueInvalid")]),
    "invalid empty parameter name": ({"provisioner": "kubernetes.io/foo", "parameters": {"": "value"}},
                                     [("parameters", "FieldValueInvalid")]),
    "provisioner: Required value": ({"provisioner": ""}, [("provisioner", "FieldValueRequired")]),
    "too long parameters": ({"provisioner": "kubernetes.io/foo", "parameters": _long_parameters()},
                            [("parameters", "FieldValueTooLong")]),
    "invalid reclaimpolicy": ({"provisioner": "kubernetes.io/foo", "reclaimPolicy": "Recycle"},
                              [("reclaimPolicy", "FieldValueNotSupported")]),
}


@pytest.mark.parametrize(("fields", "expected"), INVALID.values(), ids=INVALID.keys())
def test_validate_storage_class_error_cases(fields: dict[str, Any],
                                           expected: list[tuple[str, str]]) -> None:
    causes = rejected(server().create, sc(**fields))
    assert [(c[0], c[1]) for c in causes] == expected, causes


def test_invalid_provisioner_message_is_the_qualified_name_rule() -> None:
    """``IsQualifiedName`` is ``content.IsLabelKey`` since apimachinery 1.35
    (pkg/util/validation/validation.go), so a provisioner reads as a label key."""
    causes = rejected(server().create, sc(provisioner="kubernetes.io/invalid/provisioner"))
    assert "a valid label key must consist of alphanumeric characters" in causes[0][2], causes


# --- TestValidateVolumeBindingMode ----------------------------------------------------------------

@pytest.mark.parametrize("mode", ["Immediate", "WaitForFirstConsumer"],
                         ids=["immediate mode", "waiting mode"])
def test_binding_mode_success_cases(mode: str) -> None:
    created = server().create(sc(volumeBindingMode=mode))
    assert created.volume_binding_mode == mode


def test_binding_mode_invalid_mode() -> None:
    causes = rejected(server().create, sc(volumeBindingMode="foo"))
    assert causes == [("volumeBindingMode", "FieldValueNotSupported",
                       'Unsupported value: "foo": supported values: "Immediate", "WaitForFirstConsumer"')]


def test_binding_mode_no_mode_is_defaulted_through_the_api() -> None:
    """"no mode": upstream's validator refuses a nil mode; through the API it is defaulted first
    (SetDefaults_StorageClass), as kube-apiserver does."""
    created = server().create(sc())
    assert (created.volume_binding_mode, created.reclaim_policy) == ("Immediate", "Delete")


# --- TestValidateUpdateVolumeBindingMode ----------------------------------------------------------

UPDATES: dict[str, tuple[str | None, str | None, bool]] = {
    "old and new no mode": (None, None, True),
    "old and new same mode value": ("Immediate", "Immediate", True),
    "old no mode, new mode": (None, "WaitForFirstConsumer", False),
    "old mode, new no mode": ("WaitForFirstConsumer", None, False),  # new defaulted to Immediate
    "old and new different modes": ("WaitForFirstConsumer", "Immediate", False),
}


@pytest.mark.parametrize(("old", "new", "ok"), UPDATES.values(), ids=UPDATES.keys())
def test_update_binding_mode(old: str | None, new: str | None, ok: bool) -> None:
    srv = server()
    stored = srv.create(sc(**({"volumeBindingMode": old} if old else {})))
    changed = sc(**({"volumeBindingMode": new} if new else {}))
    changed.metadata.resource_version = stored.metadata.resource_version
    if ok:
        srv.update(changed)
    else:
        causes = rejected(srv.update, changed)
        assert [(c[0], c[1]) for c in causes] == [("volumeBindingMode", "FieldValueInvalid")], causes
        assert causes[0][2].endswith("field is immutable"), causes


@pytest.mark.parametrize(("field", "old", "new"), [
    ("parameters", {"parameters": {"a": "b"}}, {"parameters": {"a": "c"}}),
    ("provisioner", {}, {"provisioner": "kubernetes.io/other"}),
    ("reclaimPolicy", {}, {"reclaimPolicy": "Retain"}),
])
def test_update_forbidden_fields(field: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    """ValidateStorageClassUpdate: parameters, provisioner and reclaimPolicy never change."""
    srv = server()
    stored = srv.create(sc(**old))
    changed = sc(**new)
    changed.metadata.resource_version = stored.metadata.resource_version
    causes = rejected(srv.update, changed)
    assert causes == [(field, "FieldValueForbidden", f"Forbidden: updates to {field} are forbidden.")], causes


# --- TestValidateAllowedTopologies ----------------------------------------------------------------

def term(*exprs: tuple[str, list[str]]) -> dict[str, Any]:
    return {"matchLabelExpressions": [{"key": k, "values": v} for k, v in exprs]}


ZONE, HOST = "failure-domain.beta.kubernetes.io/zone", "kubernetes.io/hostname"
TOPOLOGIES: dict[str, tuple[list[dict[str, Any]] | None, bool]] = {
    "no topology": (None, True),
    "valid topology": ([term((ZONE, ["zone1"]), (HOST, ["node1"])),
                        term((ZONE, ["zone2"]), (HOST, ["node2"]))], True),
    "topology invalid key": ([term(("/invalidkey", ["zone1"]))], False),
    "topology lack of values": ([term((HOST, []))], False),
    "duplicate TopologySelectorRequirement values": ([term((HOST, ["node1", "node1"]))], False),
    "multiple TopologySelectorRequirement values": ([term((HOST, ["node1", "node2"]))], True),
    "empty MatchLabelExpressions": ([{"matchLabelExpressions": None}], False),
    "duplicate MatchLabelExpression keys": ([term((HOST, ["node1"]), (HOST, ["node2"]))], False),
    "duplicate MatchLabelExpression keys but across separate terms": (
        [term((HOST, ["node1"])), term((HOST, ["node2"]))], True),
    "duplicate AllowedTopologies terms - identical": (
        [term((ZONE, ["zone1"]), (HOST, ["node1"])), term((ZONE, ["zone1"]), (HOST, ["node1"]))], False),
    ("two AllowedTopologies terms, with a pair of the same MatchLabelExpressions"
     " and a pair of different ones"): (
        [term((ZONE, ["zone1"]), (HOST, ["node1"])), term((ZONE, ["zone1"]), (HOST, ["node2"]))], True),
    "two AllowedTopologies terms, with a pair of the same Values and a pair of different ones": (
        [term((HOST, ["node1", "node2"])), term((HOST, ["node1", "node3"]))], True),
    "duplicate AllowedTopologies terms - different MatchLabelExpressions order": (
        [term((HOST, ["node1"]), (ZONE, ["zone1"])), term((ZONE, ["zone1"]), (HOST, ["node1"]))], False),
    "duplicate AllowedTopologies terms - different TopologySelectorRequirement values order": (
        [term((ZONE, ["zone1", "zone2"])), term((ZONE, ["zone2", "zone1"]))], False),
}


@pytest.mark.parametrize(("terms", "ok"), TOPOLOGIES.values(), ids=TOPOLOGIES.keys())
def test_allowed_topologies(terms: list[dict[str, Any]] | None, ok: bool) -> None:
    obj = sc(volumeBindingMode="WaitForFirstConsumer", allowedTopologies=terms)
    if ok:
        server().create(obj)
    else:
        with pytest.raises(Invalid):
            server().create(obj)


def test_duplicate_terms_are_reported_at_the_later_term() -> None:
    terms = TOPOLOGIES["duplicate AllowedTopologies terms - identical"][0]
    causes = rejected(server().create, sc(allowedTopologies=terms))
    assert [(c[0], c[1]) for c in causes] == [("allowedTopologies[1].matchLabelExpressions",
                                               "FieldValueDuplicate")], causes
