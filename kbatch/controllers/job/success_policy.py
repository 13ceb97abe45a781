"""``spec.successPolicy`` for Indexed Jobs (KEP-3998; upstream pkg/controller/job/success_policy.go).

Rules are tried in order; the first satisfied one makes the Job meet its success criteria:

* only ``succeededIndexes``: every listed index has succeeded;
* only ``succeededCount``: at least that many indexes have succeeded;
* both: at least ``succeededCount`` of the listed indexes have succeeded (or all of them, when
  fewer remain below ``completions`` after an elastic scale-down).

No rule matches while no index has succeeded, and a rule whose ``succeededIndexes`` lists nothing
below ``completions`` is skipped (``matchSuccessPolicy``).

The Job then gets ``SuccessCriteriaMet`` with reason ``SuccessPolicy`` and message
``Matched rules at index <k>``.
"""

from __future__ import annotations

from collections.abc import Set

from kbatch.api.batch_indexes import iter_indexes, parse_indexes_lenient
from kbatch.controllers.job.views import SuccessPolicyRule

__all__ = ["match_success_policy"]


def match_success_policy(rules: tuple[SuccessPolicyRule, ...] | None, completions: int,
                         succeeded: Set[int]) -> str | None:
    """The SuccessCriteriaMet message of the first matching rule, or None."""
    if not rules or not succeeded:  # nothing succeeded yet: no rule matches (not even a count of 0)
        return None
    for k, rule in enumerate(rules):
        if rule.succeeded_indexes is None:
            if rule.succeeded_count is not None and rule.succeeded_count <= len(succeeded):
                return f"Matched rules at index {k}"
            continue
        wanted = list(iter_indexes(parse_indexes_lenient(rule.succeeded_indexes, completions)))
        if not wanted:  # nothing of it below completions (e.g. after an elastic scale-down): skipped
            continue
        hits = sum(1 for ix in wanted if ix in succeeded)
        # matchSucceededIndexesRule: every listed index, or at least succeededCount of them
        if hits == len(wanted) or (rule.succeeded_count is not None and hits >= rule.succeeded_count):
            return f"Matched rules at index {k}"
    return None
