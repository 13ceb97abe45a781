"""``TestMatchSuccessPolicy``'s cases against kbatch's ``match_success_policy``.

Source: kubernetes/kubernetes ``pkg/controller/job/success_policy_test.go`` ``TestMatchSuccessPolicy``
(stored commit 46f9e4b4) and ``success_policy.go`` ``matchSuccessPolicy``. The upstream test is of
the pure helper, which kbatch has too; upstream's ``orderedIntervals`` of succeeded indexes become
the set of indexes they cover. "JobSuccessPolicy is disabled" has no GA form and is not translated.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.job.success_policy import match_success_policy
from kbatch.controllers.job.views import SuccessPolicyRule


def ivs(*pairs: tuple[int, int]) -> set[int]:
    return {i for first, last in pairs for i in range(first, last + 1)}


def rule(indexes: str | None = None, count: int | None = None) -> SuccessPolicyRule:
    return SuccessPolicyRule(succeeded_indexes=indexes, succeeded_count=count)


MET = "Matched rules at index 0"
# name: (rules or None, succeeded indexes, expected message or None); completions is 10 throughout
CASES: dict[str, tuple[Any, ...]] = {
    "successPolicy is null": (None, ivs((0, 0)), None),
    "any rules are nothing": ((), ivs((0, 0)), None),
    "rules.succeededIndexes is invalid format": ((rule("invalid-form"),), ivs((0, 0)), None),
    "rules.succeededIndexes is specified; succeededIndexes matched rules": (
        (rule("0-2"),), ivs((0, 2), (4, 7)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules": (
        (rule("3"),), ivs((0, 2)), None),
    "rules.succeededCount is specified; succeededIndexes matched rules": (
        (rule(count=2),), ivs((0, 2)), MET),
    "rules.succeededCount is specified; succeededIndexes didn't match rules": (
        (rule(count=4),), ivs((0, 2)), None),
    "multiple rules; rules.succeededIndexes is specified; succeededIndexes met one of rules": (
        (rule("9"), rule("4,6")), ivs((0, 2), (4, 7)), "Matched rules at index 1"),
    "multiple rules; rules.succeededIndexes is specified; succeededIndexes met all rules": (
        (rule("0,1"), rule("5")), ivs((0, 2), (4, 7)), MET),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes met all rules": (
        (rule("3-6", 2),), ivs((0, 2), (4, 7)), MET),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes didn't match rules": (
        (rule("3-6", 2),), ivs((0, 2), (6, 7)), None),
    "rules.succeededIndexes is specified; succeededIndexes are nothing": ((rule(count=4),), set(), None),
    "rules.succeededIndexes is specified; succeededIndexes matched rules; rules is proper subset of "
    "succeededIndexes": ((rule("2-4,6-8"),), ivs((1, 5), (6, 9)), MET),
    "rules.succeededIndexes is specified; succeededIndexes matched rules; rules equals succeededIndexes": (
        (rule("2-4,6-9"),), ivs((2, 4), (6, 9)), MET),
    "rules.succeededIndexes is specified; succeededIndexes matched rules; rules is subset of "
    "succeededIndexes": ((rule("2-4,8-12"),), ivs((2, 5), (7, 15)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules is an empty set": (
        (rule(""),), ivs((1, 3)), None),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; succeededIndexes is an "
    "empty set": ((rule(""),), set(), None),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules and succeededIndexes "
    "are empty set": ((rule(""),), set(), None),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; all elements of "
    "rules.succeededIndexes aren't included in succeededIndexes": (
        (rule("10-12,14-16"),), ivs((1, 3), (5, 7)), None),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps "
    "succeededIndexes at first": ((rule("1-3,5-7"),), ivs((2, 4), (6, 8)), None),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules "
    "overlaps succeededIndexes at first": ((rule("1-3,5-7", 4),), ivs((2, 4), (6, 8)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps "
    "succeededIndexes at last": ((rule("2-4,6-9"),), ivs((1, 3), (5, 7)), None),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules "
    "overlaps succeededIndexes at last": ((rule("2-4,6-9", 4),), ivs((1, 3), (5, 7)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules completely overlaps "
    "succeededIndexes": ((rule("0-4,6-9"),), ivs((1, 3), (7, 8)), None),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules "
    "completely overlaps succeededIndexes": ((rule("0-4,6-9", 5),), ivs((1, 3), (7, 8)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps multiple "
    "succeededIndexes at last": ((rule("0-6,8-9"),), ivs((1, 3), (5, 9)), None),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules "
    "overlaps multiple succeededIndexes at last": ((rule("0-6,8-9", 7),), ivs((1, 3), (5, 9)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; rules overlaps "
    "succeededIndexes at first, and rules equals succeededIndexes at last": (
        (rule("0-5,7-9"),), ivs((1, 5), (7, 10)), None),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; rules "
    "overlaps succeededIndexes at first, and rules equals succeededIndexes at last": (
        (rule("0-5,7-9", 8),), ivs((1, 5), (7, 10)), MET),
    "rules.succeededIndexes is specified; succeededIndexes didn't match rules; the first rules overlaps "
    "succeededIndexes at first": ((rule("0-3,6-9"),), ivs((1, 10)), None),
    "rules.succeededIndexes and rules.succeededCount are specified; succeededIndexes matched rules; the "
    "first rules overlaps succeededIndexes at first": ((rule("0-3,6-9", 7),), ivs((1, 10)), MET),
}


@pytest.mark.parametrize("name", list(CASES))
def test_match_success_policy(name: str) -> None:
    rules, succeeded, want = CASES[name]
    assert match_success_policy(rules, 10, succeeded) == want
