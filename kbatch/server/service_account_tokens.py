"""Service-account tokens in ``kbatch serve``: the ``serviceaccounts/<name>/token`` subresource
(``kubectl create token``) and the bearer-token authenticator, over a :class:`Backend`.

:class:`TokenService` holds the signing key, the issuer and the API audiences and reads accounts,
pods, secrets and nodes through the backend; the decisions are in :mod:`kbatch.authz.token_request`,
:mod:`kbatch.authz.sa_claims` and :mod:`kbatch.authz.token_authentication`. Upstream:
``pkg/registry/core/serviceaccount/storage/token.go`` (the REST), ``pkg/serviceaccount/jwt.go``
(signing and authentication). docs/serviceaccounts.md, "Tokens", says how the key is made.
"""

from __future__ import annotations

import contextlib
import hashlib
from datetime import timedelta
from typing import Any

from kbatch.api.base import format_time, parse_time
from kbatch.api.errors import BadRequest, Conflict, NotFound
from kbatch.api.go_base64 import std_decode
from kbatch.apiserver.requester import as_control_plane
from kbatch.authz.legacy_tokens import INVALID_SINCE_LABEL, LAST_USED_LABEL, LegacySecret, TokenMarkedInvalid
from kbatch.authz.sa_claims import Bound, Found, Ref, make_claims
from kbatch.authz.signing import SigningKey
from kbatch.authz.token_authentication import DEFAULT_ISSUER, Authenticated, TokenAuthenticator
from kbatch.authz.token_request import BoundRef, check_metadata, lifetime, token_request_spec
from kbatch.authz.token_signer import TokenSigner
from kbatch.authz.user import UserInfo
from kbatch.server.backend import Backend, WriteOptions

__all__ = ["BackendLookup", "TokenService", "default_tokens"]

Obj = dict[str, Any]
TOKEN_API_VERSION = "authentication.k8s.io/v1"


class BackendLookup:
    """The validator's :class:`~kbatch.authz.sa_claims.Lookup` over a backend's core objects."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def _get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        info = self.backend.registry.for_gvk("v1", kind).info
        try:
            return self.backend.get(info, namespace, name)
        except NotFound:
            return None

    def _found(self, kind: str, namespace: str | None, name: str) -> Found | None:
        obj = self._get(kind, namespace, name) if name else None
        if obj is None:
            return None
        meta = obj.get("metadata") or {}
        deleted = meta.get("deletionTimestamp")
        return Found(str(meta.get("uid", "")), parse_time(deleted).timestamp() if deleted else None)

    def service_account(self, namespace: str, name: str) -> Found | None:
        return self._found("ServiceAccount", namespace, name)

    def pod(self, namespace: str, name: str) -> Found | None:
        return self._found("Pod", namespace, name)

    def secret(self, namespace: str, name: str) -> Found | None:
        return self._found("Secret", namespace, name)

    def node(self, name: str) -> Found | None:
        return self._found("Node", None, name)

    def legacy_secret(self, namespace: str, name: str) -> LegacySecret | None:
        obj = self._get("Secret", namespace, name) if name else None
        if obj is None:
            return None
        meta = obj.get("metadata") or {}
        labels = meta.get("labels") or {}
        token = std_decode(str((obj.get("data") or {}).get("token", "")))
        return LegacySecret(token or b"", meta.get("deletionTimestamp") is not None,
                            str(labels.get(LAST_USED_LABEL, "")), str(labels.get(INVALID_SINCE_LABEL, "")))

    def account_secrets(self, namespace: str, name: str) -> tuple[str, ...]:
        account = self._get("ServiceAccount", namespace, name) or {}
        refs = account.get("secrets") or ()
        return tuple(str(ref.get("name", "")) for ref in refs if isinstance(ref, dict))

    def mark_used(self, namespace: str, secret: str, date: str) -> None:
        """``patchSecretWithLastUsedDate``: the last-used label, as the API server's own merge patch
        (a failure is only logged upstream; here a Secret gone meanwhile is no error either)."""
        info = self.backend.registry.for_gvk("v1", "Secret").info
        patch = {"metadata": {"labels": {LAST_USED_LABEL: date}}}
        with as_control_plane(), contextlib.suppress(NotFound, Conflict):
            self.backend.patch(info, namespace, secret, patch, "merge", WriteOptions())


def _ref(obj: Obj) -> Ref:
    meta = obj.get("metadata") or {}
    return Ref(str(meta.get("name", "")), str(meta.get("uid", "")))


class TokenService:
    """``--service-account-issuer``, ``--api-audiences``, ``--service-account-max-token-expiration``
    (0: none, upstream's default) and the signing key."""

    def __init__(self, key: SigningKey, *, issuer: str = DEFAULT_ISSUER,
                 audiences: tuple[str, ...] | None = None, max_expiration: int = 0) -> None:
        self.authenticator = TokenAuthenticator(key, (issuer,), audiences or (issuer,))
        self.issuer = issuer
        self.max_expiration = max_expiration
        self._issued = 0

    @classmethod
    def derived(cls, seed: int, secret: str | None = None) -> TokenService:
        """The service of a state with ``seed``; ``secret`` (``kbatch serve --token``) is mixed into the
        key, so that only who knows it could have made the key (docs/serviceaccounts.md)."""
        return cls(SigningKey.derive(f"{seed}\x00{secret or ''}".encode()))

    def authenticate(self, backend: Backend, token: str) -> UserInfo | None:
        """The user a bearer ``token`` names (:class:`~kbatch.authz.sa_claims.TokenInvalid` when it is
        ours and does not hold, ``None`` when it is not ours)."""
        answer = self.review(backend, token)
        return answer.user if answer is not None else None

    def review(self, backend: Backend, token: str, audiences: tuple[str, ...] = ()) -> Authenticated | None:
        """:meth:`authenticate` for ``audiences`` (default: the API server's), with the audiences the
        token holds for; a legacy token's Secret gets its last-used label (legacy.go)."""
        lookup = BackendLookup(backend)
        try:
            answer = self.authenticator.review(token, backend.now().timestamp(), lookup, audiences)
        except TokenMarkedInvalid as err:
            if err.mark_used:
                lookup.mark_used(err.namespace, err.secret, err.mark_used)
            raise
        if answer is not None and answer.legacy is not None and answer.legacy.mark_used:
            lookup.mark_used(answer.legacy.info.namespace, answer.legacy.secret, answer.legacy.mark_used)
        return answer

    def install_signer(self, backend: Backend) -> None:
        """Put this service's key where the tokens controller of the served control plane signs
        legacy tokens with it (:mod:`kbatch.authz.token_signer`); nothing for a backend without an
        in-process API server."""
        cp = getattr(backend, "control_plane", None)
        server = getattr(cp, "server", None)
        signer = getattr(server, "token_signer", None)
        if isinstance(signer, TokenSigner):
            signer.install(self.authenticator.key)

    def _jti(self, namespace: str, account: Ref, iat: int) -> str:
        """A uuid-shaped token id, a function of the key, the account, the time and how many tokens
        this service issued before (upstream draws a random uuid)."""
        self._issued += 1
        seed = f"{self.authenticator.key.kid}:{namespace}:{account.uid}:{iat}:{self._issued}"
        h = hashlib.sha256(seed.encode()).hexdigest()
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"

    def create_token(self, backend: Backend, namespace: str, name: str, body: Obj) -> tuple[Obj, list[str]]:
        """``TokenREST.Create``: the TokenRequest with its ``status`` and the warnings to send."""
        check_metadata(body, namespace, name)
        account = _ref(backend.get(backend.registry.for_gvk("v1", "ServiceAccount").info, namespace, name))
        audiences = self.authenticator.audiences
        spec = token_request_spec(body, audiences)
        bound = self._bound(backend, namespace, name, spec.bound) if spec.bound else Bound()
        life = lifetime(spec, pod_bound=bound.pod is not None, api_audiences=audiences,
                        max_seconds=self.max_expiration)
        now = backend.now()
        iat = int(now.timestamp())
        claims = make_claims(self.issuer, namespace, account, bound, now=iat, expiration=life.expiration,
                             warn_after=life.warn_after, audiences=spec.audiences,
                             jti=self._jti(namespace, account, iat))
        out_spec: Obj = {"audiences": list(spec.audiences), "expirationSeconds": life.status_seconds}
        if spec.bound is not None:
            out_spec["boundObjectRef"] = (body.get("spec") or {}).get("boundObjectRef")
        out = {"kind": "TokenRequest", "apiVersion": TOKEN_API_VERSION,
               "metadata": {"name": name, "namespace": namespace, "creationTimestamp": format_time(now)},
               "spec": out_spec,
               "status": {"token": self.authenticator.key.sign(claims),
                          "expirationTimestamp": format_time(now + timedelta(seconds=life.status_seconds))}}
        return out, [life.warning] if life.warning else []

    def _bound(self, backend: Backend, namespace: str, name: str, ref: BoundRef) -> Bound:
        """The object ``ref`` names, read and checked (``token.go``'s switch on the kind)."""
        info = backend.registry.for_gvk("v1", ref.kind).info
        obj = backend.get(info, None if ref.kind == "Node" else namespace, ref.name)
        found = _ref(obj)
        if ref.uid and ref.uid != found.uid:
            raise Conflict.of(ref.kind, ref.name, f"the UID in the bound object reference ({ref.uid}) does "
                              "not match the UID in record. The object might have been deleted and then "
                              "recreated")
        if ref.kind == "Secret":
            return Bound(secret=found)
        if ref.kind == "Node":
            return Bound(node=found)
        spec = obj.get("spec") or {}
        if spec.get("serviceAccountName") != name:
            raise BadRequest(f'cannot bind token for serviceaccount "{name}" to pod running with different '
                             "serviceaccount name.")
        node_name = spec.get("nodeName")
        if not node_name:
            return Bound(pod=found)
        # ServiceAccountTokenPodNodeInfo (GA): the node's name, and its uid while it exists
        node = BackendLookup(backend).node(node_name)
        return Bound(pod=found, node=Ref(node_name, node.uid if node is not None else ""))



def default_tokens(backend: Backend, secret: str | None) -> TokenService:
    """Tokens signed with a key derived from the served state's seed (the seed a state directory
    keeps, ``base_seed``, not the session's) and the static token: ``kbatch serve``'s, and the CLI's
    in local mode (a TokenReview it creates answers as the server over the same state would)."""
    cp = getattr(backend, "control_plane", None)
    seed = getattr(cp, "base_seed", getattr(cp, "seed", 0))
    return TokenService.derived(int(seed), secret)
