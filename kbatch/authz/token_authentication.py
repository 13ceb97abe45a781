"""Bearer-token authentication of service-account JWTs (k8s.io/kubernetes ``pkg/serviceaccount/jwt.go``
``jwtTokenAuthenticator.AuthenticateToken``, 1.37), as a pure function of the token, the key, the
time and a :class:`~kbatch.authz.sa_claims.Lookup`:

1. a token that is not a compact JWS, or whose unverified ``iss`` is not one of ours, is not this
   authenticator's (``None``: the caller answers 401 when no other authenticator claims it);
2. the signature must verify with the key (``kid`` names it);
3. the token's audiences (the API server's when it has none) must meet the API server's;
4. the claims must hold (:func:`~kbatch.authz.sa_claims.validate_claims`).

The user is the account's, plus ``system:authenticated``, which kube-apiserver's authenticator union
adds to every authenticated user (k8s.io/apiserver ``pkg/authentication/group/authenticated_group_adder.go``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from kbatch.authz.sa_claims import Lookup, TokenInvalid, service_account_user, validate_claims
from kbatch.authz.signing import InvalidSignature, SigningKey, unverified_claims
from kbatch.authz.user import ALL_AUTHENTICATED, UserInfo

__all__ = ["DEFAULT_ISSUER", "TokenAuthenticator"]

DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"  # kubeadm's --service-account-issuer


@dataclass(frozen=True)
class TokenAuthenticator:
    """``--service-account-issuer`` (issuers: the first signs), ``--api-audiences`` (default: the
    issuer) and the key that signs and verifies."""

    key: SigningKey
    issuers: tuple[str, ...] = (DEFAULT_ISSUER,)
    audiences: tuple[str, ...] = (DEFAULT_ISSUER,)

    def authenticate(self, token: str, now: float, lookup: Lookup) -> UserInfo | None:
        """The user ``token`` names at ``now``; ``None`` when it is not a service-account token of
        ours; :class:`TokenInvalid` when it is but does not hold."""
        unverified = unverified_claims(token)
        if unverified is None or unverified.get("iss") not in self.issuers:
            return None
        try:
            claims = self.key.verify(token)
        except InvalidSignature as err:
            raise TokenInvalid(str(err)) from None
        if claims.get("iss") not in self.issuers:
            raise TokenInvalid(f'token issuer "{claims.get("iss")}" is invalid')
        token_audiences = _audiences(claims.get("aud")) or self.audiences
        if self.audiences and not set(token_audiences) & set(self.audiences):
            raise TokenInvalid(f"token audiences {_go_quoted(token_audiences)} is invalid for the target "
                               f"audiences {_go_quoted(self.audiences)}")
        user = service_account_user(validate_claims(claims, now, lookup))
        return replace(user, groups=(*user.groups, ALL_AUTHENTICATED))


def _audiences(aud: object) -> tuple[str, ...]:
    """``jwt.Audience``: one string or a list of them."""
    if isinstance(aud, str):
        return (aud,)
    if isinstance(aud, list):
        return tuple(a for a in aud if isinstance(a, str))
    return ()


def _go_quoted(values: Sequence[str]) -> str:
    """Go's ``%q`` of a string slice: ``["a" "b"]``."""
    return "[" + " ".join(f'"{v}"' for v in values) + "]"
