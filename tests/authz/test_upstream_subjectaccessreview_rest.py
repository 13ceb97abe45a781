"""Upstream's SubjectAccessReview REST table, case by case, through :mod:`kbatch.authz.reviews`.

Source: kubernetes/kubernetes ``pkg/registry/authorization/subjectaccessreview/rest_test.go``
``TestCreate`` (stored commit 00bdb3fa). Upstream runs each spec against a fake authorizer and
checks the attributes it was asked about; here the attributes kbatch derives
(:func:`~kbatch.authz.reviews.attributes`) are checked the same way. The fake's canned
``ok``/``reason``/``err`` answers do not translate (kbatch's authorizer is RBAC's, which never
returns an evaluation error): the status rows are covered by ``tests/authz/test_reviews.py``.
"""

from __future__ import annotations

import pytest

from kbatch.api.errors import Invalid
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.reviews import attributes, review
from kbatch.authz.user import Attributes, UserInfo

BOB = UserInfo("bob")
SCALE = {"namespace": "myns", "verb": "create", "group": "extensions", "version": "v1beta1",
         "resource": "deployments", "subresource": "scale", "name": "mydeployment"}


def test_empty() -> None:
    with pytest.raises(Invalid, match="nonResourceAttributes or resourceAttributes"):
        review("SubjectAccessReview", {"spec": {}}, None, UserInfo(), RbacSnapshot())


@pytest.mark.parametrize("case", ["nonresource rejected", "nonresource allowed"])
def test_nonresource(case: str) -> None:
    spec = {"user": "bob", "nonResourceAttributes": {"verb": "get", "path": "/mypath"}}
    assert attributes(BOB, spec) == Attributes(BOB, "get", resource_request=False, path="/mypath")


@pytest.mark.parametrize("case", ["resource rejected", "resource allowed"])
def test_resource(case: str) -> None:
    spec = {"user": "bob", "resourceAttributes": SCALE}
    assert attributes(BOB, spec) == Attributes(BOB, "create", namespace="myns", api_group="extensions",
                                               api_version="v1beta1", resource="deployments",
                                               subresource="scale", name="mydeployment")


def test_the_answer_to_bob_without_bindings_is_no_opinion() -> None:
    """The rows' status shape with RBAC behind it: not allowed, no reason, no evaluation error."""
    out = review("SubjectAccessReview", {"spec": {"user": "bob", "resourceAttributes": SCALE}}, None,
                 UserInfo(), RbacSnapshot())
    assert out["status"] == {"allowed": False}
