"""Upstream's ClusterRole aggregation table, through kbatch's API and its ``clusterrole-aggregation``
controller.

Source: kubernetes/kubernetes
``pkg/controller/clusterroleaggregation/clusterroleaggregation_controller_test.go``
(``TestSyncClusterRole``, every case) with ``clusterroleaggregation_controller.go`` beside it (the
stored 1.3x version: server-side apply with field manager ``clusterrole-aggregation-controller``,
update as the fallback when apply is not served). Upstream syncs one key against a fake client and
compares the apply it sends; here the roles are created through the API, the control plane runs until
idle, and the aggregated role's stored rules are the outcome ("no diff skip": no write at all).
Upstream's rules carry no api groups (its fake client does not validate); here each carries ``[""]``
so that the API accepts it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.rbac_v1 import ClusterRole, PolicyRule
from kbatch.controllers.rbac.aggregation import aggregated_rules
from kbatch.runtime.controlplane import ControlPlane


def _rule(verb: str, resource: str) -> dict[str, Any]:
    return {"verbs": [verb], "apiGroups": [""], "resources": [resource]}


HAMMER = [_rule("hammer", "nails"), _rule("hammer", "wedges")]
CHISEL = [_rule("chisel", "mortises")]
SAW = [_rule("saw", "boards")]


def _role(name: str, labels: dict[str, str], rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name, "labels": labels}, "rules": rules}


def _combined(selectors: list[dict[str, str]], *rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "combined"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": s} for s in selectors]},
            "rules": [r for group in rules for r in group] or None}


BAR, NOT_BAR = {"foo": "bar"}, {"foo": "not-bar"}

CASES = [
    ("remove dead rules", [_role("hammer", BAR, HAMMER), _combined([BAR], SAW)], HAMMER),
    ("select properly and put in order",
     [_role("hammer", BAR, HAMMER), _role("chisel", BAR, CHISEL), _role("saw", NOT_BAR, SAW),
      _combined([BAR])],
     CHISEL + HAMMER),
    ("select properly with multiple selectors",
     [_role("hammer", BAR, HAMMER), _role("chisel", BAR, CHISEL), _role("saw", NOT_BAR, SAW),
      _combined([BAR, NOT_BAR])], CHISEL + HAMMER + SAW),
    ("select properly remove duplicates",
     [_role("hammer", BAR, HAMMER), _role("chisel", BAR, CHISEL), _role("saw", BAR, SAW),
      _role("other-saw", NOT_BAR, SAW), _combined([BAR, NOT_BAR])], CHISEL + HAMMER + SAW),
]


def _rules(cp: ControlPlane, name: str = "combined") -> list[dict[str, Any]]:
    return [r.to_dict() for r in cp.client.get(ClusterRole, name).rules or ()]


@pytest.mark.parametrize(("case", "objects", "want"), CASES, ids=[c[0] for c in CASES])
def test_sync_cluster_role(case: str, objects: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    cp = ControlPlane(controllers="clusterrole-aggregation")
    for obj in objects:
        cp.apply(obj)
    cp.run_until_idle()
    assert _rules(cp) == want


def test_strip_rules() -> None:
    """Row "strip rules": no role matches any more, and the controller applies no rules. Upstream's
    apply leaves out ``rules``, which removes them when the controller is their only manager: so here
    the aggregate's rules were the controller's (hammer matched first, then lost its label). Rules a
    user wrote into an aggregated role are another manager's and stay (server-side apply)."""
    cp = ControlPlane(controllers="clusterrole-aggregation")
    cp.apply(_role("hammer", BAR, HAMMER))
    cp.apply(_combined([BAR]))
    cp.run_until_idle()
    assert _rules(cp) == HAMMER
    cp.apply(_role("hammer", NOT_BAR, HAMMER))
    cp.run_until_idle()
    assert _rules(cp) == []


def test_no_diff_skip() -> None:
    """Row "no diff skip": rules already aggregated are not written again."""
    cp = ControlPlane(controllers="clusterrole-aggregation")
    cp.apply(_role("hammer", BAR, HAMMER))
    cp.apply(_combined([BAR], HAMMER))
    before = cp.client.get(ClusterRole, "combined").metadata.resource_version
    cp.run_until_idle()
    assert cp.client.get(ClusterRole, "combined").metadata.resource_version == before


def test_a_later_change_of_a_part_reaches_the_aggregate() -> None:
    """Every ClusterRole event requeues every aggregated role (upstream ``enqueue``)."""
    cp = ControlPlane(controllers="clusterrole-aggregation")
    cp.apply(_combined([BAR]))
    cp.run_until_idle()
    assert _rules(cp) == []
    cp.apply(_role("saw", BAR, SAW))
    cp.run_until_idle()
    assert _rules(cp) == SAW
    cp.apply(_role("saw", NOT_BAR, SAW))
    cp.run_until_idle()
    assert _rules(cp) == []


_RULES = st.lists(st.sampled_from([_rule(v, r) for v in ("get", "list") for r in ("pods", "jobs")]),
                  max_size=3)


@settings(max_examples=50, deadline=None)
@given(parts=st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.booleans(), _RULES), max_size=4,
                      unique_by=lambda p: p[0]))
def test_aggregate_is_the_ordered_union_without_repeats(
        parts: list[tuple[str, bool, list[dict[str, Any]]]]) -> None:
    """Invariant of ``syncClusterRole``: the aggregate holds each rule of a matched role exactly once, in
    the order of the matched roles by name, and nothing else; the input order does not matter."""
    roles = [ClusterRole.model_validate(_role(n, BAR if m else NOT_BAR, r)) for n, m, r in parts]
    target = ClusterRole.model_validate(_combined([BAR]))
    got = aggregated_rules(target, roles)
    assert got == aggregated_rules(target, list(reversed(roles)))
    expected: list[PolicyRule] = []
    for _, _, rules in sorted((p for p in parts if p[1]), key=lambda p: p[0]):
        for model in (PolicyRule.model_validate(r) for r in rules):
            expected += [] if model in expected else [model]
    assert got == expected
