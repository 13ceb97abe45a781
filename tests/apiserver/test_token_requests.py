"""The API server's token issuer (kbatch.apiserver.token_requests): the in-process client creates
``serviceaccounts/NAME/token`` as ``kbatch serve`` does (token.go's rules are tested over HTTP in
tests/server/test_service_account_tokens.py), with the key ``kbatch serve`` derives for the same
state, shared with it, and never pickled."""

from __future__ import annotations

import pickle

import pytest

from kbatch.api.errors import NotFound
from kbatch.apiserver.client import TokenRequester
from kbatch.apiserver.token_requests import derive_key
from kbatch.runtime.controlplane import ControlPlane
from kbatch.server.facade import ControlPlaneBackend
from kbatch.server.service_account_tokens import default_tokens

REQUEST = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
           "spec": {"expirationSeconds": 1200}}


def test_the_in_process_client_creates_a_token_request() -> None:
    cp = ControlPlane(seed=3, controllers="")
    assert isinstance(cp.client, TokenRequester)
    out = cp.client.create_token("default", "default", REQUEST)
    assert out["spec"] == {"audiences": ["https://kubernetes.default.svc.cluster.local"],
                           "expirationSeconds": 1200}
    assert out["status"]["expirationTimestamp"] == "2025-01-01T00:20:00Z"
    claims = cp.server.tokens.key.verify(out["status"]["token"])
    assert claims["sub"] == "system:serviceaccount:default:default"
    with pytest.raises(NotFound, match='serviceaccounts "nope" not found'):
        cp.client.create_token("nope", "default", REQUEST)


def test_the_key_is_kbatch_serves_and_is_shared_with_it() -> None:
    cp = ControlPlane(seed=3, controllers="")
    assert cp.server.tokens.key.kid == derive_key(3).kid
    served = default_tokens(ControlPlaneBackend(cp), "s3cret")  # kbatch serve --token s3cret
    assert served.issuer is cp.server.tokens
    assert cp.server.tokens.key.kid == derive_key(3, "s3cret").kid != derive_key(3).kid


def test_neither_the_key_nor_the_servers_secret_is_pickled_and_the_count_is() -> None:
    cp = ControlPlane(seed=3, controllers="")
    cp.client.create_token("default", "default", REQUEST)
    default_tokens(ControlPlaneBackend(cp), "s3cret")
    image = pickle.dumps(cp.server.tokens)
    assert b"s3cret" not in image and cp.server.tokens.key.kid.encode() not in image
    back = pickle.loads(image)
    assert (back.issued, back.key.kid) == (1, derive_key(3).kid)
