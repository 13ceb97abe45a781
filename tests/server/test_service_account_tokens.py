"""``serviceaccounts/NAME/token`` and bearer-token authentication in ``kbatch serve``, in process
(upstream ``pkg/registry/core/serviceaccount/storage/token.go``, ``pkg/serviceaccount/jwt.go``,
``claims.go``; k8s.io/apiserver ``filters/authentication.go``, ``filters/impersonation``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.authz.signing import unverified_claims
from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend
from tests.server.conftest import AppClient

NS = "default"
SA_PATH = f"/api/v1/namespaces/{NS}/serviceaccounts"
AUD = "https://kubernetes.default.svc.cluster.local"


def _sa(api: AppClient, name: str = "bot") -> dict[str, Any]:
    r = api.post(SA_PATH, json={"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}})
    assert r.status_code == 201, r.text
    return r.json()


def _token(api: AppClient, name: str = "bot", spec: dict[str, Any] | None = None, **kw: Any) -> Any:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec or {}}
    return api.post(f"{SA_PATH}/{name}/token", json=body, **kw)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _advance(api: AppClient, duration: str) -> None:
    assert api.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration}).status_code == 200


def test_a_token_request_answers_a_signed_jwt_with_upstreams_claims(api: AppClient) -> None:
    sa = _sa(api)
    r = _token(api)
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["kind"] == "TokenRequest" and out["spec"] == {"audiences": [AUD], "expirationSeconds": 3600}
    assert out["metadata"] == {"name": "bot", "namespace": NS, "creationTimestamp": "2025-01-01T00:00:00Z"}
    assert out["status"]["expirationTimestamp"] == "2025-01-01T01:00:00Z"
    claims = unverified_claims(out["status"]["token"])
    assert claims is not None
    iat = claims["iat"]
    assert claims == {"aud": [AUD], "exp": iat + 3600, "iat": iat, "nbf": iat, "iss": AUD,
                      "jti": claims["jti"], "sub": "system:serviceaccount:default:bot",
                      "kubernetes.io": {"namespace": NS,
                                        "serviceaccount": {"name": "bot", "uid": sa["metadata"]["uid"]}}}


def test_the_token_authenticates_as_the_service_account(api: AppClient) -> None:
    sa = _sa(api)
    token = _token(api).json()["status"]["token"]
    r = api.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", headers=_bearer(token),
                 json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert r.status_code == 201, r.text
    info = r.json()["status"]["userInfo"]
    assert info["username"] == "system:serviceaccount:default:bot"
    assert info["uid"] == sa["metadata"]["uid"]
    assert info["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default",
                              "system:authenticated"]
    assert list(info["extra"]) == ["authentication.kubernetes.io/credential-id"]


def test_forbidden_until_a_rolebinding_grants_it(api: AppClient) -> None:
    _sa(api)
    token = _token(api).json()["status"]["token"]
    denied = api.get(f"/api/v1/namespaces/{NS}/pods", headers=_bearer(token))
    assert denied.status_code == 403
    assert denied.json()["message"] == ('pods is forbidden: User "system:serviceaccount:default:bot" cannot '
                                        'list resource "pods" in API group "" in the namespace "default"')
    rbac = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NS}"
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "pod-reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}
    assert api.post(f"{rbac}/roles", json=role).status_code == 201
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "bot-reads-pods"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
               "subjects": [{"kind": "ServiceAccount", "name": "bot", "namespace": NS}]}
    assert api.post(f"{rbac}/rolebindings", json=binding).status_code == 201
    assert api.get(f"/api/v1/namespaces/{NS}/pods", headers=_bearer(token)).status_code == 200
    write = api.post(f"{SA_PATH}", headers=_bearer(token),
                     json={"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "x"}})
    assert write.status_code == 403


UNSIGNED = ("eyJhbGciOiJub25lIn0."  # alg "none", iss ours: not signed by the key
            "eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.")


@pytest.mark.parametrize("header", ["Bearer not-a-jwt", "Basic dXNlcjpwdw==", "Bearer ",
                                    f"Bearer {UNSIGNED}"])
def test_a_credential_no_authenticator_accepts_is_401(api: AppClient, header: str) -> None:
    r = api.get("/api/v1/namespaces/default/pods", headers={"Authorization": header})
    assert r.status_code == 401
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": "Unauthorized", "reason": "Unauthorized", "code": 401}


def test_an_expired_token_is_401_after_the_leeway(api: AppClient) -> None:
    _sa(api)
    token = _token(api, spec={"expirationSeconds": 600}).json()["status"]["token"]
    whoami = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    _advance(api, "11m")  # exp + 60 s of go-jose's leeway
    assert api.post(path, headers=_bearer(token), json=whoami).status_code == 201
    _advance(api, "1s")
    assert api.post(path, headers=_bearer(token), json=whoami).status_code == 401


def test_a_recreated_service_account_does_not_accept_the_old_token(api: AppClient) -> None:
    _sa(api)
    token = _token(api).json()["status"]["token"]
    assert api.delete(f"{SA_PATH}/bot").status_code == 200
    path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    whoami = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    assert api.post(path, headers=_bearer(token), json=whoami).status_code == 401
    _sa(api)
    assert api.post(path, headers=_bearer(token), json=whoami).status_code == 401


def test_token_request_validation(api: AppClient) -> None:
    missing = _token(api, "nobody")
    assert (missing.status_code, missing.json()["message"]) == (404, 'serviceaccounts "nobody" not found')
    _sa(api)
    short = _token(api, spec={"expirationSeconds": 60})
    assert short.status_code == 422
    assert short.json()["message"] == ('TokenRequest.authentication.k8s.io "" is invalid: '
                                       'spec.expirationSeconds: Invalid value: 60: '
                                       'may not specify a duration less than 10 minutes')
    kind = _token(api, spec={"boundObjectRef": {"kind": "Deployment", "apiVersion": "apps/v1", "name": "d"}})
    assert (kind.status_code, kind.json()["message"]) == (
        400, "cannot bind token to object of type apps/v1, Kind=Deployment")
    name = api.post(f"{SA_PATH}/bot/token", json={"metadata": {"name": "other"}, "spec": {}})
    assert name.status_code == 422
    assert "metadata.name: Invalid value: \"other\": must match the service account name if specified" in \
        name.json()["message"]
    assert api.get(f"{SA_PATH}/bot/token").status_code == 405


def test_a_pod_bound_token_dies_with_its_pod(api: AppClient) -> None:
    _sa(api)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"serviceAccountName": "bot", "containers": [{"name": "c", "image": "busybox"}]}}
    created = api.post(f"/api/v1/namespaces/{NS}/pods", json=pod).json()
    ref = {"kind": "Pod", "apiVersion": "v1", "name": "p", "uid": created["metadata"]["uid"]}
    out = _token(api, spec={"boundObjectRef": ref, "expirationSeconds": 3607}).json()
    claims = unverified_claims(out["status"]["token"])
    assert claims is not None
    assert claims["kubernetes.io"]["pod"] == {"name": "p", "uid": created["metadata"]["uid"]}
    # --service-account-extend-token-expiration: a year in the token, 3607 s in the answer
    assert claims["exp"] - claims["iat"] == 365 * 24 * 3600
    assert claims["kubernetes.io"]["warnafter"] == claims["iat"] + 3607
    assert out["spec"]["expirationSeconds"] == 3607
    whoami = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    info = api.post(path, headers=_bearer(out["status"]["token"]), json=whoami).json()["status"]["userInfo"]
    assert info["extra"]["authentication.kubernetes.io/pod-name"] == ["p"]
    api.delete(f"/api/v1/namespaces/{NS}/pods/p?gracePeriodSeconds=0")
    assert api.post(path, headers=_bearer(out["status"]["token"]), json=whoami).status_code == 401
    stale = _token(api, spec={"boundObjectRef": ref})
    assert stale.status_code == 404


def test_a_static_token_server_accepts_both(backend: ControlPlaneBackend) -> None:
    api = AppClient(KbatchApp(backend, token="s3cret"))
    assert api.get("/api/v1/namespaces").status_code == 401
    admin = _bearer("s3cret")
    assert api.post(SA_PATH, headers=admin, json={"metadata": {"name": "bot"}}).status_code == 201
    token = _token(api, headers=admin).json()["status"]["token"]
    assert api.get("/api/v1/namespaces", headers=_bearer(token)).status_code == 403


def test_the_key_depends_on_the_seed_and_the_secret(backend: ControlPlaneBackend) -> None:
    api = AppClient(KbatchApp(backend))
    _sa(api)
    token = _token(api).json()["status"]["token"]
    other = AppClient(KbatchApp(backend, token="s3cret"))
    path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    assert other.post(path, headers=_bearer(token), json={"kind": "SelfSubjectReview"}).status_code == 401
    again = AppClient(KbatchApp(backend))
    assert again.post(path, headers=_bearer(token), json={"kind": "SelfSubjectReview"}).status_code == 201


def test_discovery_lists_the_token_subresource(api: AppClient) -> None:
    resources = api.get("/api/v1").json()["resources"]
    token = next(r for r in resources if r["name"] == "serviceaccounts/token")
    assert token == {"name": "serviceaccounts/token", "singularName": "", "namespaced": True,
                     "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest",
                     "verbs": ["create"]}


def test_an_empty_impersonation_header_is_no_impersonation(api: AppClient) -> None:
    assert api.get("/api/v1/namespaces", headers={"Impersonate-User": ""}).status_code == 200


def test_max_token_expiration_shortens_with_a_warning(backend: ControlPlaneBackend) -> None:
    """``--service-account-max-token-expiration``: token.go shortens and warns, 201 all the same."""
    api = AppClient(KbatchApp(backend, max_token_expiration=3600))
    _sa(api)
    r = _token(api, spec={"expirationSeconds": 7200})
    assert r.status_code == 201
    assert r.json()["spec"]["expirationSeconds"] == 3600
    assert r.json()["status"]["expirationTimestamp"] == "2025-01-01T01:00:00Z"
    assert r.headers["warning"] == '299 - "requested expiration of 7200 seconds shortened to 3600 seconds"'


def test_the_serve_flag_is_checked_as_kube_apiservers(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "kbatch.cli", "--state", str(tmp_path / "s"), "serve", "--port", "0",
           "--service-account-max-token-expiration", "10m"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds" in out.stderr
