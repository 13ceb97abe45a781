"""authentication.k8s.io/v1 SelfSubjectReview over HTTP (``kubectl auth whoami``; Kubernetes 1.37
``pkg/registry/authentication/selfsubjectreview/rest.go``): in discovery, create-only, never stored,
the answer is the user the request acts as."""

from __future__ import annotations

from typing import Any

from kbatch.server.aggregated_discovery import CONTENT_TYPE as AGGREGATED

SSR = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
PATH = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


def test_the_group_is_in_discovery(api: Any) -> None:
    names = [g["name"] for g in api.get("/apis").json()["groups"]]
    assert "authentication.k8s.io" in names
    resources = api.get("/apis/authentication.k8s.io/v1").json()["resources"]
    assert resources == [{"name": "selfsubjectreviews", "singularName": "selfsubjectreview",
                          "namespaced": False, "kind": "SelfSubjectReview", "verbs": ["create"]},
                         {"name": "tokenreviews", "singularName": "tokenreview",
                          "namespaced": False, "kind": "TokenReview", "verbs": ["create"]}]
    assert api.get("/apis/authentication.k8s.io").json()["preferredVersion"]["version"] == "v1"
    aggregated = api.get("/apis", headers={"accept": AGGREGATED}).json()["items"]
    group = next(g for g in aggregated if g["metadata"]["name"] == "authentication.k8s.io")
    served = [r["resource"] for r in group["versions"][0]["resources"]]
    assert served == ["selfsubjectreviews", "tokenreviews"]


def test_whoami_without_impersonation_is_the_admin(api: Any) -> None:
    out = api.post(PATH, json=SSR)
    assert out.status_code == 201
    body = out.json()
    assert body["kind"] == "SelfSubjectReview" and body["apiVersion"] == "authentication.k8s.io/v1"
    assert body["status"] == {"userInfo": {"username": "kubernetes-admin",
                                           "groups": ["system:masters", "system:authenticated"]}}
    assert body["metadata"]["creationTimestamp"]
    assert api.get(PATH).status_code == 405


def test_whoami_as_an_impersonated_user(api: Any) -> None:
    """system:basic-user (bound to system:authenticated) grants ``create`` on selfsubjectreviews."""
    out = api.post(PATH, json=SSR, headers={"impersonate-user": "jane", "impersonate-group": "dev",
                                            "impersonate-uid": "u-1", "impersonate-extra-scopes": "view"})
    assert out.status_code == 201, out.json()
    assert out.json()["status"]["userInfo"] == {"username": "jane", "uid": "u-1",
                                                "groups": ["dev", "system:authenticated"],
                                                "extra": {"scopes": ["view"]}}
