"""Who a request acts as and what it asks to do (k8s.io/apiserver ``pkg/authentication/user`` and
``pkg/authorization/authorizer`` ``AttributesRecord``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbatch.api.selectors import FieldRequirement

__all__ = ["ALL_AUTHENTICATED", "ALL_UNAUTHENTICATED", "ANONYMOUS", "NODES_GROUP", "NODE_USER_PREFIX",
           "SYSTEM_PRIVILEGED_GROUP", "Attributes", "UserInfo", "node_identity",
           "user_info_wire"]

SYSTEM_PRIVILEGED_GROUP = "system:masters"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ANONYMOUS = "system:anonymous"
NODES_GROUP = "system:nodes"
NODE_USER_PREFIX = "system:node:"


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


def node_identity(user: UserInfo) -> tuple[str, bool]:
    """``NodeIdentity`` (k8s.io/kubernetes ``pkg/auth/nodeidentifier/default.go``): (node name, whether
    the user is a node). A node is in ``system:nodes`` and named ``system:node:<name>``; ``("", True)``
    when the name after the prefix is empty."""
    if NODES_GROUP not in user.groups or not user.name.startswith(NODE_USER_PREFIX):
        return "", False
    return user.name[len(NODE_USER_PREFIX):], True


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
    # ``GetFieldSelector`` (AuthorizeWithSelectors, GA in 1.37): the parsed ``fieldSelector`` of a
    # list, watch or deletecollection, or of a review's ``resourceAttributes``
    field_selector: tuple[FieldRequirement, ...] = ()
