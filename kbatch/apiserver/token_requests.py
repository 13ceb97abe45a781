"""The ``serviceaccounts/<name>/token`` subresource below the HTTP server: the API server's token issuer.

Upstream kube-apiserver answers a TokenRequest in ``pkg/registry/core/serviceaccount/storage/token.go``
(``TokenREST.Create``) and signs with ``pkg/serviceaccount/jwt.go``; every client reaches it the
same way, the kubelet included (``pkg/kubelet/token/token_manager.go`` calls
``ServiceAccounts(ns).CreateToken``). :class:`TokenIssuer` is that REST's decision and signing,
owned by the :class:`~kbatch.apiserver.server.APIServer`, so the in-process client
(:meth:`kbatch.apiserver.local.LocalClient.create_token`), ``kbatch create token`` and ``kbatch
serve`` (``kbatch/server/service_account_tokens.py``) issue through one object. It reads the
account and the bound object through :class:`Objects` (wire dicts) and writes nothing: a
TokenRequest is never stored and records no Event, as upstream's.

The key (docs/serviceaccounts.md, "The key"): a P-256 key derived from the state's seed and
``kbatch serve --token``'s secret (none in the library and the CLI), made when first used and never
pickled; :meth:`TokenIssuer.use_secret` re-derives it for a served state. Token ids are
deterministic: a hash of the key id, the account, the time and how many tokens this issuer issued
before (upstream draws a random uuid).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from kbatch.api.base import format_time, parse_time
from kbatch.api.errors import BadRequest, Conflict, NotFound
from kbatch.authz.sa_claims import DEFAULT_ISSUER, Bound, Found, Ref, make_claims
from kbatch.authz.token_request import BoundRef, check_metadata, lifetime, token_request_spec

if TYPE_CHECKING:  # the crypto libraries load only when a token is first signed or checked
    from kbatch.apiserver.server import APIServer
    from kbatch.authz.signing import SigningKey
    from kbatch.authz.token_authentication import TokenAuthenticator

__all__ = ["TOKEN_API_VERSION", "ObjectLookup", "Objects", "ServerObjects", "TokenIssuer", "derive_key"]

Obj = dict[str, Any]
TOKEN_API_VERSION = "authentication.k8s.io/v1"


class Objects(Protocol):
    """Reads a core/v1 object as its wire dict (``None``: there is none)."""

    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None: ...


class ServerObjects:
    """:class:`Objects` read from an in-process API server (as the control plane: kbatch authorizes
    no in-process read, docs/rbac.md)."""

    def __init__(self, server: APIServer) -> None:
        self.server = server

    def get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        model = self.server.registry.for_gvk("v1", kind).model
        try:
            return self.server.get(model, name, namespace).to_dict()
        except NotFound:
            return None


def derive_key(seed: int, secret: str | None = None) -> SigningKey:
    """The signing key of a state with ``seed`` served with ``secret`` (``kbatch serve --token``)."""
    from kbatch.authz.signing import SigningKey

    return SigningKey.derive(f"{seed}\x00{secret or ''}".encode())


class ObjectLookup:
    """The token validator's :class:`~kbatch.authz.sa_claims.Lookup` over :class:`Objects`."""

    def __init__(self, objects: Objects) -> None:
        self.objects = objects

    def _get(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        return self.objects.get(kind, namespace, name) if name else None

    def _found(self, kind: str, namespace: str | None, name: str) -> Found | None:
        obj = self._get(kind, namespace, name)
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


def _ref(obj: Obj) -> Ref:
    meta = obj.get("metadata") or {}
    return Ref(str(meta.get("name", "")), str(meta.get("uid", "")))


_RESOURCES = {"ServiceAccount": "serviceaccounts", "Pod": "pods", "Secret": "secrets", "Node": "nodes"}


def _must(objects: Objects, kind: str, namespace: str | None, name: str) -> Obj:
    obj = objects.get(kind, namespace, name)
    if obj is None:
        raise NotFound.of(_RESOURCES[kind], name)
    return obj


class TokenIssuer:
    """``--service-account-issuer`` (``issuer``), ``--api-audiences`` (``audiences``; default: the
    issuer), ``--service-account-max-token-expiration`` (``max_expiration``; 0: none, upstream's
    default), ``--service-account-extend-token-expiration`` (``extend_expiration``, on) and the key
    of a state with ``seed``; ``issued`` counts the tokens signed (their ids depend on it)."""

    def __init__(self, seed: int = 0, *, issuer: str = DEFAULT_ISSUER, audiences: tuple[str, ...] = (),
                 max_expiration: int = 0, extend_expiration: bool = True) -> None:
        self.seed = seed
        self.issuer = issuer
        self.audiences = audiences
        self.max_expiration = max_expiration
        self.extend_expiration = extend_expiration
        self.issued = 0
        self._secret: str | None = None
        self._key: SigningKey | None = None
        self._authenticator: TokenAuthenticator | None = None

    @property
    def key(self) -> SigningKey:
        if self._key is None:
            self._key = derive_key(self.seed, self._secret)
        return self._key

    @property
    def authenticator(self) -> TokenAuthenticator:
        from kbatch.authz.token_authentication import TokenAuthenticator

        if self._authenticator is None or self._authenticator.key is not self.key:
            audiences = self.audiences or (self.issuer,)
            self._authenticator = TokenAuthenticator(self.key, (self.issuer,), audiences)
        return self._authenticator

    def use_secret(self, seed: int, secret: str | None) -> None:
        """Sign with the key of a state with ``seed`` served with ``secret`` from now on."""
        if (seed, secret) != (self.seed, self._secret):
            self.seed, self._secret, self._key = seed, secret, None

    def use_key(self, key: SigningKey) -> None:
        """Sign with ``key`` (a caller that made its own: tests, ``kbatch serve --etcd-servers``)."""
        self._key = key

    def __getstate__(self) -> dict[str, Any]:
        """Neither the key nor ``kbatch serve --token``'s secret is pickled: a loaded issuer derives
        the state's key without the secret until a server installs its own again."""
        return {**self.__dict__, "_secret": None, "_key": None, "_authenticator": None}

    def _jti(self, namespace: str, account: Ref, iat: int) -> str:
        """A uuid-shaped token id (module docstring)."""
        self.issued += 1
        seed = f"{self.key.kid}:{namespace}:{account.uid}:{iat}:{self.issued}"
        h = hashlib.sha256(seed.encode()).hexdigest()
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"

    def create_token(self, objects: Objects, namespace: str, name: str, body: Obj,
                     now: datetime) -> tuple[Obj, list[str]]:
        """``TokenREST.Create`` at ``now``: the TokenRequest with its ``status``, and the warnings."""
        check_metadata(body, namespace, name)
        account = _ref(_must(objects, "ServiceAccount", namespace, name))
        audiences = self.authenticator.audiences
        spec = token_request_spec(body, audiences)
        bound = self._bound(objects, namespace, name, spec.bound) if spec.bound else Bound()
        life = lifetime(spec, pod_bound=bound.pod is not None, api_audiences=audiences,
                        max_seconds=self.max_expiration, extend=self.extend_expiration)
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
               "status": {"token": self.key.sign(claims),
                          "expirationTimestamp": format_time(now + timedelta(seconds=life.status_seconds))}}
        return out, [life.warning] if life.warning else []

    def _bound(self, objects: Objects, namespace: str, name: str, ref: BoundRef) -> Bound:
        """The object ``ref`` names, read and checked (``token.go``'s switch on the kind)."""
        obj = _must(objects, ref.kind, None if ref.kind == "Node" else namespace, ref.name)
        found = _ref(obj)
        if ref.uid and ref.uid != found.uid:
            # token.go names the Kind where a resource would be
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
        # ServiceAccountTokenPodNodeInfo (GA since 1.32): the node's name, and its uid while it exists
        node = ObjectLookup(objects).node(node_name)
        return Bound(pod=found, node=Ref(node_name, node.uid if node is not None else ""))
