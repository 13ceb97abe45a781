"""The service-account issuer's OIDC discovery documents: ``/.well-known/openid-configuration`` and
``/openid/v1/jwks`` (``ServiceAccountIssuerDiscovery``, GA since 1.21).

kube-apiserver serves them so that relying parties outside the cluster can verify its service-account
tokens (k8s.io/kubernetes ``pkg/serviceaccount/openidmetadata.go``, ``pkg/routes/openidmetadata.go``):
the configuration names the issuer, the key set's URI, ``id_token`` responses, ``public`` subjects and
the keys' algorithms (sorted); the key set lists each public key as a JWK with ``use: sig``. Both are
compact JSON, ``Cache-Control: public, max-age=3600``; the key set is ``application/jwk-set+json``.
They are installed only for an ``https`` issuer without query or fragment; the key set's URI is
``--service-account-jwks-uri`` or ``https://<external address>/openid/v1/jwks`` (upstream's default
external address is the server's own host and port). Who may read them is RBAC's:
``system:service-account-issuer-discovery`` is bound to ``system:serviceaccounts``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from kbatch.authz.signing import SigningKey

__all__ = ["CACHE_CONTROL", "CONFIG_PATH", "JWKS_PATH", "JWKS_TYPE", "OIDCDocuments", "jwks_uri_error",
           "oidc_documents"]

CONFIG_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/openid/v1/jwks"
CACHE_CONTROL = "public, max-age=3600"
JWKS_TYPE = "application/jwk-set+json"


@dataclass(frozen=True)
class OIDCDocuments:
    """The two documents, rendered as kube-apiserver writes them (Go's compact JSON)."""

    config: bytes
    keyset: bytes


def _compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def oidc_documents(issuer: str, key: SigningKey, *, jwks_uri: str | None = None,
              external_address: str | None = None) -> OIDCDocuments | None:
    """The documents of ``issuer`` signing with ``key``; ``None`` where kube-apiserver installs no
    endpoints (``NewOpenIDMetadataProvider`` refuses: not ``https``, a query or fragment, no URI for
    the key set)."""
    parts = urlsplit(issuer)
    if parts.scheme != "https" or parts.query or parts.fragment:
        return None
    if not jwks_uri:
        if not external_address:
            return None
        jwks_uri = f"https://{external_address}{JWKS_PATH}"
    elif urlsplit(jwks_uri).scheme != "https":
        return None
    jwk = key.public_jwk()
    config = {"issuer": issuer, "jwks_uri": jwks_uri, "response_types_supported": ["id_token"],
              "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": [jwk["alg"]]}
    return OIDCDocuments(_compact(config), _compact({"keys": [jwk]}))


def jwks_uri_error(value: str) -> str | None:
    """What kube-apiserver says of a ``--service-account-jwks-uri`` it refuses at start-up
    (``pkg/kubeapiserver/options/authentication.go``: ``url.Parse``'s error, or a scheme other than
    ``https``), ``None`` for a good one. ``url.Parse``'s errors are those a flag value meets: a control
    character, a leading colon, a port that is not digits, a space in the host."""
    failure = _url_parse_error(value)
    if failure:
        return f"service-account-jwks-uri must be a valid URL: parse {json.dumps(value)}: {failure}"
    if urlsplit(value).scheme.lower() != "https":
        return f"service-account-jwks-uri requires https scheme, parsed as: {value}"
    return None


def _url_parse_error(value: str) -> str | None:
    """Go's ``net/url.Parse`` error text (after ``parse "…": ``) for the cases above."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return "net/url: invalid control character in URL"
    if value.startswith(":"):
        return "missing protocol scheme"
    parts = urlsplit(value)
    host = parts.netloc.rpartition("@")[2]
    if " " in host:
        return f"invalid character {json.dumps(' ')} in host name"
    if not host.endswith("]") and ":" in host:
        port = host[host.rindex(":"):]
        if not port[1:].isdigit() and port != ":":
            return f'invalid port "{port}" after host'
    return None
