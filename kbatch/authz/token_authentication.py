"""Bearer-token authentication of service-account JWTs (k8s.io/kubernetes ``pkg/serviceaccount/jwt.go``
``jwtTokenAuthenticator.AuthenticateToken``, 1.37), as a pure function of the token, the key, the
time and a :class:`~kbatch.authz.sa_claims.Lookup`:

1. a token that is not a compact JWS, or whose unverified ``iss`` is not one of ours, is not this
   authenticator's (``None``: the caller answers 401 when no other authenticator claims it);
2. the signature must verify with the key (``kid`` names it);
3. the token's audiences (the API server's when it has none) must meet the API server's;
4. the claims must hold (:func:`~kbatch.authz.sa_claims.validate_claims`; a legacy token's,
   issuer ``kubernetes/serviceaccount``, :func:`~kbatch.authz.legacy_tokens.validate_legacy`).

The user is the account's, plus ``system:authenticated``, which kube-apiserver's authenticator union
adds to every authenticated user (k8s.io/apiserver ``pkg/authentication/group/authenticated_group_adder.go``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from kbatch.api.go_quote import go_quote_list
from kbatch.authz.legacy_tokens import LEGACY_ISSUER, LegacyLookup, LegacyValidation, validate_legacy
from kbatch.authz.sa_claims import DEFAULT_ISSUER, Lookup, TokenInvalid, service_account_user, validate_claims
from kbatch.authz.signing import InvalidSignature, SigningKey, unverified_claims
from kbatch.authz.user import ALL_AUTHENTICATED, UserInfo

__all__ = ["DEFAULT_ISSUER", "AnyLookup", "Authenticated", "TokenAuthenticator"]


class AnyLookup(Lookup, LegacyLookup, Protocol):
    """What both validators read: accounts, bound objects and token Secrets."""


@dataclass(frozen=True, slots=True)
class Authenticated:
    """``authenticator.Response``: the user and the audiences the token is good for (the
    intersection of its own and the requested ones); ``legacy`` for a Secret-based token."""

    user: UserInfo
    audiences: tuple[str, ...]
    legacy: LegacyValidation | None = None


@dataclass(frozen=True)
class TokenAuthenticator:
    """``--service-account-issuer`` (issuers: the first signs), ``--api-audiences`` (default: the
    issuer) and the key that signs and verifies. Legacy tokens (issuer ``kubernetes/serviceaccount``)
    are verified with the same key, as kube-apiserver's legacy authenticator is given the same
    ``--service-account-key-file`` keys."""

    key: SigningKey
    issuers: tuple[str, ...] = (DEFAULT_ISSUER,)
    audiences: tuple[str, ...] = (DEFAULT_ISSUER,)

    def authenticate(self, token: str, now: float, lookup: AnyLookup) -> UserInfo | None:
        """The user ``token`` names at ``now``; ``None`` when it is not a service-account token of
        ours; :class:`TokenInvalid` when it is but does not hold."""
        answer = self.review(token, now, lookup)
        return answer.user if answer is not None else None

    def review(self, token: str, now: float, lookup: AnyLookup,
               requested: Sequence[str] = ()) -> Authenticated | None:
        """:meth:`authenticate` for ``requested`` audiences (default: the API server's), with the
        audiences the token holds for (TokenReview's ``status.audiences``)."""
        unverified = unverified_claims(token)
        legacy = unverified is not None and unverified.get("iss") == LEGACY_ISSUER
        if unverified is None or (not legacy and unverified.get("iss") not in self.issuers):
            return None
        try:
            claims = self.key.verify(token)
        except InvalidSignature as err:
            raise TokenInvalid(str(err)) from None
        if claims.get("iss") not in (*self.issuers, LEGACY_ISSUER):
            raise TokenInvalid(f'token issuer "{claims.get("iss")}" is invalid')
        audiences = self._audiences(claims, tuple(requested) or self.audiences)
        if legacy:
            checked = validate_legacy(token, claims, datetime.fromtimestamp(now, UTC), lookup)
            user, found = service_account_user(checked.info), checked
        else:
            user, found = service_account_user(validate_claims(claims, now, lookup)), None
        return Authenticated(replace(user, groups=(*user.groups, ALL_AUTHENTICATED)), audiences, found)

    def _audiences(self, claims: dict[str, object], requested: tuple[str, ...]) -> tuple[str, ...]:
        """``jwtTokenAuthenticator``'s audience check: the token's (the API server's when it has none,
        as every legacy token) met with the requested ones; none in common is an error."""
        token_audiences = _audiences(claims.get("aud")) or self.audiences
        common = tuple(a for a in token_audiences if a in requested)
        if not common and self.audiences:
            raise TokenInvalid(f"token audiences {go_quote_list(token_audiences)} is invalid for the target "
                               f"audiences {go_quote_list(requested)}")
        return common


def _audiences(aud: object) -> tuple[str, ...]:
    """``jwt.Audience``: one string or a list of them."""
    if isinstance(aud, str):
        return (aud,)
    if isinstance(aud, list):
        return tuple(a for a in aud if isinstance(a, str))
    return ()
