"""Upstream's rule-resolver tables, case by case, through :mod:`kbatch.authz.rbac`.

Source: kubernetes/kubernetes ``pkg/registry/rbac/validation/rule_test.go`` (``TestDefaultRuleResolver``,
``TestAppliesTo``), read at the stored commit 00bdb3fa; ``rule.go``'s ``VisitRulesFor``/``appliesTo``
are unchanged in 1.37 but for the source describers, whose text the reason tests below pin
(``clusterRoleBindingDescriber``/``roleBindingDescriber``/``describeSubject``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.authz.rbac import RbacSnapshot, applies_to, authorize, rules_for
from kbatch.authz.user import Attributes, UserInfo

READ_PODS = {"verbs": ["GET", "WATCH"], "apiGroups": ["v1"], "resources": ["pods"]}
READ_SERVICES = {"verbs": ["GET", "WATCH"], "apiGroups": ["v1"], "resources": ["services"]}
WRITE_NODES = {"verbs": ["PUT", "CREATE", "UPDATE"], "apiGroups": ["v1"], "resources": ["nodes"]}
ADMIN = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
GROUP = "rbac.authorization.k8s.io"

STATIC_ROLES_1 = RbacSnapshot(
    roles=[{"metadata": {"namespace": "namespace1", "name": "readthings"},
            "rules": [READ_PODS, READ_SERVICES]}],
    cluster_roles=[{"metadata": {"name": "cluster-admin"}, "rules": [ADMIN]},
                   {"metadata": {"name": "write-nodes"}, "rules": [WRITE_NODES]}],
    role_bindings=[{"metadata": {"namespace": "namespace1"},
                    "subjects": [{"kind": "User", "name": "foobar"}, {"kind": "Group", "name": "group1"}],
                    "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": "readthings"}}],
    cluster_role_bindings=[{"metadata": {},
                            "subjects": [{"kind": "User", "name": "admin"},
                                         {"kind": "Group", "name": "admin"}],
                            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "cluster-admin"}}])


@pytest.mark.parametrize(("user", "namespace", "effective"), [
    (UserInfo("foobar"), "namespace1", [READ_PODS, READ_SERVICES]),
    (UserInfo("foobar"), "namespace2", []),
    (UserInfo("foobar", ("admin",)), "", [ADMIN]),  # without a namespace only cluster rules apply
    (UserInfo(), "", []),
], ids=["case0", "case1", "case2", "case3"])
def test_default_rule_resolver(user: UserInfo, namespace: str, effective: list[dict[str, Any]]) -> None:
    """rule_test.go ``TestDefaultRuleResolver``."""
    rules, error = rules_for(user, namespace, STATIC_ROLES_1)
    assert error == ""
    assert sorted(map(str, rules)) == sorted(map(str, effective))


APPLIES_TO = [
    ([{"kind": "User", "name": "foobar"}], UserInfo("foobar"), "", True,
     "single subject that matches username"),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "User", "name": "foobar"}], UserInfo("foobar"), "", True,
     "multiple subjects, one that matches username"),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "User", "name": "foobar"}], UserInfo("zimzam"), "", False,
     "multiple subjects, none that match username"),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}],
     UserInfo("zimzam", ("foobar",)), "", True, "multiple subjects, one that match group"),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}],
     UserInfo("zimzam", ("foobar",)), "namespace1", True,
     "multiple subjects, one that match group, should ignore namespace"),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"},
      {"kind": "ServiceAccount", "namespace": "kube-system", "name": "default"}],
     UserInfo("system:serviceaccount:kube-system:default"), "default", True,
     "multiple subjects with a service account that matches"),
    ([{"kind": "User", "name": "*"}], UserInfo("foobar"), "default", False,
     "* user subject name doesn't match all users"),
    ([{"kind": "Group", "name": "system:authenticated"}, {"kind": "Group", "name": "system:unauthenticated"}],
     UserInfo("foobar", ("system:authenticated",)), "default", True,
     "binding to all authenticated and unauthenticated subjects matches authenticated user"),
    ([{"kind": "Group", "name": "system:authenticated"}, {"kind": "Group", "name": "system:unauthenticated"}],
     UserInfo("system:anonymous", ("system:unauthenticated",)), "default", True,
     "binding to all authenticated and unauthenticated subjects matches anonymous user"),
]


@pytest.mark.parametrize(("subjects", "user", "namespace", "applies", "case"), APPLIES_TO,
                         ids=[row[-1] for row in APPLIES_TO])
def test_applies_to(subjects: list[dict[str, Any]], user: UserInfo, namespace: str, applies: bool,
                    case: str) -> None:
    """rule_test.go ``TestAppliesTo``."""
    assert (applies_to(user, subjects, namespace) is not None) is applies


def _get_pods(user: UserInfo, namespace: str) -> Attributes:
    return Attributes(user, "get", namespace=namespace, resource="pods")


READER = {"metadata": {"name": "reader"},
          "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}


def test_the_reason_names_the_cluster_role_binding_role_and_subject() -> None:
    """rbac.go ``authorizingVisitor``: ``RBAC: allowed by`` the source's ``String()``."""
    crb = {"metadata": {"name": "x"}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
           "subjects": [{"kind": "Group", "name": "g"}, {"kind": "User", "name": "z"}]}
    decision = authorize(_get_pods(UserInfo("z"), "a"), RbacSnapshot(cluster_roles=[READER],
                                                                     cluster_role_bindings=[crb]))
    assert decision.reason == 'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "reader" to User "z"'


def test_a_role_binding_reason_names_its_namespace_and_a_service_account_in_it() -> None:
    """``roleBindingDescriber``: ``name/namespace``; ``describeSubject``: a service account without a
    namespace is in the binding's."""
    rb = {"metadata": {"name": "rb", "namespace": "x"}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
          "subjects": [{"kind": "ServiceAccount", "name": "bot"}]}
    user = UserInfo("system:serviceaccount:x:bot", ("system:serviceaccounts", "system:serviceaccounts:x"))
    decision = authorize(_get_pods(user, "x"), RbacSnapshot(cluster_roles=[READER], role_bindings=[rb]))
    assert decision.reason == ('RBAC: allowed by RoleBinding "rb/x" of ClusterRole "reader" to '
                               'ServiceAccount "bot/x"')
    other = authorize(_get_pods(user, "y"), RbacSnapshot(cluster_roles=[READER], role_bindings=[rb]))
    assert not other.allowed


def test_a_binding_to_a_missing_role_is_the_denial_reason() -> None:
    """``GetRoleReferenceRules``' NotFound reaches the visitor as an error; ``Authorize`` reports the
    aggregate as its reason when nothing allows the request."""
    crb = {"metadata": {"name": "x"}, "roleRef": {"kind": "ClusterRole", "name": "gone"},
           "subjects": [{"kind": "User", "name": "z"}]}
    rb = {"metadata": {"name": "rb", "namespace": "a"}, "roleRef": {"kind": "Role", "name": "gone-too"},
          "subjects": [{"kind": "User", "name": "z"}]}
    decision = authorize(_get_pods(UserInfo("z"), "a"), RbacSnapshot(cluster_role_bindings=[crb],
                                                                     role_bindings=[rb]))
    assert decision == type(decision)(False, 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, '
                                             'role.rbac.authorization.k8s.io "gone-too" not found]')


def test_the_first_binding_by_name_gives_the_reason_whatever_the_listing_order() -> None:
    """Upstream's informer lists in no set order; kbatch visits by name so the reason is deterministic."""
    def crb(name: str) -> dict[str, Any]:
        return {"metadata": {"name": name}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
                "subjects": [{"kind": "User", "name": "z"}]}
    for order in ([crb("b"), crb("a")], [crb("a"), crb("b")]):
        decision = authorize(_get_pods(UserInfo("z"), ""), RbacSnapshot(cluster_roles=[READER],
                                                                        cluster_role_bindings=order))
        assert decision.reason == ('RBAC: allowed by ClusterRoleBinding "a" of ClusterRole "reader" '
                                   'to User "z"')
