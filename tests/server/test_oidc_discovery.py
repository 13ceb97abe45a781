"""The OIDC discovery documents' rules (k8s.io/kubernetes ``pkg/serviceaccount/openidmetadata.go``
``NewOpenIDMetadataProvider``): installed only for an https issuer without query or fragment and with
a URI for the key set; the key set's JWK verifies exactly the tokens its key signed."""

from __future__ import annotations

import json

import jwt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.authz.signing import SigningKey
from kbatch.server.oidc_discovery import oidc_documents

KEY = SigningKey.derive(b"one")
ISSUER = "https://kubernetes.default.svc.cluster.local"


@pytest.mark.parametrize(("issuer", "address", "jwks_uri"), [
    ("http://kubernetes.default.svc", "127.0.0.1:6443", None),
    ("kbatch", "127.0.0.1:6443", None),
    (f"{ISSUER}?a=b", "127.0.0.1:6443", None),
    (f"{ISSUER}#frag", "127.0.0.1:6443", None),
    (ISSUER, None, None),
    (ISSUER, None, "http://keys.example/jwks"),
])
def test_no_documents_where_kube_apiserver_installs_none(issuer: str, address: str | None,
                                                         jwks_uri: str | None) -> None:
    assert oidc_documents(issuer, KEY, jwks_uri=jwks_uri, external_address=address) is None


def test_the_configuration_and_the_key_set_as_go_marshals_them() -> None:
    docs = oidc_documents(ISSUER, KEY, external_address="10.0.0.1:6443")
    assert docs is not None
    assert docs.config == (b'{"issuer":"https://kubernetes.default.svc.cluster.local",'
                           b'"jwks_uri":"https://10.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],'
                           b'"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}')
    explicit = oidc_documents(ISSUER, KEY, jwks_uri="https://keys.example/jwks")
    assert explicit is not None and json.loads(explicit.config)["jwks_uri"] == "https://keys.example/jwks"
    (jwk,) = json.loads(docs.keyset)["keys"]
    assert jwk["kid"] == KEY.kid and len(jwt.utils.base64url_decode(jwk["x"])) == 32


@given(st.binary(min_size=1, max_size=16), st.text(max_size=20))
def test_the_published_key_verifies_its_own_tokens_and_no_others(material: bytes, subject: str) -> None:
    key = SigningKey.derive(material)
    token = key.sign({"sub": subject, "iss": ISSUER})
    other = SigningKey.derive(material + b"x")
    mine, theirs = (jwt.PyJWK(k.public_jwk()).key for k in (key, other))
    assert jwt.decode(token, mine, algorithms=["ES256"])["sub"] == subject
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(token, theirs, algorithms=["ES256"])
