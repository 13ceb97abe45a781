"""The RBAC objects in the store, as the authorizer reads them (:class:`kbatch.authz.rbac.RbacSnapshot`).

Upstream's RBAC authorizer reads Roles, RoleBindings, ClusterRoles and ClusterRoleBindings from
informers (``plugin/pkg/auth/authorizer/rbac``); the API server's own checks in kbatch — the
escalation check of RBAC writes and the admission policies' ``authorizer`` — read the store at that
moment, once per request and only when a check is made.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.authz.rbac import RbacSnapshot

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["stored_rbac"]


def stored_rbac(server: APIServer) -> RbacSnapshot:
    """The stored RBAC objects as wire dicts (none of a kind the server does not serve)."""
    lists: list[list[Any]] = []
    for model in (Role, RoleBinding, ClusterRole, ClusterRoleBinding):
        items = server.list(model).items if model in server.registry else []
        lists.append([json.loads(obj.to_json()) for obj in items])
    roles, role_bindings, cluster_roles, cluster_role_bindings = lists
    return RbacSnapshot(roles, role_bindings, cluster_roles, cluster_role_bindings)
