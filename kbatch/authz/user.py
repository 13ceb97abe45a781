"""Who a request acts as and what it asks to do (k8s.io/apiserver ``pkg/authentication/user`` and
``pkg/authorization/authorizer`` ``AttributesRecord``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ALL_AUTHENTICATED", "ALL_UNAUTHENTICATED", "ANONYMOUS", "SYSTEM_PRIVILEGED_GROUP",
           "Attributes", "UserInfo", "user_info_wire"]

SYSTEM_PRIVILEGED_GROUP = "system:masters"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ANONYMOUS = "system:anonymous"


@dataclass(frozen=True, slots=True)
class UserInfo:
    """``user.DefaultInfo``: a name, groups in the order they were given, a uid and extra values."""

    name: str = ""
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()


def user_info_wire(user: UserInfo) -> dict[str, Any]:
    """``user`` as an ``authentication.k8s.io/v1`` ``UserInfo`` (k8s.io/api ``authentication/v1/
    types.go``): username, uid, groups, extra, each left out when empty (``omitempty``)."""
    out: dict[str, Any] = {}
    if user.name:
        out["username"] = user.name
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {key: list(values) for key, values in user.extra}
    return out


@dataclass(frozen=True, slots=True)
class Attributes:
    """``authorizer.AttributesRecord``: a resource request (``resource_request``) names a verb, an API
    group, a resource, maybe a subresource, a namespace and a name; a non-resource request a verb and
    a path."""

    user: UserInfo
    verb: str
    resource_request: bool = True
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""
