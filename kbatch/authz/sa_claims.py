"""Service-account token claims: what a bound token says and when it still holds.

Upstream k8s.io/kubernetes ``pkg/serviceaccount/claims.go`` (1.37):

* ``Claims``: ``sub`` ``system:serviceaccount:<ns>:<name>``, ``aud``, ``iat`` = ``nbf`` = now and
  ``exp`` = now + the expiration, in whole seconds (``jwt.NumericDate``), a ``jti`` (ServiceAccountTokenJTI,
  GA), and the private ``kubernetes.io`` claim: ``namespace``, ``serviceaccount`` {name, uid} and the
  bound object — a ``pod`` (with the ``node`` it runs on, ServiceAccountTokenPodNodeInfo, GA), a
  ``secret`` or a ``node`` — and ``warnafter`` for an extended projected token;
* the validator: ``exp``/``nbf``/``iat`` against now with go-jose's one-minute leeway, then the
  account (same uid, not deleted more than the leeway ago), the bound secret, pod or node likewise,
  each with upstream's message. The caller's ``lookup`` reads the objects; everything here is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kbatch.authz.user import UserInfo

__all__ = ["DEFAULT_ISSUER", "LEEWAY", "Bound", "Found", "Lookup", "Ref", "ServiceAccountInfo",
           "TokenInvalid", "make_claims", "service_account_user", "validate_claims"]

LEEWAY = 60.0  # go-jose jwt.DefaultLeeway
DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"  # kubeadm's --service-account-issuer
PREFIX = "system:serviceaccount:"
POD_NAME_KEY, POD_UID_KEY = "authentication.kubernetes.io/pod-name", "authentication.kubernetes.io/pod-uid"
NODE_NAME_KEY = "authentication.kubernetes.io/node-name"
NODE_UID_KEY = "authentication.kubernetes.io/node-uid"
CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id"


class TokenInvalid(Exception):
    """The token was signed by us but does not hold (upstream's error text; the client sees 401)."""


@dataclass(frozen=True, slots=True)
class Ref:
    name: str
    uid: str


@dataclass(frozen=True, slots=True)
class Bound:
    """What a token is bound to: a pod (and the node it runs on, uid empty when the node is gone),
    a secret, or a node; at most one of pod and secret."""

    pod: Ref | None = None
    secret: Ref | None = None
    node: Ref | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """An object as the validator needs it: its uid and its deletion time (epoch seconds) if any."""

    uid: str
    deleted_at: float | None = None


class Lookup(Protocol):
    def service_account(self, namespace: str, name: str) -> Found | None: ...

    def pod(self, namespace: str, name: str) -> Found | None: ...

    def secret(self, namespace: str, name: str) -> Found | None: ...

    def node(self, name: str) -> Found | None: ...


@dataclass(frozen=True, slots=True)
class ServiceAccountInfo:
    """``serviceaccount.ServiceAccountInfo``: who a valid token names."""

    namespace: str
    name: str
    uid: str
    pod: Ref | None = None
    node: Ref | None = None
    credential_id: str = ""


def _ref(ref: Ref) -> dict[str, str]:
    return {k: v for k, v in (("name", ref.name), ("uid", ref.uid)) if v}  # omitempty


def make_claims(issuer: str, namespace: str, account: Ref, bound: Bound, *, now: int, expiration: int,
                warn_after: int, audiences: Sequence[str], jti: str) -> dict[str, Any]:
    """The claims of a token for ``account`` issued at ``now`` (whole seconds) for ``expiration``
    seconds (``claims.go`` ``Claims``, then the generator's ``iss``)."""
    private: dict[str, Any] = {"namespace": namespace, "serviceaccount": _ref(account)}
    if bound.pod is not None:
        private["pod"] = _ref(bound.pod)
    if bound.secret is not None:
        private["secret"] = _ref(bound.secret)
    if bound.node is not None:
        private["node"] = _ref(bound.node)
    if warn_after:
        private["warnafter"] = now + warn_after
    claims: dict[str, Any] = {"iss": issuer, "sub": f"{PREFIX}{namespace}:{account.name}",
                              "aud": list(audiences), "iat": now, "nbf": now, "exp": now + expiration,
                              "jti": jti, "kubernetes.io": private}
    return claims


def _check_times(claims: dict[str, Any], now: float) -> None:
    """go-jose ``Claims.ValidateWithLeeway`` as ``claims.go`` words its errors."""
    exp, nbf, iat = claims.get("exp"), claims.get("nbf"), claims.get("iat")
    if isinstance(nbf, int | float) and now + LEEWAY < nbf:
        raise TokenInvalid("service account token is not valid yet")
    if isinstance(exp, int | float) and now - LEEWAY > exp:
        raise TokenInvalid("service account token has expired")
    if isinstance(iat, int | float) and now + LEEWAY < iat:
        raise TokenInvalid("service account token is issued in the future")


def _ref_claim(private: dict[str, Any], key: str) -> Ref | None:
    value = private.get(key)
    if not isinstance(value, dict):
        return None
    return Ref(str(value.get("name", "")), str(value.get("uid", "")))


def _gone(found: Found | None, now: float) -> bool:
    return found is not None and found.deleted_at is not None and found.deleted_at < now - LEEWAY


def _check_bound(kind: str, ref: Ref, found: Found | None, now: float) -> None:
    if found is None or _gone(found, now):
        raise TokenInvalid("service account token has been invalidated")
    if found.uid != ref.uid:
        raise TokenInvalid(f"{kind} UID ({found.uid}) does not match service account {kind} ref claim "
                           f"({ref.uid})")


def validate_claims(claims: dict[str, Any], now: float, lookup: Lookup) -> ServiceAccountInfo:
    """The account a signed token's ``claims`` name at ``now``, or :class:`TokenInvalid`."""
    _check_times(claims, now)
    private = claims.get("kubernetes.io")
    if not isinstance(private, dict):
        raise TokenInvalid("service account token claims could not be validated due to unexpected "
                           "validation error")
    namespace = str(private.get("namespace", ""))
    account = _ref_claim(private, "serviceaccount") or Ref("", "")
    found = lookup.service_account(namespace, account.name)
    if found is None:
        raise TokenInvalid(f'serviceaccount "{account.name}" not found')
    if found.uid != account.uid:
        raise TokenInvalid(f"service account UID ({found.uid}) does not match claim ({account.uid})")
    if _gone(found, now):
        raise TokenInvalid(f"service account {namespace}/{account.name} has been deleted")
    secret, pod, node = (_ref_claim(private, k) for k in ("secret", "pod", "node"))
    if secret is not None:
        _check_bound("secret", secret, lookup.secret(namespace, secret.name), now)
    if pod is not None:
        _check_bound("pod", pod, lookup.pod(namespace, pod.name), now)
    elif node is not None:
        _check_bound("node", node, lookup.node(node.name), now)
    jti = claims.get("jti")
    return ServiceAccountInfo(namespace, account.name, account.uid, pod, node,
                              f"JTI={jti}" if isinstance(jti, str) and jti else "")


def service_account_user(info: ServiceAccountInfo) -> UserInfo:
    """``ServiceAccountInfo.UserInfo`` (k8s.io/apiserver ``pkg/authentication/serviceaccount/util.go``):
    the account's name, uid and two groups, the pod, node and credential id as extras (sorted by key)."""
    extra: dict[str, tuple[str, ...]] = {}
    if info.pod is not None and info.pod.name and info.pod.uid:
        extra[POD_NAME_KEY], extra[POD_UID_KEY] = (info.pod.name,), (info.pod.uid,)
    if info.credential_id:
        extra[CREDENTIAL_ID_KEY] = (info.credential_id,)
    if info.node is not None and info.node.name:
        extra[NODE_NAME_KEY] = (info.node.name,)
        if info.node.uid:
            extra[NODE_UID_KEY] = (info.node.uid,)
    groups = ("system:serviceaccounts", f"system:serviceaccounts:{info.namespace}")
    return UserInfo(f"{PREFIX}{info.namespace}:{info.name}", groups, info.uid, tuple(sorted(extra.items())))
