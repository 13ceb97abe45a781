"""A request's field selector as the authorizers see it (k8s.io/apiserver
``pkg/endpoints/request/requestinfo.go``: a list or watch with ``metadata.name=<name>`` names that
object; ``filters/authorization.go``: the parsed selector of a list, watch or deletecollection, none
when it does not parse), and a review's (``pkg/registry/authorization/util/helpers.go``)."""

from __future__ import annotations

import pytest

from kbatch.api.selectors import FieldRequirement
from kbatch.authz.request import request_attributes
from kbatch.authz.reviews import field_requirements
from kbatch.authz.user import UserInfo

JANE = UserInfo("jane")
NODE_N1 = (FieldRequirement("spec.nodeName", "=", "n1"),)


@pytest.mark.parametrize(
    ("method", "path", "watch", "selector", "name", "requirements"),
    [
        ("GET", "/api/v1/pods", False, "spec.nodeName=n1", "", NODE_N1),
        ("GET", "/api/v1/pods", True, "spec.nodeName==n1", "", NODE_N1),
        (
            "GET",
            "/api/v1/nodes",
            False,
            "metadata.name=n1",
            "n1",
            (FieldRequirement("metadata.name", "=", "n1"),),
        ),
        (
            "GET",
            "/api/v1/nodes",
            False,
            "metadata.name!=n1",
            "",
            (FieldRequirement("metadata.name", "!=", "n1"),),
        ),
        (
            "GET",
            "/api/v1/nodes",
            False,
            "metadata.name=a/b",
            "",
            (FieldRequirement("metadata.name", "=", "a/b"),),
        ),
        (
            "DELETE",
            "/api/v1/namespaces/x/pods",
            False,
            "metadata.name=p",
            "",
            (FieldRequirement("metadata.name", "=", "p"),),
        ),
        ("GET", "/api/v1/namespaces/x/pods/p", False, "spec.nodeName=n1", "p", ()),  # a get carries none
        ("GET", "/api/v1/pods", False, "spec.nodeName", "", ()),  # does not parse: none
    ],
)
def test_request_field_selector(
    method: str, path: str, watch: bool, selector: str, name: str, requirements: tuple[FieldRequirement, ...]
) -> None:
    attrs = request_attributes(JANE, method, path, watch=watch, field_selector=selector)
    assert (attrs.name, attrs.field_selector) == (name, requirements)


@pytest.mark.parametrize(
    ("selector", "requirements"),
    [
        ({"rawSelector": "spec.nodeName=n1"}, NODE_N1),
        ({"requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}]}, NODE_N1),
        (
            {"requirements": [{"key": "spec.nodeName", "operator": "NotIn", "values": ["n1"]}]},
            (FieldRequirement("spec.nodeName", "!=", "n1"),),
        ),
        ({"requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1", "n2"]}]}, ()),
        ({"requirements": [{"key": "spec.nodeName", "operator": "Exists"}]}, ()),
        ({"rawSelector": "spec.nodeName"}, ()),
        (None, ()),
    ],
)
def test_review_field_selector(selector: object, requirements: tuple[FieldRequirement, ...]) -> None:
    assert field_requirements(selector) == requirements  # type: ignore[arg-type]
