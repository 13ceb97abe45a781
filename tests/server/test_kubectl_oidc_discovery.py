"""The service-account issuer's OIDC discovery documents on ``kbatch serve`` (ServiceAccountIssuerDiscovery;
k8s.io/kubernetes ``pkg/serviceaccount/openidmetadata.go``, ``pkg/routes/openidmetadata.go``), read with
the real kubectl as an administrator and as a service account (``system:service-account-issuer-discovery``
is bound to ``system:serviceaccounts``), and used as a relying party outside the cluster uses them: a
token from ``kubectl create token`` verifies against the published key set with PyJWT."""

from __future__ import annotations

import json
from typing import Any

import jwt
import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
NS = "oidc"


@pytest.fixture(scope="module")
def served(served_tls: ServeProcess) -> ServeProcess:
    kubectl(served_tls, "create", "namespace", NS)
    kubectl(served_tls, "create", "serviceaccount", "workload", "-n", NS)
    return served_tls


def test_the_configuration_names_the_issuer_and_the_key_set(served: Any) -> None:
    config = json.loads(kubectl(served, "get", "--raw", "/.well-known/openid-configuration").stdout)
    address = served.url.split("://", 1)[1].rstrip("/")
    assert config == {
        "issuer": "https://kubernetes.default.svc.cluster.local",
        "jwks_uri": f"https://{address}/openid/v1/jwks",
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"],
    }


def test_a_token_verifies_against_the_published_keys_as_the_account_reads_them(served: Any) -> None:
    reader = kubectl(served, "create", "token", "workload", "-n", NS).stdout.strip()  # the server's audience
    token = kubectl(served, "create", "token", "workload", "-n", NS, "--audience=https://sts.example").stdout
    keyset = json.loads(kubectl(served, "get", "--raw", "/openid/v1/jwks", f"--token={reader}").stdout)
    (key,) = keyset["keys"]
    assert list(key) == ["use", "kty", "kid", "crv", "alg", "x", "y"]
    assert (key["use"], key["kty"], key["crv"], key["alg"]) == ("sig", "EC", "P-256", "ES256")
    assert jwt.get_unverified_header(token.strip())["kid"] == key["kid"]
    # the token's times are the server's virtual clock (2025 here), not this machine's
    claims = jwt.decode(token.strip(), jwt.PyJWK(key).key, algorithms=["ES256"], audience="https://sts.example",
                        issuer="https://kubernetes.default.svc.cluster.local", options={"verify_exp": False})
    assert claims["sub"] == f"system:serviceaccount:{NS}:workload"


def test_service_account_jwks_uri_overrides_the_configurations_key_set(tmp_path: Any) -> None:
    """``kbatch serve --service-account-jwks-uri``: the configuration names that URI instead of the
    server's own address (kube-apiserver's flag, ``pkg/serviceaccount/openidmetadata.go``); the key set
    is still served here."""
    uri = "https://keys.example.com:8443/openid/v1/jwks"
    server = ServeProcess(tmp_path / "jwks", "--service-account-jwks-uri", uri).start()
    try:
        config = json.loads(kubectl(server, "get", "--raw", "/.well-known/openid-configuration").stdout)
        assert config["jwks_uri"] == uri
        assert config["issuer"] == "https://kubernetes.default.svc.cluster.local"
        assert json.loads(kubectl(server, "get", "--raw", "/openid/v1/jwks").stdout)["keys"]
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize(("value", "message"), [
    ("http://baz.com", "service-account-jwks-uri requires https scheme, parsed as: http://baz.com"),
    ("keys.example.com/jwks",
     "service-account-jwks-uri requires https scheme, parsed as: keys.example.com/jwks"),
    ("https://host:port", 'service-account-jwks-uri must be a valid URL: parse "https://host:port": invalid '
                          'port ":port" after host'),
    ("://x", 'service-account-jwks-uri must be a valid URL: parse "://x": missing protocol scheme'),
])
def test_service_account_jwks_uri_is_checked_as_kube_apiservers(tmp_path: Any, value: str,
                                                                 message: str) -> None:
    """The flag's check (``pkg/kubeapiserver/options/authentication.go``, and its test table's cases):
    the server does not start."""
    from tests.cli.processes import kbatch_process

    out = kbatch_process(tmp_path / "s", "serve", "--port", "0", "--service-account-jwks-uri", value,
                         timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert message in out.stderr, out.stderr
