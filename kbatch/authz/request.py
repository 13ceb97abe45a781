"""A REST request as an authorizer sees it, and the 403 it gets when no authorizer allows it.

Verbs as k8s.io/apiserver ``pkg/endpoints/request/requestinfo.go`` derives them (1.37): POST is
``create``, GET of a name ``get``, of a collection ``list`` (``watch`` with ``?watch``), PUT
``update``, PATCH ``patch``, DELETE of a name ``delete``, of a collection ``deletecollection``; any
other path is a non-resource request with the lower-cased HTTP method as its verb. A list or watch
whose ``fieldSelector`` requires ``metadata.name=<a path segment>`` names that object; a list, watch
or deletecollection carries its parsed field selector (AuthorizeWithSelectors, GA in 1.37; one that
does not parse carries none, k8s.io/apiserver ``pkg/endpoints/filters/authorization.go``). The 403 is
``responsewriters.ForbiddenStatusError``: ``<resource>[.<group>] "<name>" is forbidden: User "<u>"
cannot <verb> resource "<resource>[/<sub>]" in API group "<group>" in the namespace "<ns>"`` (``at the
cluster scope`` without one), then ``: <reason>`` when the authorizer gave one.
"""

from __future__ import annotations

from kbatch.api.errors import BadRequest, Forbidden, StatusDetails
from kbatch.api.selectors import FieldRequirement, parse_field_selector
from kbatch.authz.user import Attributes, UserInfo

__all__ = ["forbidden", "request_attributes"]

_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}
_SANITIZE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


_NAMESPACE_SUBRESOURCES = ("status", "finalize")


def _resource_parts(path: str) -> tuple[str, str, list[str]] | None:
    """``(group, version, rest)`` of a resource path, ``None`` for a non-resource one: ``/api/v1`` and
    ``/apis/<group>/<version>`` need at least one more segment (``requestinfo.go``)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 3 and parts[0] == "api":
        return "", parts[1], parts[2:]
    if len(parts) >= 4 and parts[0] == "apis":
        return parts[1], parts[2], parts[3:]
    return None


def _requirements(field_selector: str | None) -> tuple[FieldRequirement, ...]:
    try:
        return parse_field_selector(field_selector).requirements
    except BadRequest:
        return ()


def _exact_name(requirements: tuple[FieldRequirement, ...]) -> str:
    """``RequiresExactMatch("metadata.name")`` (the first such term) when the value is a valid path
    segment name (``IsPathSegmentName``)."""
    name = next((r.value for r in requirements if r.field == "metadata.name" and r.operator == "="), "")
    return "" if name in (".", "..") or "/" in name or "%" in name else name


def request_attributes(user: UserInfo, method: str, path: str, *, watch: bool,
                       field_selector: str | None = None) -> Attributes:
    """The attributes of a request by ``user`` (``RequestInfoFactory.NewRequestInfo``)."""
    found = _resource_parts(path)
    if found is None:
        return Attributes(user, method.lower(), resource_request=False, path=path)
    group, version, rest = found
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    name = rest[1] if len(rest) > 1 else ""
    verb = _VERBS.get(method, "")
    if method in ("GET", "HEAD"):
        verb = "watch" if watch else ("get" if name else "list")
    elif method == "DELETE":
        verb = "delete" if name else "deletecollection"
    requirements = _requirements(field_selector) if verb in ("list", "watch", "deletecollection") else ()
    if verb in ("list", "watch") and not name:
        name = _exact_name(requirements)
    return Attributes(user, verb, namespace=namespace, api_group=group, api_version=version,
                      resource=rest[0], subresource=rest[2] if len(rest) > 2 else "", name=name,
                      field_selector=requirements)


def _message(attrs: Attributes) -> str:
    who = attrs.user.name
    if not attrs.resource_request:
        return f'User "{who}" cannot {attrs.verb} path "{attrs.path}"'
    resource = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    head = f'User "{who}" cannot {attrs.verb} resource "{resource}" in API group "{attrs.api_group}"'
    if attrs.namespace:
        return f'{head} in the namespace "{attrs.namespace}"'
    return f"{head} at the cluster scope"


def forbidden(attrs: Attributes, reason: str) -> Forbidden:
    """``ForbiddenStatusError`` (the message as ``apierrors.NewForbidden`` words it)."""
    msg = _message(attrs).translate(_SANITIZE)
    err = f"{msg}: {reason}" if reason else msg
    qualified = f"{attrs.resource}.{attrs.api_group}" if attrs.api_group else attrs.resource
    subject = f'{qualified} "{attrs.name}"' if attrs.name else qualified
    if not attrs.resource:
        subject = "forbidden"
        return Forbidden(f"{subject}: {err}", details=StatusDetails())
    details = StatusDetails(name=attrs.name or None, group=attrs.api_group or None, kind=attrs.resource)
    return Forbidden(f"{subject} is forbidden: {err}", details=details)
