"""The kubelet's service-account tokens: what a pod's ``serviceAccountToken`` projection holds.

Upstream (kubernetes/kubernetes 1.37): the projected volume plugin (``pkg/volume/projected/
projected.go``) asks the kubelet's token manager (``pkg/kubelet/token/token_manager.go``) for a token
per projection, with a TokenRequest of the projection's ``audience`` (none: the API server's) and
``expirationSeconds``, bound to the pod (``boundObjectRef`` ``v1`` ``Pod`` name and uid). The manager
keeps the answer per (account, namespace, audiences, expiration, bound object) and asks the API
server again (``ServiceAccounts(ns).CreateToken``, as the node's user) when :func:`requires_refresh`
says so: past 80 % of the token's lifetime, or 24 h after it was issued. A refresh that fails keeps
the old token while it has not expired. ``DeleteServiceAccountToken`` drops a deleted pod's tokens.

kbatch asks lazily: the file is set up when a container's script first reads it
(:mod:`.volume_files`), not when the pod starts, so a pod whose file nobody reads costs no
signature and holds no token (docs/serviceaccounts.md, "Tokens in pods"). Upstream's random jitter
of up to 10 s before the refresh point is left out (a run stays deterministic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from kbatch.api.base import parse_time
from kbatch.api.errors import StatusError
from kbatch.apiserver.client import Client, TokenRequester

__all__ = ["MAX_TTL", "Issued", "TokenManager", "projection_request", "requires_refresh"]

MAX_TTL = 24 * 3600  # maxTTL
DEFAULT_PROJECTION_SECONDS = 3600  # ServiceAccountTokenProjection.expirationSeconds' default (v1 defaults.go)


@dataclass(frozen=True, slots=True)
class Issued:
    """A TokenRequest's answer as the manager keeps it: the token, ``status.expirationTimestamp``
    (epoch seconds) and ``spec.expirationSeconds``."""

    token: str
    expires: float
    seconds: int

    @property
    def issued_at(self) -> float:
        return self.expires - self.seconds


def requires_refresh(issued: Issued, now: float) -> bool:
    """``Manager.requiresRefresh`` without its jitter: older than 24 h, within 20 % of its lifetime
    (integer seconds, as Go's ``seconds*20/100``) of its expiry, or issued in the future."""
    iat = issued.issued_at
    if now > iat + MAX_TTL:
        return True
    if now > issued.expires - (issued.seconds * 20) // 100:
        return True
    return now < iat


def projection_request(pod: Any, projection: Any) -> dict[str, Any]:
    """The TokenRequest the projected volume plugin sends for ``projection`` of ``pod``."""
    audiences = [projection.audience] if projection.audience else []
    seconds = projection.expiration_seconds or DEFAULT_PROJECTION_SECONDS
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"audiences": audiences, "expirationSeconds": seconds,
                     "boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": pod.metadata.name,
                                        "uid": pod.metadata.uid}}}


Key = tuple[str, str, str, int, str]  # account, namespace, audience, expirationSeconds, pod uid


class Clock(Protocol):
    def now_datetime(self) -> datetime: ...


class TokenManager:
    """The token manager of every simulated kubelet: ``token(pod, projection)`` through the pod's
    node's client (``clients(node)``), at the ``clock``'s now."""

    def __init__(self, clients: Callable[[str], Client], clock: Clock) -> None:
        self._clients = clients
        self._clock = clock
        self._cache: dict[Key, Issued] = {}

    def __len__(self) -> int:
        return len(self._cache)

    def token(self, pod: Any, projection: Any) -> str | None:
        """``GetServiceAccountToken``: the kept token, or a fresh one when it requires a refresh;
        ``None`` when there is none to give (the request failed and nothing valid is kept)."""
        request = projection_request(pod, projection)
        account, namespace = pod.spec.service_account_name or "default", pod.metadata.namespace or ""
        seconds = request["spec"]["expirationSeconds"]
        key = (account, namespace, projection.audience or "", seconds, pod.metadata.uid or "")
        now = self._clock.now_datetime().timestamp()
        kept = self._cache.get(key)
        if kept is not None and not requires_refresh(kept, now):
            return kept.token
        fresh = self._request(pod.spec.node_name or "", account, namespace, request)
        if fresh is None:
            if kept is not None and now <= kept.expires:
                return kept.token  # "Couldn't update token": the old one still holds
            self._cache.pop(key, None)
            return None
        self._cache[key] = fresh
        return fresh.token

    def _request(self, node: str, account: str, namespace: str, request: dict[str, Any]) -> Issued | None:
        client = self._clients(node)
        if not isinstance(client, TokenRequester):
            return None  # no in-process API server to ask (a kubelet over etcd: not modelled)
        try:
            answer = client.create_token(account, namespace, request)
        except StatusError:
            return None
        status, spec = answer.get("status") or {}, answer.get("spec") or {}
        expires = parse_time(str(status.get("expirationTimestamp"))).timestamp()
        return Issued(str(status.get("token", "")), expires, int(spec.get("expirationSeconds") or 0))

    def forget(self, pod_uid: str) -> None:
        """``DeleteServiceAccountToken``: the tokens bound to a pod that is gone."""
        for key in [k for k in self._cache if k[4] == pod_uid]:
            del self._cache[key]
