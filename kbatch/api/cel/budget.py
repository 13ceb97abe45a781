"""CEL cost limits: a per-call limit for one evaluation and a budget shared by a policy's expressions.

Upstream (``k8s.io/apiserver/pkg/apis/cel/config.go``): ``PerCallLimit`` = 1,000,000 for one
expression (cel-go's ``CostLimit``: the evaluation stops with "operation cancelled: actual cost limit
exceeded"); ``RuntimeCELCostBudget`` = 10,000,000 for all expressions of one ValidatingAdmissionPolicy
binding (or MutatingAdmissionPolicy) on one request, and ``RuntimeCELCostBudgetMatchConditions`` =
2,500,000 for its match conditions (``admission/plugin/cel/activation.go``: an expression whose cost
exceeds what is left fails the policy with "validation failed due to running out of cost budget, no
further validation rules will be run").

cel-go counts a cost for each node it evaluates. The runtime kbatch uses has no cost tracker, so kbatch
counts what makes evaluation expensive: an expression costs its node count, and every comprehension
iteration costs the node count of the loop body (:mod:`.iteration` rewrites each comprehension to
report ``size(range) * body`` here before it iterates). String functions whose cel-go cost grows with
the string's length cost 1 here. docs/admission-policy.md ("CEL cost") has the differences.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = [
    "MATCH_CONDITIONS_BUDGET",
    "OUT_OF_BUDGET",
    "PER_CALL_LIMIT",
    "PER_CALL_LIMIT_EXCEEDED",
    "RUNTIME_BUDGET",
    "Budget",
    "Meter",
    "metered",
    "spend",
]

PER_CALL_LIMIT = 1_000_000
RUNTIME_BUDGET = 10_000_000
MATCH_CONDITIONS_BUDGET = 2_500_000
PER_CALL_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class Budget:
    """What is left of one policy evaluation's budget (upstream's ``remainingBudget``)."""

    __slots__ = ("remaining",)

    def __init__(self, total: int = RUNTIME_BUDGET) -> None:
        self.remaining = total


@dataclass(slots=True)
class Meter:
    """The cost of one evaluation so far; ``limit``: where it stops."""

    limit: int
    spent: int = 0

    @property
    def exceeded(self) -> bool:
        return self.spent > self.limit


_current = threading.local()


def metered(meter: Meter | None) -> None:
    """Make ``meter`` the one :func:`spend` charges (None: no evaluation is running)."""
    _current.meter = meter


def spend(iterations: int, per_iteration: int) -> bool:
    """Charge a comprehension's iterations to the running evaluation (true: go on); ``ValueError``
    with upstream's text once the per-call limit is passed (the runtime turns it into a CEL error,
    and the evaluation reports the limit whatever the expression made of that error)."""
    meter: Meter | None = getattr(_current, "meter", None)
    if meter is None:
        return True
    meter.spent += iterations * per_iteration
    if meter.exceeded:
        # cel-go stops within a few iterations of the limit (CheckFrequency), not after the whole loop
        meter.spent = min(meter.spent, meter.limit + 1)
        raise ValueError(PER_CALL_LIMIT_EXCEEDED)
    return True
