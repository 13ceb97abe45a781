"""The union of authorization modes (k8s.io/apiserver ``pkg/authorization/union/union.go`` and the rows of
``union_test.go``: the first authorizer passes, the second passes, none passes) and the chain the API
server's own checks ask (:class:`kbatch.authz.chain.AuthorizerChain`).

Invariant (hypothesis): the union's decision is the first answer that is not "no opinion" in the modes'
order — kbatch's modes never deny, so the first allow, with that mode's own reason — and when every mode
has no opinion, no opinion whose reason lists each non-empty reason after its mode's name, in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.authz.chain import RBAC_ONLY, AuthorizerChain, union
from kbatch.authz.escalation import check
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.node_graph import NodeGraph
from kbatch.authz.rbac import Decision, RbacSnapshot
from kbatch.authz.user import Attributes, UserInfo

ALICE = UserInfo("alice", ("system:authenticated",))
ATTRS = Attributes(ALICE, "get", namespace="default", resource="pods", name="p")
EMPTY = RbacSnapshot([], [], [], [])


def _answers(*decisions: Decision) -> list[tuple[str, object]]:
    return [(f"m{i}", lambda _a, d=d: d) for i, d in enumerate(decisions)]


def test_first_passes() -> None:  # TestAuthorizationFirstPasses
    assert union(_answers(Decision(True, "one"), Decision(False, "two")), ATTRS) == Decision(True, "one")


def test_second_passes() -> None:  # TestAuthorizationSecondPasses
    assert union(_answers(Decision(False), Decision(True, "two")), ATTRS) == Decision(True, "two")


def test_none_passes() -> None:  # TestAuthorizationNonePasses: no opinion, every reason named
    decision = union(_answers(Decision(False, "nope"), Decision(False), Decision(False, "no")), ATTRS)
    assert decision == Decision(False, "m0: nope\nm2: no")


def test_a_mode_after_the_deciding_one_is_not_asked() -> None:
    asked: list[str] = []

    def mode(name: str, allowed: bool) -> tuple[str, object]:
        return name, lambda _a: asked.append(name) or Decision(allowed)

    assert union([mode("a", False), mode("b", True), mode("c", True)], ATTRS).allowed
    assert asked == ["a", "b"]


@given(st.lists(st.tuples(st.booleans(), st.text(alphabet="xyz ", max_size=3)), max_size=5))
def test_the_union_is_the_first_answer_that_is_not_no_opinion(answers: list[tuple[bool, str]]) -> None:
    decisions = [Decision(allowed, reason) for allowed, reason in answers]
    got = union(_answers(*decisions), ATTRS)
    first = next((d for d in decisions if d.allowed), None)
    if first is not None:
        assert got is first
    else:
        named = [f"m{i}: {d.reason}" for i, d in enumerate(decisions) if d.reason]
        assert got == Decision(False, "\n".join(named))


def _node_chain() -> AuthorizerChain:
    graph = NodeGraph()
    graph.add_pod("default", "p", "n1", ())
    return AuthorizerChain(NodeAuthorizer(lambda: graph, ()))


def test_the_chain_asks_the_node_authorizer_first_when_it_is_a_mode() -> None:
    kubelet = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))
    attrs = Attributes(kubelet, "get", namespace="default", resource="pods", name="p")
    assert _node_chain().authorize(attrs, EMPTY) == Decision(True, "")
    refused = RBAC_ONLY.authorize(attrs, EMPTY)
    assert not refused.allowed and not refused.reason.startswith("node:")
    other = Attributes(kubelet, "get", namespace="default", resource="pods", name="q")
    assert _node_chain().authorize(other, EMPTY).reason.startswith(
        "node: no relationship found between node 'n1' and this object")


def test_system_masters_is_allowed_before_any_mode() -> None:
    admin = UserInfo("admin", ("system:masters",))
    assert RBAC_ONLY.authorize(Attributes(admin, "escalate", resource="roles"), EMPTY).allowed


def test_the_escalation_check_asks_the_chain_it_is_given() -> None:
    """``RoleEscalationAuthorized`` and ``BindingAuthorized`` ask the server's authorizer: a mode before
    RBAC that allows ``escalate`` (here the Node authorizer's static rules) lets a kubelet write a Role
    with rules it does not hold; RBAC alone refuses it."""
    escalate = {"verbs": ["escalate", "bind"], "apiGroups": ["rbac.authorization.k8s.io"],
                "resources": ["roles", "clusterroles"]}
    chain = AuthorizerChain(NodeAuthorizer(NodeGraph, (escalate,)))
    kubelet = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))
    role = {"metadata": {"name": "r", "namespace": "default"},
            "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"]}]}
    assert check("Role", role, None, kubelet, "default", "", EMPTY, chain) is None
    refused = check("Role", role, None, kubelet, "default", "", EMPTY, RBAC_ONLY)
    assert refused is not None
    assert "attempting to grant RBAC permissions not currently held" in refused.message
    binding = {"metadata": {"name": "b", "namespace": "default"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "missing"}}
    assert check("RoleBinding", binding, None, kubelet, "default", "", EMPTY, chain) is None
