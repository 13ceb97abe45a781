"""``authentication.k8s.io/v1``: the handlers of the two create-only resources the core family
declares (:data:`kbatch.families.core.virtual.AUTHENTICATION`; routes and discovery from the
declaration, :mod:`kbatch.server.virtual`). ``selfsubjectreviews`` (``kubectl auth whoami``), as
kube-apiserver serves it (Kubernetes 1.37 ``pkg/registry/authentication/selfsubjectreview/rest.go``):
create-only and never stored, the answer is who the request acts as, ``status.userInfo`` with the
user's name, uid, groups and extra (empty ones left out, as Go's ``omitempty``). The
``creationTimestamp`` is the control plane's (virtual) now, where upstream's is the wall clock. A
request that impersonates no one is ``kubernetes-admin`` (docs/rbac.md).

``serviceaccounts/NAME/token``: core's declared subresource, a TokenRequest (:func:`serve_token_request`).

``tokenreviews``: a TokenReview is answered and never stored, as ``pkg/registry/authentication/
tokenreview/storage.go`` ``REST.Create`` answers it: a namespace or an empty ``spec.token`` is a 400;
the token is authenticated as a bearer token of a request would be, for ``spec.audiences`` (the API
server's when none); ``status.authenticated``, ``status.user`` and the audiences it holds for, or the
authenticator's error (:func:`token_review`).
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import BadRequest
from kbatch.authz.sa_claims import TokenInvalid
from kbatch.authz.user import UserInfo, user_info_wire
from kbatch.server.authorization_api import ADMIN
from kbatch.server.routing import route_not_found

if TYPE_CHECKING:
    from kbatch.server.backend import Backend
    from kbatch.server.service_account_tokens import TokenService
    from kbatch.server.virtual import VirtualCall

__all__ = ["GROUP", "INVALID_BEARER_TOKEN", "VERSION", "self_subject_review", "serve_self_subject_review",
           "serve_token_request", "serve_token_review", "token_review"]

Obj = dict[str, Any]
GROUP, VERSION = "authentication.k8s.io", "v1"
INVALID_BEARER_TOKEN = "invalid bearer token"  # k8s.io/apiserver pkg/authentication/request/bearertoken


def self_subject_review(user: UserInfo, now: str) -> Obj:
    """The answer to a SelfSubjectReview by ``user`` at ``now`` (RFC 3339)."""
    return {"kind": "SelfSubjectReview", "apiVersion": f"{GROUP}/{VERSION}",
            "metadata": {"creationTimestamp": now}, "status": {"userInfo": user_info_wire(user)}}


def _review_spec(body: object) -> tuple[str, tuple[str, ...]]:
    """The token and audiences a TokenReview asks about; 400 for anything else, as the REST's."""
    if not isinstance(body, dict) or body.get("kind", "TokenReview") != "TokenReview" or \
            body.get("apiVersion", f"{GROUP}/{VERSION}") != f"{GROUP}/{VERSION}":
        raise BadRequest("the body of the request was in an unknown format: not a TokenReview")
    spec = body.get("spec") or {}
    token = spec.get("token") if isinstance(spec, dict) else None
    audiences = (spec.get("audiences") if isinstance(spec, dict) else None) or []
    if not isinstance(spec, dict) or not isinstance(token, str | None) or not isinstance(audiences, list) \
            or not all(isinstance(a, str) for a in audiences):
        raise BadRequest("the body of the request was in an unknown format: not a TokenReview")
    if not token:
        raise BadRequest("token is required for TokenReview in authentication")
    return token, tuple(audiences)


def _authenticate(backend: Backend, tokens: TokenService, static: str | None, token: str,
                  audiences: tuple[str, ...]) -> tuple[UserInfo | None, tuple[str, ...], str]:
    """The user, audiences and error of ``token`` as kube-apiserver's request authenticator gives
    them: ``serve --token``'s static token is the local administrator, an audience-agnostic
    authenticator's answer holding for the API server's audiences only
    (``authenticator.WrapAudienceAgnosticToken``); a service-account token's error comes after the
    bearer-token authenticator's own, as kube-apiserver's union aggregates them."""
    api = tokens.authenticator.audiences
    if static is not None and hmac.compare_digest(token.encode(), static.encode()):
        common = tuple(a for a in api if a in (audiences or api))
        return (ADMIN if common else None), common, "" if common else INVALID_BEARER_TOKEN
    try:
        answer = tokens.review(backend, token, audiences)
    except TokenInvalid as err:
        return None, (), f"[{INVALID_BEARER_TOKEN}, {err}]"
    if answer is None:
        return None, (), INVALID_BEARER_TOKEN
    return answer.user, answer.audiences, ""


def token_review(backend: Backend, tokens: TokenService, body: object, static: str | None = None) -> Obj:
    """``REST.Create`` of a TokenReview: the request with its ``status``."""
    token, audiences = _review_spec(body)
    user, holds, error = _authenticate(backend, tokens, static, token, audiences)
    status: Obj = {}
    if user is not None:
        status["authenticated"] = True
    status["user"] = user_info_wire(user) if user is not None else {}
    if user is not None and holds:
        status["audiences"] = list(holds)
    if error:
        status["error"] = error
    spec: Obj = {"token": token}
    if audiences:
        spec["audiences"] = list(audiences)
    return {"kind": "TokenReview", "apiVersion": f"{GROUP}/{VERSION}",
            "metadata": {"creationTimestamp": None}, "spec": spec, "status": status}


def serve_self_subject_review(call: VirtualCall) -> Obj:
    """``REST.Create`` of a SelfSubjectReview: who the request acts as, at the control plane's now."""
    if call.body is not None and not isinstance(call.body, dict):
        raise BadRequest("the body of the request was in an unknown format: not a SelfSubjectReview")
    return self_subject_review(call.user, str(call.backend.clock()["now"]))


def serve_token_review(call: VirtualCall) -> Obj:
    """``REST.Create`` of a TokenReview; not served to a caller without a token service."""
    if call.tokens is None:
        raise route_not_found()
    return token_review(call.backend, call.tokens, call.body, call.static_token)


def serve_token_request(call: VirtualCall) -> Obj:
    """``POST serviceaccounts/NAME/token`` with an authentication.k8s.io/v1 TokenRequest (core's
    declared subresource; ``pkg/registry/core/serviceaccount/storage/token.go``): the request with its
    ``status`` (:meth:`TokenService.create_token`), its warnings on the call."""
    body = call.body
    if not isinstance(body, dict) or body.get("kind", "TokenRequest") != "TokenRequest" or \
            body.get("apiVersion", "authentication.k8s.io/v1") != "authentication.k8s.io/v1":
        raise BadRequest("the body of a serviceaccounts/token request must be an "
                         "authentication.k8s.io/v1 TokenRequest")
    if call.tokens is None or call.name is None:
        raise route_not_found()
    out, warnings = call.tokens.create_token(call.backend, call.namespace or "default", call.name, body)
    call.warnings.extend(warnings)
    return out
