"""Service-account tokens in ``kbatch serve``: the ``serviceaccounts/<name>/token`` subresource
(``kubectl create token``) and the bearer-token authenticator, over a :class:`Backend`.

:class:`TokenService` serves the API server's :class:`~kbatch.apiserver.token_requests.TokenIssuer`
(the control plane's own, so that the served state, its in-process clients and its kubelets issue
with one key and one count) and reads accounts, pods, secrets and nodes through the backend; the
decisions are in :mod:`kbatch.apiserver.token_requests`, :mod:`kbatch.authz.token_request`,
:mod:`kbatch.authz.sa_claims` and :mod:`kbatch.authz.token_authentication`. Upstream:
``pkg/registry/core/serviceaccount/storage/token.go`` (the REST), ``pkg/serviceaccount/jwt.go``
(signing and authentication). docs/serviceaccounts.md, "Tokens", says how the key is made.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.errors import Conflict, NotFound
from kbatch.api.go_base64 import std_decode
from kbatch.apiserver.requester import as_control_plane
from kbatch.apiserver.token_requests import ObjectLookup, TokenIssuer, derive_key
from kbatch.authz.legacy_tokens import INVALID_SINCE_LABEL, LAST_USED_LABEL, LegacySecret, TokenMarkedInvalid
from kbatch.authz.signing import SigningKey
from kbatch.authz.token_authentication import Authenticated, TokenAuthenticator
from kbatch.authz.token_signer import TokenSigner
from kbatch.authz.user import UserInfo
from kbatch.server.backend import Backend, WriteOptions

__all__ = ["BackendLookup", "BackendObjects", "TokenService", "default_tokens"]

Obj = dict[str, Any]


class BackendObjects:
    """:class:`~kbatch.apiserver.token_requests.Objects` read through a backend."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        info = self.backend.registry.for_gvk("v1", kind).info
        try:
            return self.backend.get(info, namespace, name)
        except NotFound:
            return None


class BackendLookup(ObjectLookup):
    """The validators' lookup (:class:`~kbatch.authz.token_authentication.AnyLookup`) over a backend:
    accounts and bound objects, and the legacy tokens' Secrets."""

    def __init__(self, backend: Backend) -> None:
        super().__init__(BackendObjects(backend))
        self.backend = backend

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


class TokenService:
    """The HTTP side of a :class:`~kbatch.apiserver.token_requests.TokenIssuer`: its requests and
    reviews read through a backend. ``key`` (optional) replaces the issuer's derived one."""

    def __init__(self, key: SigningKey | None = None, *, issuer: TokenIssuer | None = None,
                 max_expiration: int = 0) -> None:
        self.issuer = issuer if issuer is not None else TokenIssuer()
        if key is not None:
            self.issuer.use_key(key)
        self.issuer.max_expiration = max_expiration or self.issuer.max_expiration

    @classmethod
    def derived(cls, seed: int, secret: str | None = None) -> TokenService:
        """The service of a state with ``seed``; ``secret`` (``kbatch serve --token``) is mixed into the
        key, so that only who knows it could have made the key (docs/serviceaccounts.md)."""
        return cls(derive_key(seed, secret))

    @property
    def authenticator(self) -> TokenAuthenticator:
        return self.issuer.authenticator

    @property
    def max_expiration(self) -> int:
        return self.issuer.max_expiration

    @max_expiration.setter
    def max_expiration(self, seconds: int) -> None:
        self.issuer.max_expiration = seconds

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
        signer = getattr(_server(backend), "token_signer", None)
        if isinstance(signer, TokenSigner):
            signer.install(self.authenticator.key)

    def create_token(self, backend: Backend, namespace: str, name: str, body: Obj) -> tuple[Obj, list[str]]:
        """``TokenREST.Create``: the TokenRequest with its ``status`` and the warnings to send."""
        return self.issuer.create_token(BackendObjects(backend), namespace, name, body, backend.now())


def _server(backend: Backend) -> Any:
    """The in-process API server behind ``backend`` (``None``: an etcd- or HTTP-backed one)."""
    return getattr(getattr(backend, "control_plane", None), "server", None)


def default_tokens(backend: Backend, secret: str | None) -> TokenService:
    """Tokens signed with a key derived from the served state's seed (the seed a state directory
    keeps, ``base_seed``, not the session's) and the static token: ``kbatch serve``'s, and the CLI's
    in local mode (a TokenReview it creates answers as the server over the same state would)."""
    cp = getattr(backend, "control_plane", None)
    seed = int(getattr(cp, "base_seed", getattr(cp, "seed", 0)))
    issuer = getattr(_server(backend), "tokens", None)
    if isinstance(issuer, TokenIssuer):  # the control plane's own: its clients and kubelets share it
        issuer.use_secret(seed, secret)
        return TokenService(issuer=issuer)
    return TokenService.derived(seed, secret)
