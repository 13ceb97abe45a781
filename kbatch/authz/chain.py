"""The authorizer chain kbatch models: kube-apiserver puts the privileged-group authorizer before its
configured modes (``pkg/kubeapiserver/authorizer/config.go``: members of ``system:masters`` may do
anything, with no reason given, k8s.io/apiserver ``authorizerfactory/builtin.go``), then the modes of
``--authorization-mode`` in order: ``Node`` (when configured; :mod:`kbatch.authz.node_authorizer`),
then RBAC.

The modes form a union (k8s.io/apiserver ``pkg/authorization/union/union.go``, 1.37): the first that
allows decides, with its own reason; when none does, the answer is no opinion and its reason joins the
non-empty reasons each gave, one per line, each after its authorizer's name (``node: no relationship
found between node 'n1' and this object``). The names are the modes' lower-cased, as an
AuthorizationConfiguration names them (``node``, ``rbac``).

The privileged-group authorizer has no ``RulesFor``, so a rules review lists RBAC's rules alone, for
``system:masters`` too (through the bootstrap ``cluster-admin`` binding).
"""

from __future__ import annotations

from kbatch.authz import rbac
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.rbac import Decision, RbacSnapshot
from kbatch.authz.user import SYSTEM_PRIVILEGED_GROUP, Attributes, UserInfo

__all__ = ["authorize", "is_privileged"]


def is_privileged(user: UserInfo) -> bool:
    return SYSTEM_PRIVILEGED_GROUP in user.groups


def authorize(attrs: Attributes, snapshot: RbacSnapshot, node: NodeAuthorizer | None = None) -> Decision:
    """Allowed for ``system:masters``; else the Node authorizer's decision (when ``node`` is given),
    then RBAC's, as a union."""
    if is_privileged(attrs.user):
        return Decision(True, "")
    reasons = []
    if node is not None:
        decision = node.authorize(attrs)
        if decision.allowed:
            return decision
        reasons.append(("node", decision.reason))
    decision = rbac.authorize(attrs, snapshot)
    if decision.allowed:
        return decision
    reasons.append(("rbac", decision.reason))
    return Decision(False, "\n".join(f"{name}: {reason}" for name, reason in reasons if reason))
