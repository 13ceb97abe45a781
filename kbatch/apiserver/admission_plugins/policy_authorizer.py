"""What an admission policy's ``authorizer`` asks: the server's configured authorizer chain.

Upstream: the policy plugins get the server's whole authorizer (``WantsAuthorizer``; k8s.io/apiserver
``pkg/admission/plugin/policy/generic/plugin.go`` wraps it in ``admission/plugin/authorizer``
``NewCachingAuthorizer``: one answer per distinct question within a request). kbatch's chain is
``system:masters`` first, then the modes of ``--authorization-mode`` as a union — the Node authorizer
(by default) and RBAC (:attr:`kbatch.apiserver.server.APIServer.authorizer`, :mod:`kbatch.authz.chain`)
— so a check for a kubelet's user answers from the Node authorizer's graph as upstream's does. RBAC reads
the Roles, RoleBindings, ClusterRoles and ClusterRoleBindings in the store, once per request and only
when an expression calls ``check``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kbatch.api.cel.authz import Checker
from kbatch.apiserver.stored_rbac import stored_rbac
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.user import Attributes, UserInfo

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["authorizer_checker"]


def authorizer_checker(server: APIServer) -> Checker:
    """A checker for one request: the snapshot is read at the first ``check``, answers are cached."""
    snapshot: list[RbacSnapshot] = []
    answers: dict[str, tuple[bool, str, str]] = {}

    def check(request: Mapping[str, Any]) -> tuple[bool, str, str]:
        key = json.dumps(dict(request), sort_keys=True)
        if key not in answers:
            if not snapshot:
                snapshot.append(stored_rbac(server))
            user = UserInfo(name=request.get("user", ""), groups=tuple(request.get("groups") or ()))
            attrs = Attributes(user=user, verb=request.get("verb", ""),
                               resource_request=bool(request.get("resourceRequest")),
                               namespace=request.get("namespace", ""), api_group=request.get("group", ""),
                               api_version="*", resource=request.get("resource", ""),
                               subresource=request.get("subresource", ""), name=request.get("name", ""),
                               path=request.get("path", ""))
            decision = server.authorizer.authorize(attrs, snapshot[0])
            answers[key] = (decision.allowed, decision.reason, "")
        return answers[key]

    return check
