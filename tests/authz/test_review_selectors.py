"""``fieldSelector``/``labelSelector`` in a review's ``resourceAttributes`` (AuthorizeWithSelectors, GA
in Kubernetes 1.37): validated as ``pkg/apis/authorization/validation/validation.go``
``validateResourceAttributes`` does, echoed in the answer's ``spec``, ignored by RBAC."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import Invalid
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.reviews import review
from kbatch.authz.user import UserInfo

ADMIN = UserInfo("kubernetes-admin", ("system:masters", "system:authenticated"))


def _ssar(**attributes: Any) -> dict[str, Any]:
    spec = {"resourceAttributes": {"namespace": "x", "verb": "list", "resource": "pods", **attributes}}
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec}


def _errors(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    with pytest.raises(Invalid) as err:
        review("SelfSubjectAccessReview", body, None, ADMIN, RbacSnapshot())
    return [(e.type.value[0], e.field, e.detail) for e in err.value.errors]


def test_valid_selectors_are_echoed() -> None:
    field = {"requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]},
                              {"key": "metadata.name", "operator": "FutureOp"}]}
    label = {"rawSelector": "app=web"}
    out = review("SelfSubjectAccessReview", _ssar(fieldSelector=field, labelSelector=label), None, ADMIN,
                 RbacSnapshot())
    assert out["spec"]["resourceAttributes"]["fieldSelector"] == field
    assert out["spec"]["resourceAttributes"]["labelSelector"] == label
    assert out["status"] == {"allowed": True}


def test_raw_and_requirements_together_are_invalid() -> None:
    both = {"rawSelector": "a=b", "requirements": [{"key": "a", "operator": "Exists"}]}
    assert _errors(_ssar(labelSelector=both)) == [
        ("FieldValueInvalid", "spec.resourceAttributes.labelSelector.rawSelector",
         "may not specified at the same time as requirements")]


def test_an_empty_selector_is_required_to_say_something() -> None:
    assert _errors(_ssar(fieldSelector={})) == [
        ("FieldValueRequired", "spec.resourceAttributes.fieldSelector.requirements",
         "when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required")]


def test_requirements_are_checked() -> None:
    field = {"requirements": [{"operator": "In"}]}
    label = {"requirements": [{"key": "-bad", "operator": "Exists", "values": ["v"]},
                              {"key": "tier", "operator": "NotIn", "values": ["not valid!"]}]}
    errors = _errors(_ssar(fieldSelector=field, labelSelector=label))
    fields = [(t, f) for t, f, _ in errors]
    assert fields == [
        ("FieldValueRequired", "spec.resourceAttributes.fieldSelector.requirements[0].key"),
        ("FieldValueRequired", "spec.resourceAttributes.fieldSelector.requirements[0].values"),
        ("FieldValueForbidden", "spec.resourceAttributes.labelSelector.requirements[0].values"),
        ("FieldValueInvalid", "spec.resourceAttributes.labelSelector.requirements[0].key"),
        ("FieldValueInvalid", "spec.resourceAttributes.labelSelector.requirements[1].values[0]")]
