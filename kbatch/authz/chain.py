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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kbatch.authz import rbac
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.rbac import Decision, RbacSnapshot
from kbatch.authz.user import SYSTEM_PRIVILEGED_GROUP, Attributes, UserInfo

__all__ = ["RBAC_ONLY", "AuthorizerChain", "authorize", "is_privileged", "union"]

Decider = Callable[[Attributes], Decision]


def is_privileged(user: UserInfo) -> bool:
    return SYSTEM_PRIVILEGED_GROUP in user.groups


def union(modes: Sequence[tuple[str, Decider]], attrs: Attributes) -> Decision:
    """``unionAuthzHandler.Authorize``: the first mode that allows decides; else no opinion, with each
    non-empty reason after its mode's name, one per line. (kbatch's modes never deny, so the first
    answer that is not "no opinion" is the first allow.)"""
    reasons: list[str] = []
    for name, decide in modes:
        decision = decide(attrs)
        if decision.allowed:
            return decision
        if decision.reason:
            reasons.append(f"{name}: {decision.reason}")
    return Decision(False, "\n".join(reasons))


def authorize(attrs: Attributes, snapshot: RbacSnapshot, node: NodeAuthorizer | None = None) -> Decision:
    """Allowed for ``system:masters``; else the Node authorizer's decision (when ``node`` is given),
    then RBAC's, as a union."""
    if is_privileged(attrs.user):
        return Decision(True, "")
    modes: list[tuple[str, Decider]] = [] if node is None else [("node", node.authorize)]
    modes.append(("rbac", lambda a: rbac.authorize(a, snapshot)))
    return union(modes, attrs)


@dataclass(frozen=True, slots=True)
class AuthorizerChain:
    """The chain a server is configured with (``--authorization-mode``): ``node`` is the Node
    authorizer when ``Node`` is a mode. What the API server's own checks ask — the escalation check of
    RBAC writes, NodeRestriction's token audience check, the admission policies' ``authorizer`` — as
    upstream hands those the server's whole authorizer (``config.Authorization.Authorizer``)."""

    node: NodeAuthorizer | None = None

    def authorize(self, attrs: Attributes, snapshot: RbacSnapshot) -> Decision:
        return authorize(attrs, snapshot, self.node)


RBAC_ONLY = AuthorizerChain()
"""``--authorization-mode=RBAC``."""
