"""successPolicy matching (success_policy.go ``matchSuccessPolicy``, ``matchSucceededIndexesRule``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_indexes import format_indexes
from kbatch.controllers.job import SuccessPolicyRule
from kbatch.controllers.job.success_policy import match_success_policy

from .builders import make_job
from .world import World


def test_succeeded_count_zero_waits_for_a_first_success():
    # matchSuccessPolicy returns no match while no index has succeeded, whatever the rules say.
    rules = (SuccessPolicyRule(succeeded_count=0),)
    assert match_success_policy(rules, 3, set()) is None
    assert match_success_policy(rules, 3, {2}) == "Matched rules at index 0"


def test_count_zero_job_does_not_finish_at_creation():
    w = World(make_job(parallelism=2, completions=2, indexed=True,
                       success_policy=(SuccessPolicyRule(succeeded_count=0),)))
    w.sync()
    assert w.cond("SuccessCriteriaMet") is None and w.job.status.active == 2


def test_rule_whose_indexes_all_fell_out_of_range_is_skipped():
    # After an elastic scale-down to 2 completions, "2-3" lists nothing below completions: skipped.
    rules = (SuccessPolicyRule(succeeded_indexes="2-3"), SuccessPolicyRule(succeeded_count=1))
    assert match_success_policy(rules, 2, {0}) == "Matched rules at index 1"


def test_all_remaining_listed_indexes_match_even_below_succeeded_count():
    # "1-3" with succeededCount 3, scaled down to 3 completions: only 1,2 remain; both done matches
    # (contains == ruleIndexes.total()).
    rules = (SuccessPolicyRule(succeeded_indexes="1-3", succeeded_count=3),)
    assert match_success_policy(rules, 3, {1, 2}) == "Matched rules at index 0"
    assert match_success_policy(rules, 3, {1}) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.data())
def test_match_is_upstreams_rule(completions, data):
    """Property: a rule matches exactly when some index succeeded and either its listed indexes
    (below completions, non-empty) all succeeded or at least succeededCount of them did, or, without
    indexes, at least succeededCount indexes succeeded."""
    universe = list(range(completions + 3))
    listed = data.draw(st.one_of(st.none(), st.sets(st.sampled_from(universe), min_size=1)))
    count = data.draw(st.one_of(st.none(), st.integers(0, completions)))
    if listed is None and count is None:
        count = 0
    succeeded = data.draw(st.sets(st.integers(0, completions - 1)))
    rule = SuccessPolicyRule(succeeded_indexes=format_indexes(sorted(listed)) if listed else None,
                             succeeded_count=count)
    got = match_success_policy((rule,), completions, succeeded) is not None
    if not succeeded:
        want = False
    elif listed is None:
        want = len(succeeded) >= count
    else:
        in_range = {i for i in listed if i < completions}
        hits = len(in_range & succeeded)
        want = bool(in_range) and (hits == len(in_range) or (count is not None and hits >= count))
    assert got == want
