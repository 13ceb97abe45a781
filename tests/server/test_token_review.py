"""``authentication.k8s.io/v1`` TokenReview and legacy token Secrets in ``kbatch serve``, in process
(upstream ``pkg/registry/authentication/tokenreview/storage.go`` and its ``storage_test.go``,
``pkg/serviceaccount/legacy.go``, ``pkg/controller/serviceaccount/tokens_controller.go``)."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.server.conftest import AppClient

NS = "default"
AUD = "https://kubernetes.default.svc.cluster.local"
PATH = "/apis/authentication.k8s.io/v1/tokenreviews"
SA_PATH = f"/api/v1/namespaces/{NS}/serviceaccounts"


@pytest.fixture
def api() -> AppClient:
    backend = ControlPlaneBackend(new_control_plane(controllers="garbage-collector,serviceaccount-token"))
    return AppClient(KbatchApp(backend, token="static-secret"))


ADMIN = {"Authorization": "Bearer static-secret"}


def _review(api: AppClient, token: str, audiences: list[str] | None = None, **kw: Any) -> Any:
    spec: dict[str, Any] = {"token": token}
    if audiences is not None:
        spec["audiences"] = audiences
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}
    return api.post(PATH, json=body, headers=kw.pop("headers", ADMIN), **kw)


def _sa(api: AppClient, name: str = "bot") -> dict[str, Any]:
    r = api.post(SA_PATH, json={"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}},
                 headers=ADMIN)
    assert r.status_code == 201, r.text
    return r.json()


def _bound_token(api: AppClient, audiences: list[str] | None = None) -> str:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"audiences": audiences} if audiences else {}}
    r = api.post(f"{SA_PATH}/bot/token", json=body, headers=ADMIN)
    assert r.status_code == 201, r.text
    return str(r.json()["status"]["token"])


def _legacy_secret(api: AppClient, name: str = "bot-token") -> str:
    body = {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": name, "annotations": {"kubernetes.io/service-account.name": "bot"}}}
    assert api.post(f"/api/v1/namespaces/{NS}/secrets", json=body, headers=ADMIN).status_code == 201
    secret = api.get(f"/api/v1/namespaces/{NS}/secrets/{name}", headers=ADMIN).json()
    return base64.b64decode(secret["data"]["token"]).decode()


def test_a_good_token_is_authenticated_with_its_user_and_audiences(api: AppClient) -> None:
    sa = _sa(api)
    token = _bound_token(api)
    r = _review(api, token)
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["kind"] == "TokenReview" and out["spec"] == {"token": token}
    assert out["metadata"] == {"creationTimestamp": None}
    status = out["status"]
    assert status["authenticated"] is True and status["audiences"] == [AUD] and "error" not in status
    assert status["user"]["username"] == "system:serviceaccount:default:bot"
    assert status["user"]["uid"] == sa["metadata"]["uid"]
    assert status["user"]["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default",
                                        "system:authenticated"]
    assert status["user"]["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")
    assert api.get(f"{PATH}", headers=ADMIN).status_code == 405  # create-only, never stored


def test_audiences_are_intersected(api: AppClient) -> None:
    """storage.go: the review's audiences (else the API server's) are what the token must meet;
    ``status.audiences`` is the intersection."""
    _sa(api)
    token = _bound_token(api, ["https://vault.example", "https://other.example"])
    out = _review(api, token, ["https://vault.example", "https://third.example"]).json()["status"]
    assert out["authenticated"] is True and out["audiences"] == ["https://vault.example"]
    refused = _review(api, token).json()["status"]
    assert "authenticated" not in refused and refused["user"] == {}
    assert refused["error"] == ('[invalid bearer token, token audiences ["https://vault.example" '
                                '"https://other.example"] is invalid for the target audiences '
                                f'["{AUD}"]]')


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b.c", "eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0."])
def test_a_token_no_authenticator_claims_is_not_authenticated(api: AppClient, token: str) -> None:
    out = _review(api, token).json()["status"]
    assert out == {"user": {}, "error": "invalid bearer token"}


def test_a_bad_service_account_token_says_why(api: AppClient) -> None:
    _sa(api)
    token = _bound_token(api)
    assert api.delete(f"{SA_PATH}/bot", headers=ADMIN).status_code == 200
    out = _review(api, token).json()["status"]
    assert out == {"user": {}, "error": '[invalid bearer token, serviceaccount "bot" not found]'}


def test_the_static_token_is_the_administrator_for_the_api_audiences_only(api: AppClient) -> None:
    out = _review(api, "static-secret").json()["status"]
    assert out == {"authenticated": True, "audiences": [AUD],
                   "user": {"username": "kubernetes-admin",
                            "groups": ["system:masters", "system:authenticated"]}}
    assert "authenticated" not in _review(api, "static-secret", ["https://vault.example"]).json()["status"]


@pytest.mark.parametrize(("body", "message"), [
    ({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {}},
     "token is required for TokenReview in authentication"),
    ({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": ""}},
     "token is required for TokenReview in authentication"),
    ({"apiVersion": "v1", "kind": "Pod"},
     "the body of the request was in an unknown format: not a TokenReview"),
    ({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": 3}},
     "the body of the request was in an unknown format: not a TokenReview"),
])
def test_bad_reviews_are_400(api: AppClient, body: dict[str, Any], message: str) -> None:
    r = api.post(PATH, json=body, headers=ADMIN)
    assert r.status_code == 400
    assert r.json()["reason"] == "BadRequest" and r.json()["message"] == message


def test_a_legacy_token_authenticates_and_marks_its_secret_used(api: AppClient) -> None:
    _sa(api)
    token = _legacy_secret(api)
    whoami = api.post("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                      headers={"Authorization": f"Bearer {token}"},
                      json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert whoami.status_code == 201, whoami.text
    assert whoami.json()["status"]["userInfo"]["username"] == "system:serviceaccount:default:bot"
    secret = api.get(f"/api/v1/namespaces/{NS}/secrets/bot-token", headers=ADMIN).json()
    assert secret["metadata"]["labels"] == {"kubernetes.io/legacy-token-last-used": "2025-01-01"}
    review = _review(api, token).json()["status"]
    assert review["authenticated"] is True and review["audiences"] == [AUD]


def test_a_legacy_token_dies_with_its_secret(api: AppClient) -> None:
    _sa(api)
    token = _legacy_secret(api)
    assert api.delete(f"/api/v1/namespaces/{NS}/secrets/bot-token", headers=ADMIN).status_code == 200
    out = _review(api, token).json()["status"]
    assert out["error"] == "[invalid bearer token, Token has been invalidated]"
    r = api.get("/api/v1/namespaces/default/pods", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 401


def test_a_legacy_token_secret_is_deleted_with_its_account(api: AppClient) -> None:
    _sa(api)
    _legacy_secret(api)
    assert api.delete(f"{SA_PATH}/bot", headers=ADMIN).status_code == 200
    assert api.get(f"/api/v1/namespaces/{NS}/secrets/bot-token", headers=ADMIN).status_code == 404
