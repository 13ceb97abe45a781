"""Whether a requester may impersonate (k8s.io/apiserver ``pkg/endpoints/filters/impersonation``
``constrained_impersonation.go`` and ``mode.go``, Kubernetes 1.37: ConstrainedImpersonation beta, on):
the modes in order, the first mode's 403, the legacy ``impersonate`` verb as the last resort."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from kbatch.api.errors import Forbidden
from kbatch.authz.impersonation import requested_user
from kbatch.authz.impersonation_check import Authorize, check_impersonation
from kbatch.authz.rbac import Decision
from kbatch.authz.user import Attributes, UserInfo

ME = UserInfo(
    "system:serviceaccount:ns:me",
    ("system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"),
    "uid-me",
)
LIST_PODS = Attributes(ME, "list", namespace="ns", api_version="v1", resource="pods")
Rule = tuple[str, str, str, str]  # verb, api group, resource, name ("*": any)


def allowing(rules: Iterable[Rule]) -> Authorize:
    allowed = set(rules)

    def decide(a: Attributes) -> Decision:
        for verb, group, resource, name in allowed:
            if (
                verb in (a.verb, "*")
                and group in (a.api_group, "*")
                and resource in (a.resource, "*")
                and name in (a.name, "*")
            ):
                return Decision(True, "")
        return Decision(False, "")

    return decide


def _wanted(*headers: tuple[str, str]) -> UserInfo:
    wanted = requested_user(headers)
    assert wanted is not None
    return wanted


def test_no_permission_is_the_user_info_modes_403() -> None:
    with pytest.raises(Forbidden) as err:
        check_impersonation(ME, _wanted(("impersonate-user", "jane")), LIST_PODS, allowing([]))
    assert str(err.value) == (
        'pods is forbidden: User "system:serviceaccount:ns:me" cannot '
        'impersonate-on:user-info:list resource "pods" in API group "" in the namespace "ns"'
    )


def test_the_legacy_verb_still_allows() -> None:
    user = check_impersonation(
        ME,
        _wanted(("impersonate-user", "jane"), ("impersonate-group", "devs")),
        LIST_PODS,
        allowing([("impersonate", "", "users", "jane"), ("impersonate", "", "groups", "devs")]),
    )
    assert user == UserInfo("jane", ("devs", "system:authenticated"))


def test_constrained_user_info_needs_both_checks() -> None:
    rules = [
        ("impersonate-on:user-info:list", "", "pods", "*"),
        ("impersonate:user-info", "authentication.k8s.io", "users", "jane"),
    ]
    assert check_impersonation(
        ME, _wanted(("impersonate-user", "jane")), LIST_PODS, allowing(rules)
    ) == UserInfo("jane", ("system:authenticated",))
    with pytest.raises(Forbidden) as err:  # impersonate-on for list only
        check_impersonation(
            ME,
            _wanted(("impersonate-user", "jane")),
            Attributes(ME, "delete", namespace="ns", resource="pods", name="p"),
            allowing(rules),
        )
    assert "cannot impersonate-on:user-info:delete resource" in str(err.value)


def test_a_service_account_gets_its_groups() -> None:
    rules = [
        ("impersonate-on:serviceaccount:list", "", "pods", "*"),
        ("impersonate:serviceaccount", "authentication.k8s.io", "serviceaccounts", "bot"),
    ]
    user = check_impersonation(
        ME, _wanted(("impersonate-user", "system:serviceaccount:ns:bot")), LIST_PODS, allowing(rules)
    )
    assert user == UserInfo(
        "system:serviceaccount:ns:bot",
        ("system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"),
    )


def test_a_node_is_in_system_nodes() -> None:
    rules = [
        ("impersonate-on:arbitrary-node:list", "", "pods", "*"),
        ("impersonate:arbitrary-node", "authentication.k8s.io", "nodes", "n1"),
    ]
    user = check_impersonation(
        ME, _wanted(("impersonate-user", "system:node:n1")), LIST_PODS, allowing(rules)
    )
    assert user == UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))


@pytest.mark.parametrize("node", ["n1", "node-1.example.com"])
def test_a_node_name_ending_in_a_newline_is_no_node(node: str) -> None:
    """``isNodeUsername`` checks the name with ``ValidateNodeName`` (a DNS-1123 subdomain, a Go regexp
    whose ``$`` is the end of the text): ``"system:node:n1\\n"`` is no node, so a requester allowed to
    impersonate any node may not impersonate it (a Python ``$`` anchor matched before the newline)."""
    rules = [
        ("impersonate-on:arbitrary-node:list", "", "pods", "*"),
        ("impersonate:arbitrary-node", "authentication.k8s.io", "nodes", "*"),
    ]
    user = check_impersonation(ME, _wanted(("impersonate-user", f"system:node:{node}")), LIST_PODS,
                               allowing(rules))
    assert user.groups == ("system:nodes", "system:authenticated")
    with pytest.raises(Forbidden):
        check_impersonation(ME, _wanted(("impersonate-user", f"system:node:{node}\n")), LIST_PODS,
                            allowing(rules))


def test_the_associated_node_mode_checks_every_node_name() -> None:
    bound = UserInfo(ME.name, ME.groups, ME.uid, (("authentication.kubernetes.io/node-name", ("n1",)),))
    rules = [
        ("impersonate-on:associated-node:list", "", "pods", "*"),
        ("impersonate:associated-node", "authentication.k8s.io", "nodes", "*"),
    ]
    request = Attributes(bound, "list", namespace="ns", api_version="v1", resource="pods")
    user = check_impersonation(
        bound, _wanted(("impersonate-user", "system:node:n1")), request, allowing(rules)
    )
    assert user.groups == ("system:nodes", "system:authenticated")


def test_masters_group_falls_back_to_the_legacy_mode() -> None:
    """The user-info mode refuses ``system:masters``; the legacy mode, allowed, decides."""
    wanted = _wanted(("impersonate-user", "jane"), ("impersonate-group", "system:masters"))
    assert check_impersonation(ME, wanted, LIST_PODS, allowing([("*", "*", "*", "*")])).groups == (
        "system:masters",
        "system:authenticated",
    )
    with pytest.raises(Forbidden) as err:
        check_impersonation(
            ME,
            wanted,
            LIST_PODS,
            allowing(
                [("impersonate-on:user-info:list", "", "pods", "*"), ("impersonate:user-info", "*", "*", "*")]
            ),
        )
    assert str(err.value) == (
        'groups.authentication.k8s.io "system:masters" is forbidden: User '
        '"system:serviceaccount:ns:me" cannot impersonate:user-info resource "groups" in '
        'API group "authentication.k8s.io" at the cluster scope: impersonating the '
        "system:masters group is not allowed"
    )


def test_extras_and_uid_are_checked_in_the_legacy_mode() -> None:
    wanted = _wanted(
        ("impersonate-user", "jane"), ("impersonate-uid", "u-1"), ("impersonate-extra-scopes", "a")
    )
    rules = [("impersonate", "", "users", "jane"), ("impersonate", "authentication.k8s.io", "uids", "u-1")]
    with pytest.raises(Forbidden) as err:
        check_impersonation(ME, wanted, LIST_PODS, allowing(rules))
    # the first error is the user-info mode's
    assert "impersonate-on:user-info:list" in str(err.value)
    user = check_impersonation(
        ME, wanted, LIST_PODS, allowing([*rules, ("impersonate", "authentication.k8s.io", "userextras", "a")])
    )
    assert user == UserInfo("jane", ("system:authenticated",), "u-1", (("scopes", ("a",)),))
