"""``spec.successPolicy`` for Indexed Jobs (KEP-3998; upstream pkg/controller/job/success_policy.go).

Rules are tried in order; the first satisfied one makes the Job meet its success criteria:

* only ``succeededIndexes``: every listed index has succeeded;
* only ``succeededCount``: at least that many indexes have succeeded;
* both: at least ``succeededCount`` of the listed indexes have succeeded.

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
    if not rules:
        return None
    for k, rule in enumerate(rules):
        if rule.succeeded_indexes is None:
            if rule.succeeded_count is not None and rule.succeeded_count <= len(succeeded):
                return f"Matched rules at index {k}"
            continue
        wanted = list(iter_indexes(parse_indexes_lenient(rule.succeeded_indexes, completions)))
        hits = sum(1 for ix in wanted if ix in succeeded)
        need = len(wanted) if rule.succeeded_count is None else rule.succeeded_count
        if hits >= need:
            return f"Matched rules at index {k}"
    return None
