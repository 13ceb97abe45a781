"""The TokenRequest's pure rules (``serviceaccounts/<name>/token``, authentication.k8s.io/v1):

* defaulting: ``expirationSeconds`` 3600 (``pkg/apis/authentication/v1/defaults.go``), ``audiences``
  the API server's when empty (``pkg/registry/core/serviceaccount/storage/token.go``);
* validation: ``metadata.name``/``namespace`` match the URL's when given, ``expirationSeconds`` at
  least 10 minutes and at most 2^32 (``pkg/apis/authentication/validation/validation.go``); a
  ``boundObjectRef`` to something other than a core Pod, Secret or Node is a 400;
* how long the token lives: capped by ``--service-account-max-token-expiration`` (with upstream's
  warning), and a pod-bound token asked for 3607 s with only the API server's audiences is issued
  for a year with ``warnafter`` at 3607 s (``--service-account-extend-token-expiration``, on by
  default; the Status still says 3607 s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import BadRequest, FieldError, Invalid

__all__ = ["BoundRef", "Lifetime", "TokenRequestSpec", "check_metadata", "lifetime", "token_request_spec"]

GROUP_KIND = "TokenRequest.authentication.k8s.io"
DEFAULT_EXPIRATION = 3600
MIN_EXPIRATION = 600
MAX_EXPIRATION = 1 << 32
WARN_ONLY_EXPIRATION = 3607  # WarnOnlyBoundTokenExpirationSeconds (claims.go)
EXTENDED_EXPIRATION = 365 * 24 * 3600  # ExpirationExtensionSeconds
BINDABLE = ("Pod", "Secret", "Node")


@dataclass(frozen=True, slots=True)
class BoundRef:
    kind: str
    name: str
    uid: str = ""
    api_version: str = ""


@dataclass(frozen=True, slots=True)
class TokenRequestSpec:
    audiences: tuple[str, ...]
    expiration_seconds: int
    bound: BoundRef | None


@dataclass(frozen=True, slots=True)
class Lifetime:
    """``expiration`` in the token, ``warn_after`` (0: none), ``status_seconds`` in the Status."""

    expiration: int
    warn_after: int
    status_seconds: int
    warning: str | None = None


def _gvk_string(api_version: str, kind: str) -> str:
    """``schema.GroupVersionKind.String()`` of ``FromAPIVersionAndKind``."""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"


def _bound(ref: Any) -> BoundRef | None:
    if not isinstance(ref, dict):
        return None
    api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
    if api_version.rpartition("/")[0] != "" or kind not in BINDABLE:
        raise BadRequest(f"cannot bind token to object of type {_gvk_string(api_version, kind)}")
    return BoundRef(kind, str(ref.get("name") or ""), str(ref.get("uid") or ""), api_version)


def check_metadata(body: dict[str, Any], namespace: str, name: str) -> None:
    """A name or namespace in the body must be the URL's (checked before the account is read)."""
    meta = body.get("metadata") or {}
    if meta.get("name") and meta["name"] != name:
        raise Invalid.of(GROUP_KIND, name, [FieldError.invalid(
            "metadata.name", meta["name"], "must match the service account name if specified")])
    if meta.get("namespace") and meta["namespace"] != namespace:
        raise Invalid.of(GROUP_KIND, name, [FieldError.invalid(
            "metadata.namespace", meta["namespace"],
            "must match the service account namespace if specified")])


def token_request_spec(body: dict[str, Any], api_audiences: Sequence[str]) -> TokenRequestSpec:
    """The defaulted, validated spec of a TokenRequest body (after the account was found)."""
    spec = body.get("spec") or {}
    seconds = spec.get("expirationSeconds")
    seconds = DEFAULT_EXPIRATION if seconds is None else seconds
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        raise BadRequest(f"the body of the request was in an unknown format: spec.expirationSeconds: "
                         f"{seconds!r} is not an integer")
    errors: list[FieldError] = []
    if seconds < MIN_EXPIRATION:
        errors.append(FieldError.invalid("spec.expirationSeconds", seconds,
                                         "may not specify a duration less than 10 minutes"))
    if seconds > MAX_EXPIRATION:
        errors.append(FieldError.invalid("spec.expirationSeconds", seconds,
                                         "may not specify a duration larger than 2^32 seconds"))
    if errors:
        raise Invalid.of(GROUP_KIND, "", errors)
    audiences = tuple(str(a) for a in spec.get("audiences") or ()) or tuple(api_audiences)
    return TokenRequestSpec(audiences, seconds, _bound(spec.get("boundObjectRef")))


def lifetime(spec: TokenRequestSpec, *, pod_bound: bool, api_audiences: Sequence[str], max_seconds: int,
             extend: bool = True) -> Lifetime:
    """How long the token lives (module docstring)."""
    seconds, warning = spec.expiration_seconds, None
    if max_seconds > 0 and seconds > max_seconds:
        warning = f"requested expiration of {seconds} seconds shortened to {max_seconds} seconds"
        seconds = max_seconds
    if extend and pod_bound and seconds == WARN_ONLY_EXPIRATION and set(spec.audiences) <= set(api_audiences):
        return Lifetime(EXTENDED_EXPIRATION, seconds, seconds, warning)
    return Lifetime(seconds, 0, seconds, warning)
