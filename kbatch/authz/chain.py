"""The authorizer chain kbatch models: kube-apiserver puts the privileged-group authorizer before its
configured modes (``pkg/kubeapiserver/authorizer/config.go``: members of ``system:masters`` may do
anything, with no reason given, k8s.io/apiserver ``authorizerfactory/builtin.go``), then RBAC.

The privileged-group authorizer has no ``RulesFor``, so a rules review lists RBAC's rules alone, for
``system:masters`` too (through the bootstrap ``cluster-admin`` binding).
"""

from __future__ import annotations

from kbatch.authz import rbac
from kbatch.authz.rbac import Decision, RbacSnapshot
from kbatch.authz.user import SYSTEM_PRIVILEGED_GROUP, Attributes, UserInfo

__all__ = ["authorize", "is_privileged"]


def is_privileged(user: UserInfo) -> bool:
    return SYSTEM_PRIVILEGED_GROUP in user.groups


def authorize(attrs: Attributes, snapshot: RbacSnapshot) -> Decision:
    """Allowed for ``system:masters``, else RBAC's decision."""
    if is_privileged(attrs.user):
        return Decision(True, "")
    return rbac.authorize(attrs, snapshot)
