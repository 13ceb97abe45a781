"""authorization.k8s.io/v1 reviews as kube-apiserver answers them (``pkg/registry/authorization/*/rest.go``,
``pkg/apis/authorization/validation/validation.go`` ``ValidateSubjectAccessReview`` & co.)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import BadRequest, Invalid
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.reviews import review
from kbatch.authz.user import UserInfo

ADMIN = UserInfo("kubernetes-admin", ("system:masters", "system:authenticated"))
JANE = UserInfo("jane", ("system:authenticated",))
READER = {"metadata": {"name": "reader"},
          "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]},
                    {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}
JANE_READS_X = {"metadata": {"name": "jr", "namespace": "x"},
                "roleRef": {"kind": "ClusterRole", "name": "reader"},
                "subjects": [{"kind": "User", "name": "jane"}]}
WORLD = RbacSnapshot(cluster_roles=[READER], role_bindings=[JANE_READS_X])
LIST_PODS_X = {"resourceAttributes": {"namespace": "x", "verb": "list", "resource": "pods"}}


def _body(kind: str, spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "metadata": meta, "spec": spec}


def test_self_review_of_system_masters_is_allowed_without_a_reason() -> None:
    out = review("SelfSubjectAccessReview", _body("SelfSubjectAccessReview", LIST_PODS_X), None, ADMIN, WORLD)
    assert out["status"] == {"allowed": True}
    assert out["kind"] == "SelfSubjectAccessReview" and out["spec"] == LIST_PODS_X


def test_self_review_answers_for_the_caller_with_rbac_s_reason() -> None:
    out = review("SelfSubjectAccessReview", _body("SelfSubjectAccessReview", LIST_PODS_X), None, JANE, WORLD)
    assert out["status"] == {"allowed": True, "reason": 'RBAC: allowed by RoleBinding "jr/x" of ClusterRole '
                                                        '"reader" to User "jane"'}
    other = {"resourceAttributes": {"namespace": "y", "verb": "list", "resource": "pods"}}
    assert review("SelfSubjectAccessReview", _body("SelfSubjectAccessReview", other), None, JANE,
                  WORLD)["status"] == {"allowed": False}


def test_subject_access_review_uses_the_groups_as_given() -> None:
    """SubjectAccessReview adds no group (not even system:authenticated), and a user bound by group
    is allowed only when the review names the group."""
    binding = {"metadata": {"name": "ops"}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
               "subjects": [{"kind": "Group", "name": "system:authenticated"}]}
    world = RbacSnapshot(cluster_roles=[READER], cluster_role_bindings=[binding])
    spec = {**LIST_PODS_X, "user": "bob"}
    assert review("SubjectAccessReview", _body("SubjectAccessReview", spec), None, ADMIN,
                  world)["status"]["allowed"] is False
    spec = {**LIST_PODS_X, "user": "bob", "groups": ["system:authenticated"]}
    assert review("SubjectAccessReview", _body("SubjectAccessReview", spec), None, ADMIN,
                  world)["status"]["allowed"] is True


def test_non_resource_attributes_are_reviewed_against_non_resource_rules() -> None:
    spec = {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}, "user": "jane"}
    out = review("SubjectAccessReview", _body("SubjectAccessReview", spec), None, ADMIN,
                 RbacSnapshot(cluster_roles=[READER], cluster_role_bindings=[
                     {"metadata": {"name": "h"}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
                      "subjects": [{"kind": "User", "name": "jane"}]}]))
    assert out["status"]["allowed"] is True


@pytest.mark.parametrize(("kind", "spec", "meta", "message"), [
    ("SelfSubjectAccessReview", {}, {},
     'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: '
     'null: exactly one of nonResourceAttributes or resourceAttributes must be specified'),
    ("SubjectAccessReview", LIST_PODS_X, {},
     'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of '
     'user or group must be specified'),
    ("SubjectAccessReview", {**LIST_PODS_X, "user": "a"}, {"name": "n"},
     'SubjectAccessReview.authorization.k8s.io "" is invalid: metadata: Invalid value: {"name":"n"}: '
     'must be empty'),
], ids=["neither-attributes", "no-user-or-group", "metadata-not-empty"])
def test_invalid_reviews(kind: str, spec: dict[str, Any], meta: dict[str, Any], message: str) -> None:
    """validation.go: the spec needs exactly one kind of attributes, a SubjectAccessReview a user or
    group, and the metadata must be empty."""
    with pytest.raises(Invalid) as err:
        review(kind, _body(kind, spec, **meta), None, ADMIN, WORLD)
    assert err.value.message.startswith(message.split(": Invalid value")[0])
    assert err.value.message.endswith(message.rsplit(": ", 1)[1])


def test_both_attributes_is_invalid_on_non_resource_attributes() -> None:
    spec = {**LIST_PODS_X, "nonResourceAttributes": {"path": "/x", "verb": "get"}}
    with pytest.raises(Invalid) as err:
        review("SelfSubjectAccessReview", _body("SelfSubjectAccessReview", spec), None, ADMIN, WORLD)
    causes = err.value.details.causes if err.value.details else None
    assert [c.field for c in causes or ()] == ["spec.nonResourceAttributes"]
    assert "cannot be specified in combination with resourceAttributes" in err.value.message


def test_local_review_must_name_the_path_namespace() -> None:
    """ValidateLocalSubjectAccessReview: the attributes' namespace must be metadata.namespace, no
    non-resource attributes; the REST: metadata.namespace must be the path's."""
    spec = {**LIST_PODS_X, "user": "jane"}
    out = review("LocalSubjectAccessReview", _body("LocalSubjectAccessReview", spec, namespace="x"), "x",
                 ADMIN, WORLD)
    assert out["status"]["allowed"] is True and out["metadata"]["namespace"] == "x"
    with pytest.raises(Invalid) as err:
        review("LocalSubjectAccessReview", _body("LocalSubjectAccessReview", spec, namespace="y"), "y", ADMIN,
               WORLD)
    assert 'spec.resourceAttributes.namespace: Invalid value: "x": must match metadata.namespace' \
        in err.value.message
    with pytest.raises(BadRequest, match=r"spec\.resourceAttributes\.namespace must match namespace: z"):
        review("LocalSubjectAccessReview", _body("LocalSubjectAccessReview", spec, namespace="x"), "z", ADMIN,
               WORLD)
    bad = {"nonResourceAttributes": {"path": "/x", "verb": "get"}, "user": "jane"}
    with pytest.raises(Invalid, match="disallowed on this kind of request"):
        review("LocalSubjectAccessReview", _body("LocalSubjectAccessReview", bad, namespace="x"), "x", ADMIN,
               WORLD)


def test_rules_review_lists_the_rbac_rules_of_the_caller() -> None:
    """selfsubjectrulesreview/rest.go: RBAC's RulesFor split into resource and non-resource rules;
    the system:masters authorizer contributes none."""
    body = _body("SelfSubjectRulesReview", {"namespace": "x"})
    out = review("SelfSubjectRulesReview", body, None, JANE, WORLD)
    assert out["status"] == {
        "resourceRules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}],
        "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}], "incomplete": False}
    empty = review("SelfSubjectRulesReview", _body("SelfSubjectRulesReview", {"namespace": "x"}), None, ADMIN,
                   WORLD)
    assert empty["status"] == {"resourceRules": [], "nonResourceRules": [], "incomplete": False}


def test_rules_review_reports_a_missing_role_as_its_evaluation_error() -> None:
    gone = {"metadata": {"name": "g", "namespace": "x"}, "roleRef": {"kind": "Role", "name": "gone"},
            "subjects": [{"kind": "User", "name": "jane"}]}
    out = review("SelfSubjectRulesReview", _body("SelfSubjectRulesReview", {"namespace": "x"}), None, JANE,
                 RbacSnapshot(role_bindings=[gone]))
    assert out["status"]["evaluationError"] == 'role.rbac.authorization.k8s.io "gone" not found'


def test_rules_review_needs_a_namespace() -> None:
    with pytest.raises(BadRequest, match="no namespace on request"):
        review("SelfSubjectRulesReview", _body("SelfSubjectRulesReview", {}), None, JANE, WORLD)
