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
