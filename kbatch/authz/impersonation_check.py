"""May the requester impersonate whom the ``Impersonate-*`` headers ask for? As kube-apiserver 1.37
decides it with ConstrainedImpersonation (beta, on by default since 1.36): k8s.io/apiserver
``pkg/endpoints/filters/impersonation/constrained_impersonation.go`` and ``mode.go``.

The modes are tried in order; a mode whose filter does not fit the wanted user is skipped, the first
that allows wins, and when none does the 403 is the first mode's error:

1. ``associated-node``: only a ``system:node:<n>`` name, asked by a service account whose token is
   bound to node ``<n>``;
2. ``arbitrary-node``: only a ``system:node:<n>`` name;
3. ``serviceaccount``: only a ``system:serviceaccount:<ns>:<name>`` name;
4. ``user-info``: any name that is neither;
5. ``legacy``: always — the ``impersonate`` verb on ``users``, ``groups`` and ``serviceaccounts``
   (core group) and on ``uids`` and ``userextras/<key>`` (``authentication.k8s.io``), as
   ``impersonation.go`` before 1.35.

A constrained mode first needs ``impersonate-on:<mode>:<verb>`` on the request itself, then the
``impersonate:<mode>`` verb on what is impersonated (``authentication.k8s.io``: ``users``, ``nodes``,
``serviceaccounts``, ``groups``, ``uids``, ``userextras``); it refuses groups with a node or service
account, the empty group, ``system:masters``, and malformed extras. The wanted user's groups are
finished as the legacy filter does (``system:authenticated``, or ``system:unauthenticated`` for
``system:anonymous``); a node gets ``system:nodes``, a service account its two groups.
Upstream's per-mode caches change no decision and are not modelled.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from kbatch.api.errors import Forbidden
from kbatch.api.go_quote import go_quote_list
from kbatch.authz.impersonation import finish_groups, split_service_account
from kbatch.authz.rbac import Decision
from kbatch.authz.request import forbidden
from kbatch.authz.sa_claims import NODE_NAME_KEY
from kbatch.authz.user import SYSTEM_PRIVILEGED_GROUP, Attributes, UserInfo

__all__ = ["Authorize", "check_impersonation"]

Authorize = Callable[[Attributes], Decision]
AUTHN = "authentication.k8s.io"
NODE_PREFIX = "system:node:"
MANY = 4  # manyAuthorizationChecksInLoop: from this many groups or extra values, try "*" first
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True, slots=True)
class _Mode:
    name: str  # "" for legacy
    verb: str
    group: str  # the API group of users, groups and serviceaccounts in this mode's checks

    @property
    def constrained(self) -> bool:
        return bool(self.name)


_MODES = (_Mode("associated-node", "impersonate:associated-node", AUTHN),
          _Mode("arbitrary-node", "impersonate:arbitrary-node", AUTHN),
          _Mode("serviceaccount", "impersonate:serviceaccount", AUTHN),
          _Mode("user-info", "impersonate:user-info", AUTHN),
          _Mode("", "impersonate", ""))


def _node_name(username: str) -> str | None:
    """``isNodeUsername``: the node of a ``system:node:<name>`` user (a DNS subdomain name)."""
    if not username.startswith(NODE_PREFIX):
        return None
    name = username[len(NODE_PREFIX):]
    # fullmatch: Go's ``$`` is the end of the text, never before a final "\n"
    return name if name and len(name) <= 253 and _SUBDOMAIN.fullmatch(name) else None


def _only_name(wanted: UserInfo) -> bool:
    return not (wanted.uid or wanted.groups or wanted.extra)


def _applies(mode: _Mode, wanted: UserInfo, requestor: UserInfo) -> bool:
    node, account = _node_name(wanted.name), split_service_account(wanted.name)
    if mode.name == "associated-node":
        bound = dict(requestor.extra).get(NODE_NAME_KEY, ())
        return (_only_name(wanted) and node is not None and split_service_account(requestor.name) is not None
                and len(bound) == 1 and bound[0] == node)
    if mode.name == "arbitrary-node":
        return _only_name(wanted) and node is not None
    if mode.name == "serviceaccount":
        return _only_name(wanted) and account is not None
    if mode.name == "user-info":
        return node is None and account is None
    return True


def _allow(authorize: Authorize, attrs: Attributes) -> None:
    """``checkAuthorization``: the 403 ``ForbiddenStatusError`` unless allowed."""
    decision = authorize(attrs)
    if not decision.allowed:
        raise forbidden(attrs, decision.reason)


def _username(mode: _Mode, requestor: UserInfo, wanted: UserInfo, authorize: Authorize) -> tuple[str, ...]:
    """``authorizeUsername``: the check on the name, and the groups the user will have."""
    attrs = Attributes(requestor, mode.verb, api_group=mode.group, api_version="v1", resource="users",
                       name=wanted.name)
    groups = wanted.groups
    node, account = _node_name(wanted.name), split_service_account(wanted.name)
    if mode.constrained and node is not None:
        attrs = replace(attrs, resource="nodes", name="*" if mode.name == "associated-node" else node)
        if wanted.groups:
            raise forbidden(attrs, f"when impersonating a node, cannot impersonate groups "
                                   f"{go_quote_list(wanted.groups)}")
        groups = ("system:nodes",)
    if account is not None:
        attrs = replace(attrs, resource="serviceaccounts", namespace=account[0], name=account[1])
        if mode.constrained and wanted.groups:
            raise forbidden(attrs, f"when impersonating a service account, cannot impersonate groups "
                                   f"{go_quote_list(wanted.groups)}")
        if not wanted.groups:
            groups = ("system:serviceaccounts", f"system:serviceaccounts:{account[0]}")
    _allow(authorize, attrs)
    return groups


def _groups(mode: _Mode, requestor: UserInfo, groups: tuple[str, ...], authorize: Authorize) -> None:
    """``authorizeGroups``."""
    if not groups:
        return
    attrs = Attributes(requestor, mode.verb, api_group=mode.group, api_version="v1", resource="groups")
    if mode.constrained and "" in groups:
        raise forbidden(attrs, "impersonating the empty string group is not allowed")
    if mode.constrained and SYSTEM_PRIVILEGED_GROUP in groups:
        raise forbidden(replace(attrs, name=SYSTEM_PRIVILEGED_GROUP),
                        "impersonating the system:masters group is not allowed")
    if mode.constrained and len(groups) >= MANY and authorize(replace(attrs, name="*")).allowed:
        return
    for group in groups:
        _allow(authorize, replace(attrs, name=group))


def _extra_error(extra: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    """``validateExtra`` (the key's domain-prefixed-path check reduced to its common failures)."""
    for key, values in extra:
        if not key:
            return "impersonating the empty string key in extra is not allowed"
        if key != key.lower():
            return f'impersonating a non-lowercase key in extra is not allowed: "{key}"'
        if not values:
            return "impersonating empty values in extra is not allowed"
        if "" in values:
            return "impersonating the empty string value in extra is not allowed"
    return None


def _extras(mode: _Mode, requestor: UserInfo, extra: tuple[tuple[str, tuple[str, ...]], ...],
            authorize: Authorize) -> None:
    """``authorizeExtra`` (keys in sorted order where Go ranges over a map)."""
    if not extra:
        return
    attrs = Attributes(requestor, mode.verb, api_group=AUTHN, api_version="v1", resource="userextras")
    error = _extra_error(extra) if mode.constrained else None
    if error is not None:
        raise forbidden(attrs, error)
    large = len(extra) >= MANY or sum(len(v) for _, v in extra) >= MANY
    if mode.constrained and large and authorize(replace(attrs, subresource="*", name="*")).allowed:
        return
    for key, values in extra:
        for value in values:
            _allow(authorize, replace(attrs, subresource=key, name=value))


def _check(mode: _Mode, requestor: UserInfo, wanted: UserInfo, request: Attributes,
           authorize: Authorize) -> UserInfo:
    if mode.constrained:
        _allow(authorize, replace(request, user=requestor, verb=f"impersonate-on:{mode.name}:{request.verb}"))
    groups = _username(mode, requestor, wanted, authorize)
    if wanted.uid:
        _allow(authorize, Attributes(requestor, mode.verb, api_group=AUTHN, api_version="v1",
                                     resource="uids", name=wanted.uid))
    _groups(mode, requestor, wanted.groups, authorize)
    _extras(mode, requestor, wanted.extra, authorize)
    return UserInfo(wanted.name, finish_groups(wanted.name, groups), wanted.uid, wanted.extra)


def check_impersonation(requestor: UserInfo, wanted: UserInfo, request: Attributes,
                        authorize: Authorize) -> UserInfo:
    """The user ``requestor`` acts as when the headers ask for ``wanted`` (groups as given, see
    :func:`~kbatch.authz.impersonation.requested_user`) on ``request``; the first mode's 403 when no
    mode allows it."""
    first: Forbidden | None = None
    for mode in _MODES:
        if not _applies(mode, wanted, requestor):
            continue
        try:
            return _check(mode, requestor, wanted, request, authorize)
        except Forbidden as err:
            first = first or err
    assert first is not None  # the legacy mode always applies
    raise first
