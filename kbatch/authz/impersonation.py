"""Who a request impersonates: the ``Impersonate-User``, ``Impersonate-Group``, ``Impersonate-Uid``
and ``Impersonate-Extra-<key>`` headers (kubectl ``--as``, ``--as-group``, ``--as-uid``), read as
k8s.io/apiserver ``pkg/endpoints/filters/impersonation/impersonation.go`` reads them (1.37):

* a ``system:serviceaccount:<ns>:<name>`` user is that service account, in the groups
  ``system:serviceaccounts`` and ``system:serviceaccounts:<ns>`` unless groups are given;
* the impersonated user is in ``system:authenticated`` (``system:unauthenticated`` when it is
  ``system:anonymous``) unless a given group already says so;
* groups, extras or a uid without a user is a 400 ``requested [...] without impersonating a user``.

:func:`requested_user` is what the headers ask for; :func:`impersonated_user` the user a requester
allowed everything (``system:masters``) becomes. Whether a requester may impersonate it is
:mod:`kbatch.authz.impersonation_check`'s decision.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

from kbatch.api.errors import BadRequest
from kbatch.authz.user import ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, UserInfo

__all__ = ["HEADERS", "SA_PREFIX", "finish_groups", "impersonated_user", "requested_user",
           "split_service_account"]

USER, GROUP, UID, EXTRA = "impersonate-user", "impersonate-group", "impersonate-uid", "impersonate-extra-"
HEADERS = (USER, GROUP, UID)
SA_PREFIX = "system:serviceaccount:"
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def split_service_account(username: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``: ``(namespace, name)``, or ``None`` when ``username`` is not a
    service account's (namespace a DNS-1123 label, name a DNS-1123 subdomain)."""
    if not username.startswith(SA_PREFIX):
        return None
    parts = username[len(SA_PREFIX):].split(":")
    if len(parts) != 2:
        return None
    namespace, name = parts
    # fullmatch: Go's ``$`` is the end of the text, never before a final "\n"
    if len(namespace) > 63 or not _DNS1123_LABEL.fullmatch(namespace):
        return None
    if len(name) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(name):
        return None
    return namespace, name


def _requests(user: str, groups: list[str], extras: list[tuple[str, str]], uid: str) -> str:
    """The ``%v`` of upstream's impersonation requests, for the 400's message."""
    parts = [f"{{User  {user}    }}"] if user else []
    parts += [f"{{Group  {g}    }}" for g in groups]
    parts += [f"{{UserExtra  {v}  authentication.k8s.io/v1  {k}}}" for k, v in extras]
    parts += [f"{{UID  {uid}  authentication.k8s.io/v1  }}"] if uid else []
    return "[" + " ".join(parts) + "]"


def requested_user(headers: Iterable[tuple[str, str]]) -> UserInfo | None:
    """What the (lower-cased) header pairs ask for, groups as given (none added), or ``None`` when
    they impersonate no one; groups, extras or a uid without a user is a 400."""
    user, uid = "", ""
    groups: list[str] = []
    extras: list[tuple[str, str]] = []
    for key, value in headers:
        if key == USER and not user:
            user = value
        elif key == GROUP:
            groups.append(value)
        elif key == UID and not uid:
            uid = value
        elif key.startswith(EXTRA):
            extras.append((unquote(key[len(EXTRA):]), value))
    if not (user or groups or extras or uid):
        return None
    if not user:
        raise BadRequest(f"requested {_requests(user, groups, extras, uid)} without impersonating a user")
    extra: dict[str, list[str]] = {}
    for k, v in extras:
        extra.setdefault(k, []).append(v)
    return UserInfo(user, tuple(groups), uid, tuple((k, tuple(v)) for k, v in sorted(extra.items())))


def finish_groups(name: str, groups: tuple[str, ...]) -> tuple[str, ...]:
    """``system:unauthenticated`` for ``system:anonymous``, else ``system:authenticated`` unless
    ``system:unauthenticated`` is given (``ensureGroup``: never twice)."""
    if name == ANONYMOUS:
        return groups if ALL_UNAUTHENTICATED in groups else (*groups, ALL_UNAUTHENTICATED)
    if ALL_UNAUTHENTICATED in groups or ALL_AUTHENTICATED in groups:
        return groups
    return (*groups, ALL_AUTHENTICATED)


def impersonated_user(headers: Iterable[tuple[str, str]]) -> UserInfo | None:
    """The user the (lower-cased) header pairs impersonate for a requester allowed everything, or
    ``None`` when they impersonate no one."""
    wanted = requested_user(headers)
    if wanted is None:
        return None
    groups = wanted.groups
    account = split_service_account(wanted.name)
    if account is not None and not groups:
        groups = ("system:serviceaccounts", f"system:serviceaccounts:{account[0]}")
    return UserInfo(wanted.name, finish_groups(wanted.name, groups), wanted.uid, wanted.extra)
