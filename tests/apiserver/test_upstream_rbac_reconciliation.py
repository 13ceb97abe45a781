"""Kubernetes' ``pkg/registry/rbac/reconciliation`` tables, translated: ``reconcile_role_test.go``
(``TestComputeReconciledRoleRules``, ``TestComputeReconciledRoleAggregationRules``) and
``reconcile_rolebindings_test.go`` (``TestDiffObjectReferenceLists``, ``TestComputeUpdate``), plus the
``autoupdate: "false"`` protection and the roleRef recreate of ``computeReconciledRoleBinding``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.apiserver.rbac_reconciliation import reconcile_binding, reconcile_role
from kbatch.authz.escalation import covers

Obj = dict[str, Any]


def rules(*resources: str) -> list[Obj]:
    return [{"verbs": ["get"], "apiGroups": [""], "resources": [r]} for r in resources]


def role(
    rule_list: list[Obj] | None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    selectors: list[dict[str, str]] | None = None,
) -> Obj:
    meta: Obj = {}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    out: Obj = {"metadata": meta}
    if rule_list is not None:
        out["rules"] = rule_list
    if selectors is not None:
        out["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": s} for s in selectors]}
    return out


# name: (expected, actual, removeExtraPermissions, expected reconciled role or None when none needed)
ROLE_RULES: dict[str, tuple[Obj, Obj, bool, Obj | None]] = {
    "empty": (role(rules()), role(rules()), True, None),
    "match without union": (role(rules("a")), role(rules("a")), True, None),
    "match with union": (role(rules("a")), role(rules("a")), False, None),
    "different rules without union": (role(rules("a")), role(rules("b")), True, role(rules("a"))),
    "different rules with union": (role(rules("a")), role(rules("b")), False, role(rules("b", "a"))),
    "match labels without union": (role(rules("a"), {"1": "a"}), role(rules("a"), {"1": "a"}), True, None),
    "match labels with union": (role(rules("a"), {"1": "a"}), role(rules("a"), {"1": "a"}), False, None),
    "different labels without union": (
        role(rules("a"), {"1": "a"}),
        role(rules("a"), {"2": "b"}),
        True,
        role(rules("a"), {"1": "a", "2": "b"}),
    ),
    "different labels with union": (
        role(rules("a"), {"1": "a"}),
        role(rules("a"), {"2": "b"}),
        False,
        role(rules("a"), {"1": "a", "2": "b"}),
    ),
    "different labels and rules without union": (
        role(rules("a"), {"1": "a"}),
        role(rules("b"), {"2": "b"}),
        True,
        role(rules("a"), {"1": "a", "2": "b"}),
    ),
    "different labels and rules with union": (
        role(rules("a"), {"1": "a"}),
        role(rules("b"), {"2": "b"}),
        False,
        role(rules("b", "a"), {"1": "a", "2": "b"}),
    ),
    "conflicting labels and rules without union": (
        role(rules("a"), {"1": "a"}),
        role(rules("b"), {"1": "b"}),
        True,
        role(rules("a"), {"1": "b"}),
    ),
    "conflicting labels and rules with union": (
        role(rules("a"), {"1": "a"}),
        role(rules("b"), {"1": "b"}),
        False,
        role(rules("b", "a"), {"1": "b"}),
    ),
    "match annotations without union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("a"), None, {"1": "a"}),
        True,
        None,
    ),
    "match annotations with union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("a"), None, {"1": "a"}),
        False,
        None,
    ),
    "different annotations without union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("a"), None, {"2": "b"}),
        True,
        role(rules("a"), None, {"1": "a", "2": "b"}),
    ),
    "different annotations with union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("a"), None, {"2": "b"}),
        False,
        role(rules("a"), None, {"1": "a", "2": "b"}),
    ),
    "different annotations and rules without union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("b"), None, {"2": "b"}),
        True,
        role(rules("a"), None, {"1": "a", "2": "b"}),
    ),
    "different annotations and rules with union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("b"), None, {"2": "b"}),
        False,
        role(rules("b", "a"), None, {"1": "a", "2": "b"}),
    ),
    "conflicting annotations and rules without union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("b"), None, {"1": "b"}),
        True,
        role(rules("a"), None, {"1": "b"}),
    ),
    "conflicting annotations and rules with union": (
        role(rules("a"), None, {"1": "a"}),
        role(rules("b"), None, {"1": "b"}),
        False,
        role(rules("b", "a"), None, {"1": "b"}),
    ),
    "conflicting labels/annotations and rules without union": (
        role(rules("a"), {"3": "d"}, {"1": "a"}),
        role(rules("b"), {"4": "e"}, {"1": "b"}),
        True,
        role(rules("a"), {"3": "d", "4": "e"}, {"1": "b"}),
    ),
    "conflicting labels/annotations and rules with union": (
        role(rules("a"), {"3": "d"}, {"1": "a"}),
        role(rules("b"), {"4": "e"}, {"1": "b"}),
        False,
        role(rules("b", "a"), {"3": "d", "4": "e"}, {"1": "b"}),
    ),
    "complex labels/annotations and rules without union": (
        role(
            rules("pods", "nodes", "secrets"),
            {"env": "prod", "color": "blue"},
            {"description": "fancy", "system": "true"},
        ),
        role(
            rules("nodes", "images", "projects"),
            {"color": "red", "team": "pm"},
            {"system": "false", "owner": "admin", "vip": "yes"},
        ),
        True,
        role(
            rules("pods", "nodes", "secrets"),
            {"env": "prod", "color": "red", "team": "pm"},
            {"description": "fancy", "system": "false", "owner": "admin", "vip": "yes"},
        ),
    ),
    "complex labels/annotations and rules with union": (
        role(
            rules("pods", "nodes", "secrets"),
            {"env": "prod", "color": "blue", "manager": "randy"},
            {"description": "fancy", "system": "true", "up": "true"},
        ),
        role(
            rules("nodes", "images", "projects"),
            {"color": "red", "team": "pm"},
            {"system": "false", "owner": "admin", "vip": "yes", "rate": "down"},
        ),
        False,
        role(
            rules("nodes", "images", "projects", "pods", "secrets"),
            {"env": "prod", "manager": "randy", "color": "red", "team": "pm"},
            {
                "description": "fancy",
                "system": "false",
                "owner": "admin",
                "vip": "yes",
                "rate": "down",
                "up": "true",
            },
        ),
    ),
}

AGGREGATION: dict[str, tuple[Obj, Obj, bool, Obj | None]] = {
    "empty": (role(None, selectors=[]), role(None), True, None),
    "empty-2": (role(None, selectors=[]), role(None, selectors=[]), True, None),
    "match without union": (
        role(None, selectors=[{"foo": "bar"}]),
        role(None, selectors=[{"foo": "bar"}]),
        True,
        None,
    ),
    "match with union": (
        role(None, selectors=[{"foo": "bar"}]),
        role(None, selectors=[{"foo": "bar"}]),
        False,
        None,
    ),
    "different rules without union": (
        role(None, selectors=[{"foo": "bar"}]),
        role(None, selectors=[{"alpha": "bravo"}]),
        True,
        role(None, selectors=[{"foo": "bar"}]),
    ),
    "different rules with union": (
        role(None, selectors=[{"foo": "bar"}]),
        role(None, selectors=[{"alpha": "bravo"}]),
        False,
        role(None, selectors=[{"alpha": "bravo"}, {"foo": "bar"}]),
    ),
    "unexpected aggregation": (
        role(rules("pods", "nodes", "secrets")),
        role(None, selectors=[{"alpha": "bravo"}]),
        False,
        role(rules("pods", "nodes", "secrets")),
    ),
    "unexpected aggregation with differing permissions": (
        role(rules("pods", "nodes", "secrets")),
        role(rules("deployments"), selectors=[{"alpha": "bravo"}]),
        False,
        role(rules("deployments", "pods", "nodes", "secrets")),
    ),
}


def _same(got: Obj, want: Obj) -> bool:
    """``helper.Semantic.DeepEqual``: an absent list or map equals an empty one."""

    def norm(o: Obj) -> Obj:
        meta = o.get("metadata", {})
        return {
            "labels": meta.get("labels") or {},
            "annotations": meta.get("annotations") or {},
            "rules": o.get("rules") or [],
            "aggregationRule": o.get("aggregationRule"),
        }

    return norm(got) == norm(want)


@pytest.mark.parametrize("name", [*ROLE_RULES, *(f"aggregation: {n}" for n in AGGREGATION)])
def test_compute_reconciled_role(name: str) -> None:
    expected, actual, remove_extra, want = (
        ROLE_RULES[name] if name in ROLE_RULES else AGGREGATION[name.removeprefix("aggregation: ")]
    )
    result = reconcile_role(actual, expected, remove_extra)
    assert (result.operation != "none") == (want is not None)
    if want is not None:
        assert _same(result.obj, want), result.obj


def subjects(*names: str) -> list[Obj]:
    return [{"name": n} for n in names]


def binding(ref: str, subject_list: list[Obj]) -> Obj:
    return {"metadata": {}, "roleRef": {"name": ref}, "subjects": subject_list}


# name: (expected, actual, removeExtraSubjects, expected updated binding or None when none needed)
COMPUTE_UPDATE: dict[str, tuple[Obj, Obj, bool, Obj | None]] = {
    "match without union": (binding("role", subjects("a")), binding("role", subjects("a")), True, None),
    "match with union": (binding("role", subjects("a")), binding("role", subjects("a")), False, None),
    "different roleref with identical subjects": (
        binding("role", subjects("a")),
        binding("differentRole", subjects("a")),
        False,
        binding("role", subjects("a")),
    ),
    "extra subjects without union": (
        binding("role", subjects("a")),
        binding("role", subjects("a", "b")),
        True,
        binding("role", subjects("a")),
    ),
    "extra subjects with union": (
        binding("role", subjects("a")),
        binding("role", subjects("a", "b")),
        False,
        None,
    ),
    "missing subjects without union": (
        binding("role", subjects("a", "c")),
        binding("role", subjects("a", "b")),
        True,
        binding("role", subjects("a", "c")),
    ),
    "missing subjects with union": (
        binding("role", subjects("a", "c")),
        binding("role", subjects("a", "b")),
        False,
        binding("role", subjects("a", "b", "c")),
    ),
}


@pytest.mark.parametrize("name", COMPUTE_UPDATE)
def test_compute_update(name: str) -> None:
    expected, actual, remove_extra, want = COMPUTE_UPDATE[name]
    result = reconcile_binding(actual, expected, remove_extra)
    assert (result.operation != "none") == (want is not None)
    if want is not None:
        assert (result.obj["roleRef"], result.obj["subjects"]) == (want["roleRef"], want["subjects"])


@pytest.mark.parametrize(
    ("a", "b", "only_a", "only_b"),
    [
        ((), (), [], []),  # empty
        (("foo", "bar"), ("bar", "foo"), [], []),  # matching, order-independent
        (("foo", "bar"), ("foo", "baz"), ["bar"], ["baz"]),  # partial match
        (("foo",), ("bar",), ["foo"], ["bar"]),  # missing
        (("foo", "foo"), ("bar", "bar"), ["foo"], ["bar"]),  # remove duplicates
    ],
)
def test_diff_object_reference_lists(
    a: tuple[str, ...], b: tuple[str, ...], only_a: list[str], only_b: list[str]
) -> None:
    """``TestDiffObjectReferenceLists``, read through what a union reconcile adds and a removing one
    finds extra."""
    result = reconcile_binding(binding("r", subjects(*b)), binding("r", subjects(*a)))
    assert [s["name"] for s in result.missing] == only_a
    assert [s["name"] for s in result.extra] == only_b


def test_a_role_annotated_autoupdate_false_is_protected() -> None:
    stored = role(rules("b"), None, {"rbac.authorization.kubernetes.io/autoupdate": "false"})
    result = reconcile_role(stored, role(rules("a")))
    assert result.protected and result.operation == "update"  # what would change; the caller leaves it


def test_a_binding_to_another_role_is_recreated_as_expected() -> None:
    expected = binding("role", subjects("a"))
    result = reconcile_binding(binding("other", subjects("a", "b")), expected)
    assert result.operation == "recreate" and result.obj == expected


def test_missing_rules_are_added_broken_down() -> None:
    """``Covers`` breaks the uncovered rules down: a union reconcile appends one rule per verb."""
    expected = role([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}])
    result = reconcile_role(role(rules("pods")), expected)
    assert result.obj["rules"] == [
        *rules("pods"),
        {"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]},
    ]


_rule = st.fixed_dictionaries(
    {
        "verbs": st.lists(st.sampled_from(["get", "list", "create", "*"]), min_size=1, max_size=2),
        "apiGroups": st.lists(st.sampled_from(["", "batch", "*"]), min_size=1, max_size=2),
        "resources": st.lists(st.sampled_from(["pods", "jobs", "pods/log", "*"]), min_size=1, max_size=2),
    }
)


@given(st.lists(_rule, max_size=4), st.lists(_rule, max_size=4))
def test_a_union_reconcile_covers_both_and_is_then_settled(have: list[Obj], want: list[Obj]) -> None:
    """Invariant: after a union reconcile the role covers both what it had and what was expected, and
    reconciling it again changes nothing."""
    result = reconcile_role(role(have), role(want))
    got = result.obj.get("rules") or []
    assert not covers(got, have) and not covers(got, want)
    assert reconcile_role(result.obj, role(want)).operation == "none"
