"""Service-account token claims, signing and authentication as pure functions (upstream
``pkg/serviceaccount/claims.go`` and ``claims_test.go``, ``jwt.go`` and ``jwt_test.go``,
``pkg/registry/core/serviceaccount/storage/token.go``): what a token says, and when it still holds."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import BadRequest, Invalid
from kbatch.authz.sa_claims import Bound, Found, Ref, TokenInvalid, make_claims
from kbatch.authz.signing import SigningKey, unverified_claims
from kbatch.authz.token_authentication import DEFAULT_ISSUER, TokenAuthenticator
from kbatch.authz.token_request import lifetime, token_request_spec

KEY = SigningKey.derive(b"test")
T0 = 1_735_689_600  # 2025-01-01T00:00:00Z
SA = Ref("bot", "uid-sa")
POD = Ref("p", "uid-pod")


@dataclass
class Objects:
    """A :class:`~kbatch.authz.sa_claims.Lookup` over dicts."""

    accounts: dict[tuple[str, str], Found] = field(default_factory=lambda: {("ns", "bot"): Found("uid-sa")})
    pods: dict[tuple[str, str], Found] = field(default_factory=dict)
    secrets: dict[tuple[str, str], Found] = field(default_factory=dict)
    nodes: dict[str, Found] = field(default_factory=dict)

    def service_account(self, namespace: str, name: str) -> Found | None:
        return self.accounts.get((namespace, name))

    def pod(self, namespace: str, name: str) -> Found | None:
        return self.pods.get((namespace, name))

    def secret(self, namespace: str, name: str) -> Found | None:
        return self.secrets.get((namespace, name))

    def node(self, name: str) -> Found | None:
        return self.nodes.get(name)


def _token(
    bound: Bound = Bound(),
    *,
    expiration: int = 3600,
    audiences: tuple[str, ...] = (DEFAULT_ISSUER,),
    issuer: str = DEFAULT_ISSUER,
    account: Ref = SA,
    key: SigningKey = KEY,
) -> str:
    claims = make_claims(
        issuer,
        "ns",
        account,
        bound,
        now=T0,
        expiration=expiration,
        warn_after=0,
        audiences=audiences,
        jti="j-1",
    )
    return key.sign(claims)


AUTH = TokenAuthenticator(KEY)


def test_claims_are_upstreams() -> None:
    """claims_test.go ``TestClaims`` "bound to pod": the private claim carries namespace, account, pod."""
    claims = make_claims(
        DEFAULT_ISSUER,
        "ns",
        SA,
        Bound(pod=POD, node=Ref("n1", "")),
        now=T0,
        expiration=600,
        warn_after=0,
        audiences=("a",),
        jti="j",
    )
    assert claims == {
        "iss": DEFAULT_ISSUER,
        "sub": "system:serviceaccount:ns:bot",
        "aud": ["a"],
        "iat": T0,
        "nbf": T0,
        "exp": T0 + 600,
        "jti": "j",
        "kubernetes.io": {
            "namespace": "ns",
            "serviceaccount": {"name": "bot", "uid": "uid-sa"},
            "pod": {"name": "p", "uid": "uid-pod"},
            "node": {"name": "n1"},
        },
    }


def test_signing_is_deterministic_and_names_the_key() -> None:
    token = _token()
    assert token == _token()
    header = unverified_claims(token.split(".")[0] + "." + token.split(".")[0] + ".x")
    assert header == {"alg": "ES256", "kid": KEY.kid}
    assert len(KEY.kid) == 43  # unpadded base64url of a SHA-256


def test_a_valid_token_names_the_account() -> None:
    user = AUTH.authenticate(_token(), T0 + 10, Objects())
    assert user is not None
    assert (user.name, user.uid) == ("system:serviceaccount:ns:bot", "uid-sa")
    assert user.groups == ("system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated")
    assert user.extra == (("authentication.kubernetes.io/credential-id", ("JTI=j-1",)),)


@pytest.mark.parametrize(
    ("name", "token", "objects", "now", "error"),
    [
        ("expired", _token(expiration=600), Objects(), T0 + 661, "service account token has expired"),
        ("not yet valid", _token(), Objects(), T0 - 61, "service account token is not valid yet"),
        (
            "wrong audience",
            _token(audiences=("https://other",)),
            Objects(),
            T0,
            'token audiences ["https://other"] is invalid for the target audiences '
            '["https://kubernetes.default.svc.cluster.local"]',
        ),
        ("deleted account", _token(), Objects(accounts={}), T0, 'serviceaccount "bot" not found'),
        (
            "recreated account",
            _token(),
            Objects(accounts={("ns", "bot"): Found("uid-new")}),
            T0,
            "service account UID (uid-new) does not match claim (uid-sa)",
        ),
        (
            "account being deleted",
            _token(),
            Objects(accounts={("ns", "bot"): Found("uid-sa", T0 - 61)}),
            T0,
            "service account ns/bot has been deleted",
        ),
        (
            "bound pod deleted",
            _token(Bound(pod=POD)),
            Objects(),
            T0,
            "service account token has been invalidated",
        ),
        (
            "bound pod recreated",
            _token(Bound(pod=POD)),
            Objects(pods={("ns", "p"): Found("uid-other")}),
            T0,
            "pod UID (uid-other) does not match service account pod ref claim (uid-pod)",
        ),
        (
            "bound secret deleted",
            _token(Bound(secret=Ref("s", "uid-s"))),
            Objects(),
            T0,
            "service account token has been invalidated",
        ),
        (
            "bound node deleted",
            _token(Bound(node=Ref("n", "uid-n"))),
            Objects(),
            T0,
            "service account token has been invalidated",
        ),
        (
            "another key",
            _token(key=SigningKey.derive(b"other")),
            Objects(),
            T0,
            "Signature verification failed",
        ),
    ],
)
def test_a_token_that_no_longer_holds(
    name: str, token: str, objects: Objects, now: float, error: str
) -> None:
    with pytest.raises(TokenInvalid) as err:
        AUTH.authenticate(token, now, objects)
    assert str(err.value) == error


def test_bound_objects_being_deleted_hold_for_the_leeway() -> None:
    """Deleted "prior to now()-leeway" is invalid: a pod terminating for less than a minute is not."""
    objects = Objects(pods={("ns", "p"): Found("uid-pod", T0 - 30)})
    assert AUTH.authenticate(_token(Bound(pod=POD)), T0, objects) is not None
    objects = Objects(pods={("ns", "p"): Found("uid-pod", T0 - 61)})
    with pytest.raises(TokenInvalid):
        AUTH.authenticate(_token(Bound(pod=POD)), T0, objects)


def test_a_pod_bound_token_carries_the_pod_and_node_as_extras() -> None:
    objects = Objects(pods={("ns", "p"): Found("uid-pod")})
    user = AUTH.authenticate(_token(Bound(pod=POD, node=Ref("n1", "uid-n1"))), T0, objects)
    assert user is not None
    assert dict(user.extra) == {
        "authentication.kubernetes.io/credential-id": ("JTI=j-1",),
        "authentication.kubernetes.io/node-name": ("n1",),
        "authentication.kubernetes.io/node-uid": ("uid-n1",),
        "authentication.kubernetes.io/pod-name": ("p",),
        "authentication.kubernetes.io/pod-uid": ("uid-pod",),
    }


@pytest.mark.parametrize("token", ["", "a.b", "{}", "a.b.c", _token(issuer="https://elsewhere")])
def test_tokens_that_are_not_ours_are_not_claimed(token: str) -> None:
    assert AUTH.authenticate(token, T0, Objects()) is None


@given(
    expiration=st.integers(600, 10**6),
    offset=st.floats(-120, 2 * 10**6, allow_nan=False),
    same_uid=st.booleans(),
)
def test_a_token_holds_iff_unexpired_at_the_virtual_time_and_its_account_uid_matches(
    expiration: int, offset: float, same_uid: bool
) -> None:
    """The invariant, with go-jose's one-minute leeway on both ends."""
    objects = Objects(accounts={("ns", "bot"): Found("uid-sa" if same_uid else "uid-2")})
    now = T0 + offset
    holds = same_uid and now - 60 <= T0 + expiration and now + 60 >= T0
    try:
        user = AUTH.authenticate(_token(expiration=expiration), now, objects)
    except TokenInvalid:
        user = None
    assert (user is not None) == holds


def test_token_request_defaults_and_validation() -> None:
    spec = token_request_spec({"spec": {}}, (DEFAULT_ISSUER,))
    assert (spec.audiences, spec.expiration_seconds, spec.bound) == ((DEFAULT_ISSUER,), 3600, None)
    with pytest.raises(Invalid) as err:
        token_request_spec({"spec": {"expirationSeconds": 599}}, ())
    assert "may not specify a duration less than 10 minutes" in str(err.value)
    with pytest.raises(Invalid) as err:
        token_request_spec({"spec": {"expirationSeconds": 2**32 + 1}}, ())
    assert "may not specify a duration larger than 2^32 seconds" in str(err.value)
    with pytest.raises(BadRequest) as bad:
        token_request_spec({"spec": {"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1"}}}, ())
    assert str(bad.value) == "cannot bind token to object of type /v1, Kind=ConfigMap"


@pytest.mark.parametrize(
    ("seconds", "pod_bound", "audiences", "max_seconds", "want"),
    [
        (3600, False, (DEFAULT_ISSUER,), 0, (3600, 0, 3600, None)),
        (
            7200,
            False,
            (DEFAULT_ISSUER,),
            3600,
            (3600, 0, 3600, "requested expiration of 7200 seconds shortened to 3600 seconds"),
        ),
        (3607, True, (DEFAULT_ISSUER,), 0, (365 * 24 * 3600, 3607, 3607, None)),
        (3607, True, ("https://vault",), 0, (3607, 0, 3607, None)),  # not only the API server's audiences
        (3607, False, (DEFAULT_ISSUER,), 0, (3607, 0, 3607, None)),  # not pod-bound
    ],
)
def test_token_lifetime(
    seconds: int,
    pod_bound: bool,
    audiences: tuple[str, ...],
    max_seconds: int,
    want: tuple[int, int, int, str | None],
) -> None:
    """token.go: the max-expiration cap with its warning, and the extended projected token."""
    spec = token_request_spec(
        {"spec": {"expirationSeconds": seconds, "audiences": list(audiences)}}, (DEFAULT_ISSUER,)
    )
    got = lifetime(spec, pod_bound=pod_bound, api_audiences=(DEFAULT_ISSUER,), max_seconds=max_seconds)
    assert (got.expiration, got.warn_after, got.status_seconds, got.warning) == want
