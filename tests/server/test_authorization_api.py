"""authorization.k8s.io/v1 over HTTP (kube-apiserver's ``pkg/registry/authorization``): in discovery,
create-only, answered and never stored; a request with ``Impersonate-*`` headers is decided by RBAC
(k8s.io/apiserver ``filters/impersonation/impersonation.go``, ``responsewriters.Forbidden``)."""

from __future__ import annotations

from typing import Any

from kbatch.server.aggregated_discovery import CONTENT_TYPE as AGGREGATED
from kbatch.server.protobuf import PROTOBUF, decode_object
from kbatch.server.protobuf.wire import encode_field as _field

SSAR = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"namespace": "x", "verb": "list", "resource": "pods"}}}
JANE = {"impersonate-user": "jane"}


def test_the_group_is_in_discovery(api: Any) -> None:
    groups = api.get("/apis").json()["groups"]
    assert {"name": "authorization.k8s.io", "versions": [{"groupVersion": "authorization.k8s.io/v1",
                                                          "version": "v1"}],
            "preferredVersion": {"groupVersion": "authorization.k8s.io/v1", "version": "v1"},
            "kind": "APIGroup", "apiVersion": "v1"} in groups
    resources = {r["name"]: r for r in api.get("/apis/authorization.k8s.io/v1").json()["resources"]}
    assert sorted(resources) == ["localsubjectaccessreviews", "selfsubjectaccessreviews",
                                 "selfsubjectrulesreviews", "subjectaccessreviews"]
    assert resources["localsubjectaccessreviews"]["namespaced"] is True
    assert all(r["verbs"] == ["create"] for r in resources.values())
    assert api.get("/apis/authorization.k8s.io").json()["name"] == "authorization.k8s.io"
    aggregated = api.get("/apis", headers={"accept": AGGREGATED}).json()["items"]
    assert "authorization.k8s.io" in [g["metadata"]["name"] for g in aggregated]


def test_a_self_review_is_answered_and_not_stored(api: Any) -> None:
    out = api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json=SSAR)
    assert out.status_code == 201
    assert out.json()["status"] == {"allowed": True}
    assert api.get("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews").status_code == 405


def test_a_protobuf_review_reads_as_its_json() -> None:
    """kubectl auth can-i sends the review as Kubernetes protobuf (authorization/v1 generated.proto:
    SelfSubjectAccessReview spec 2, its resourceAttributes 1: namespace 1, verb 2, resource 5)."""
    attributes = _field(1, b"x") + _field(2, b"list") + _field(5, b"pods")
    type_meta = _field(1, b"authorization.k8s.io/v1") + _field(2, b"SelfSubjectAccessReview")
    body = b"k8s\x00" + _field(1, type_meta) + _field(2, _field(2, _field(1, attributes)))
    assert decode_object(body)["spec"] == SSAR["spec"]
    assert PROTOBUF == "application/vnd.kubernetes.protobuf"


def test_an_impersonated_user_without_a_binding_is_forbidden(api: Any) -> None:
    out = api.get("/api/v1/namespaces/x/pods", headers=JANE)
    assert out.status_code == 403
    assert out.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "Forbidden",
        "code": 403, "details": {"kind": "pods"},
        "message": 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the '
                   'namespace "x"'}


def test_an_impersonated_user_is_allowed_what_rbac_grants(api: Any) -> None:
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "r", "namespace": "default"},
            "rules": [{"verbs": ["get", "list"], "apiGroups": ["batch"], "resources": ["jobs"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "b", "namespace": "default"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "jane"}]}
    api.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", json=role)
    api.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", json=binding)
    assert api.get("/apis/batch/v1/namespaces/default/jobs", headers=JANE).status_code == 200
    absent = api.get("/apis/batch/v1/namespaces/default/jobs/pi", headers={**JANE, "impersonate-group": "g"})
    assert absent.status_code == 404  # get is granted, and the job does not exist
    write = api.post("/apis/batch/v1/namespaces/default/jobs", headers=JANE, json={})
    assert write.status_code == 403
    assert write.json()["message"] == ('jobs.batch is forbidden: User "jane" cannot create resource "jobs" '
                                       'in API group "batch" in the namespace "default"')
    review = api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", headers=JANE,
                      json={**SSAR, "spec": {"resourceAttributes": {"namespace": "default", "verb": "list",
                                                                    "group": "batch", "resource": "jobs"}}})
    assert review.json()["status"] == {
        "allowed": True, "reason": 'RBAC: allowed by RoleBinding "b/default" of Role "r" to User "jane"'}


def test_an_impersonated_user_may_discover_and_ask_about_itself(api: Any) -> None:
    """The bootstrap system:discovery and system:basic-user roles are bound to system:authenticated,
    which an impersonated user is in."""
    assert api.get("/apis", headers=JANE).status_code == 200
    assert api.get("/version", headers=JANE).status_code == 200
    out = api.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", headers=JANE, json=SSAR)
    assert out.status_code == 201 and out.json()["status"] == {"allowed": False}


def test_groups_without_a_user_is_a_bad_request(api: Any) -> None:
    out = api.get("/api/v1/pods", headers={"impersonate-group": "g"})
    assert out.status_code == 400
    assert out.json()["message"] == "requested [{Group  g    }] without impersonating a user"


def test_a_uid_or_extra_without_a_user_is_a_bad_request(api: Any) -> None:
    """k8s.io/apiserver ``filters/impersonation/impersonation.go`` ``buildImpersonationRequests``: a
    uid or a user extra, like a group, needs ``Impersonate-User`` (``NewBadRequest``)."""
    uid = api.get("/api/v1/pods", headers={"impersonate-uid": "1234"})
    assert uid.status_code == 400
    assert uid.json()["message"] == ("requested [{UID  1234  authentication.k8s.io/v1  }] "
                                     "without impersonating a user")
    extra = api.get("/api/v1/pods", headers={"impersonate-extra-scopes": "view"})
    assert extra.status_code == 400
    assert extra.json()["message"] == ("requested [{UserExtra  view  authentication.k8s.io/v1  scopes}] "
                                       "without impersonating a user")
