"""RBAC's escalation check compares rules as k8s.io/component-helpers
``auth/rbac/validation/policy_comparator.go`` ``Covers`` does (Kubernetes 1.37): each row is a test of
its ``policy_comparator_test.go`` (named after it), through :func:`kbatch.authz.escalation.covers`.
``expectedCovered`` is an empty list of uncovered rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.authz.escalation import FULL_AUTHORITY, covers


def r(verbs: list[str], groups: list[str] | None = None, resources: list[str] | None = None,
      names: list[str] | None = None, urls: list[str] | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs}
    for key, value in (("apiGroups", groups), ("resources", resources), ("resourceNames", names),
                       ("nonResourceURLs", urls)):
        if value:
            rule[key] = value
    return rule


ROWS: list[tuple[str, list[Any], list[Any], list[Any]]] = [
    ("TestCoversExactMatch", [r(["get"], ["v1"], ["builds"])], [r(["get"], ["v1"], ["builds"])], []),
    ("TestCoversSubresourceWildcard", [r(["get"], ["v1"], ["*/scale"])], [r(["get"], ["v1"], ["foo/scale"])],
     []),
    ("TestCoversMultipleRulesCoveringSingleRule",
     [r(["delete"], ["v1"], ["deployments"]), r(["delete"], ["v1"], ["builds"]),
      r(["update"], ["v1"], ["builds", "deployments"])],
     [r(["delete", "update"], ["v1"], ["builds", "deployments"])], []),
    ("TestCoversMultipleAPIGroupsCoveringSingleRule",
     [r(["delete"], [g], ["deployments"]) for g in ("group1", "group2")]
     + [r(["delete"], [g], ["builds"]) for g in ("group1", "group2")]
     + [r(["update"], [g], ["builds", "deployments"]) for g in ("group1", "group2")],
     [r(["delete", "update"], ["group1", "group2"], ["builds", "deployments"])], []),
    ("TestCoversSingleAPIGroupsCoveringMultiple",
     [r(["delete", "update"], ["group1", "group2"], ["builds", "deployments"])],
     [r(["delete"], ["group1"], ["deployments"]), r(["update"], ["group2"], ["builds", "deployments"])], []),
    ("TestCoversMultipleRulesMissingSingleVerbResourceCombination",
     [r(["delete", "update"], ["v1"], ["builds", "deployments"]), r(["delete"], ["v1"], ["pods"])],
     [r(["delete", "update"], ["v1"], ["builds", "deployments", "pods"])],
     [r(["update"], ["v1"], ["pods"])]),
    ("TestCoversAPIGroupStarCoveringMultiple", [r(["get"], ["*"], ["roles"])],
     [r(["get"], ["group1", "group2"], ["roles"])], []),
    ("TestCoversEnumerationNotCoveringAPIGroupStar", [r(["get"], ["dummy-group"], ["roles"])],
     [r(["get"], ["*"], ["roles"])], [r(["get"], ["*"], ["roles"])]),
    ("TestCoversAPIGroupStarCoveringStar", [r(["get"], ["*"], ["roles"])],
     [r(["get"], ["*"], ["roles"])], []),
    ("TestCoversVerbStarCoveringMultiple", [r(["*"], ["v1"], ["roles"])],
     [r(["watch", "list"], ["v1"], ["roles"])], []),
    ("TestCoversEnumerationNotCoveringVerbStar",
     [r(["get", "list", "watch", "create", "update", "delete", "exec"], ["v1"], ["roles"])],
     [r(["*"], ["v1"], ["roles"])], [r(["*"], ["v1"], ["roles"])]),
    ("TestCoversVerbStarCoveringStar", [r(["*"], ["v1"], ["roles"])], [r(["*"], ["v1"], ["roles"])], []),
    ("TestCoversResourceStarCoveringMultiple", [r(["get"], ["v1"], ["*"])],
     [r(["get"], ["v1"], ["resourcegroup:deployments"])], []),
    ("TestCoversEnumerationNotCoveringResourceStar",
     [r(["get"], ["v1"], ["roles", "resourcegroup:deployments"])],
     [r(["get"], ["v1"], ["*"])], [r(["get"], ["v1"], ["*"])]),
    ("TestCoversResourceStarCoveringStar", [r(["get"], ["v1"], ["*"])], [r(["get"], ["v1"], ["*"])], []),
    ("TestCoversResourceNameEmptyCoveringMultiple", [r(["get"], ["v1"], ["pods"])],
     [r(["get"], ["v1"], ["pods"], ["foo", "bar"])], []),
    ("TestCoversEnumerationNotCoveringResourceNameEmpty", [r(["get"], ["v1"], ["pods"], ["foo", "bar"])],
     [r(["get"], ["v1"], ["pods"])], [r(["get"], ["v1"], ["pods"])]),
    ("TestCoversNonResourceURLs", [r(["*"], urls=["/apis"])], [r(["*"], urls=["/apis"])], []),
    ("TestCoversNonResourceURLsStar", [r(["*"], urls=["*"])],
     [r(["*"], urls=["/apis", "/apis/v1", "/"])], []),
    ("TestCoversNonResourceURLsStarAfterPrefixDoesntCover", [r(["*"], urls=["/apis/*"])],
     [r(["get"], urls=["/apis", "/apis/v1"])], [r(["get"], urls=["/apis"])]),
    ("TestCoversNonResourceURLsStarAfterPrefix", [r(["*"], urls=["/apis/*"])],
     [r(["get"], urls=["/apis/v1/foo", "/apis/v1"])], []),
    ("TestCoversNonResourceURLsWithOtherFields", [r(["get"], ["v1"], ["builds"], urls=["/apis"])],
     [r(["get"], ["v1"], ["builds"], urls=["/apis"])], []),
    ("TestCoversNonResourceURLsWithOtherFieldsFailure", [r(["get"], ["v1"], ["builds"])],
     [r(["get"], ["v1"], ["builds"], urls=["/apis"])], [r(["get"], urls=["/apis"])]),
]


@pytest.mark.parametrize(("owner", "servant", "uncovered"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_covers(owner: list[Any], servant: list[Any], uncovered: list[Any]) -> None:
    assert covers(owner, servant) == uncovered


URL_ROWS = [("*", "", True), ("*", "/", True), ("*", "/api", True), ("/*", "", False), ("/*", "/", True),
            ("/*", "/foo", True), ("/api", "/api", True), ("/apis", "/api", False),
            ("/api/v1", "/api", False),
            ("/api/v1", "/api/v1", True), ("/api/*", "/api/v1", True), ("/api/*", "/api", False),
            ("/api/*/*", "/api/v1", False), ("/*/v1/*", "/api/v1", False)]


@pytest.mark.parametrize(("owner", "requested", "want"), URL_ROWS)
def test_non_resource_url_covers(owner: str, requested: str, want: bool) -> None:
    """``TestNonResourceURLCovers``, through a rule of one URL and one verb."""
    assert (covers([r(["get"], urls=[owner])], [r(["get"], urls=[requested])]) == []) is want


_words = st.sampled_from(["get", "list", "*", "pods", "jobs", "batch", "", "a", "pods/log", "*/scale"])
_resource_rule = st.fixed_dictionaries(
    {"verbs": st.lists(_words, min_size=1, max_size=3), "apiGroups": st.lists(_words, min_size=1, max_size=2),
     "resources": st.lists(_words, min_size=1, max_size=2)},
    optional={"resourceNames": st.lists(_words, min_size=1, max_size=2)})
_url_rule = st.fixed_dictionaries({"verbs": st.lists(_words, min_size=1, max_size=3),
                                   "nonResourceURLs": st.lists(st.sampled_from(["/a", "/a/*", "*", "/b"]),
                                                               min_size=1, max_size=2)})
# valid rules only: a rule is a resource rule or a non-resource rule (validation.go ValidatePolicyRule)
_rules = st.lists(st.one_of(_resource_rule, _url_rule), max_size=4)


@given(_rules)
def test_rules_cover_themselves_and_full_authority_covers_all(rules: list[Any]) -> None:
    """Invariants ``Covers`` implies: a user holding rules may grant those very rules, and ``*`` on
    everything (clusterrole/policybased ``fullAuthority``) covers any rule."""
    assert covers(rules, rules) == []
    assert covers(list(FULL_AUTHORITY), rules) == []
