"""CEL cost limits of admission policies (k8s.io/apiserver ``pkg/apis/cel/config.go``): one evaluation
stops at ``PerCallLimit``; a policy's variables, validations and messageExpressions share
``RuntimeCELCostBudget``; its match conditions share ``RuntimeCELCostBudgetMatchConditions``.

Cases from ``pkg/admission/plugin/cel/condition_test.go`` (``TestRuntimeCELCostBudget``, "test
perCallLimit exceed") and ``pkg/admission/plugin/policy/validating/validator_test.go`` ("messageExpression
out of budget after successful eval of expression"), with kbatch's costs (kbatch.api.cel.budget).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.cel.admission import Budget, EvaluationError, OutOfBudget, compile_expression
from kbatch.api.cel.budget import OUT_OF_BUDGET, PER_CALL_LIMIT, PER_CALL_LIMIT_EXCEEDED
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import StatusError

NS = "default"
# ~963,000 each: 950 iterations of a 1,000-element list (cel-go: a list costs 10 plus its elements)
HEAVY = "lists.range(950).all(i, [" + ", ".join(["i"] * 1000) + "].size() > 0)"
TOO_HEAVY = HEAVY.replace("range(950)", "range(990)")  # ~1,003,000: past the per-call limit

ENDPOINTS = {"object": {"subsets": [{"addresses": [{"ip": "127.0.0.0"}]}]}, "oldObject": None,
             "params": {"data": {"fakeString": "fake"}}}


def _run(expressions: list[str], budget: int) -> int:
    """Evaluate ``expressions`` in order with one budget; what is left of it."""
    shared = Budget(budget)
    for expression in expressions:
        compile_expression(expression, True).evaluate(ENDPOINTS, shared)
    return shared.remaining


@pytest.mark.parametrize(("expressions", "budget", "remaining"), [
    # "expression exceed RuntimeCELCostBudget at fist expression"
    (["has(object.subsets) && object.subsets.size() < 2", "has(object.subsets)"], 1, None),
    # "expression exceed RuntimeCELCostBudget at last expression"
    (["has(object.subsets) && object.subsets.size() < 2", "object.subsets.size() > 2"], 5, None),
    # "test RuntimeCELCostBudge is not exceed": 10 - 6
    (["oldObject != null", "object.subsets.size() > 2"], 10, 4),
    # "test RuntimeCELCostBudge exactly covers"
    (["oldObject != null", "object.subsets.size() > 2"], 6, 0),
    # "test RuntimeCELCostBudge exactly covers then constant": a constant costs nothing
    (["oldObject != null", "object.subsets.size() > 2", "true"], 6, 0),
])
def test_upstream_runtime_cost_budget(expressions: list[str], budget: int, remaining: int | None) -> None:
    if remaining is None:
        with pytest.raises(OutOfBudget, match=OUT_OF_BUDGET):
            _run(expressions, budget)
    else:
        assert _run(expressions, budget) == remaining


def test_an_evaluation_stops_at_the_per_call_limit() -> None:
    assert compile_expression(HEAVY, False).evaluate({}) is True
    with pytest.raises(EvaluationError) as caught:
        compile_expression(TOO_HEAVY, False).evaluate({})
    assert str(caught.value) == f"expression '{TOO_HEAVY}' resulted in error: {PER_CALL_LIMIT_EXCEEDED}"


def test_the_per_call_limit_holds_when_the_expression_would_swallow_the_error() -> None:
    """cel-go cancels the evaluation; ``|| true`` cannot turn that into true."""
    with pytest.raises(EvaluationError, match=PER_CALL_LIMIT_EXCEEDED):
        compile_expression(f"{TOO_HEAVY} || true", False).evaluate({})


def test_a_short_circuit_does_not_pay_for_what_it_skips() -> None:
    budget = Budget()
    assert compile_expression(f"true || {TOO_HEAVY}", False).evaluate({}, budget) is True
    assert budget.remaining > 10_000_000 - 100_000  # the skipped loop's iterations are not charged


@settings(max_examples=30, deadline=None)
@given(sizes=st.lists(st.integers(0, 40), min_size=1, max_size=3), total=st.integers(0, 3000))
def test_the_budget_pays_exactly_what_each_evaluation_costs(sizes: list[int], total: int) -> None:
    """Invariant: a budget either pays an evaluation in full or refuses it, never goes negative
    while paying, and nested loops cost the product of their sizes."""
    budget = Budget(total)
    spent = 0
    for n in sizes:
        expression = compile_expression(f"lists.range({n}).all(i, lists.range({n}).all(j, i + j >= 0))",
                                        False)
        probe = Budget(PER_CALL_LIMIT)
        expression.evaluate({}, probe)
        cost = PER_CALL_LIMIT - probe.remaining
        assert cost >= n * n  # every inner iteration costs at least 1
        if cost > budget.remaining:
            with pytest.raises(OutOfBudget):
                expression.evaluate({}, budget)
            return
        expression.evaluate({}, budget)
        spent += cost
        assert budget.remaining == total - spent >= 0


def _policy(name: str, spec: dict[str, Any], failure: str = "Fail") -> list[dict[str, Any]]:
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
              "resources": ["configmaps"]}]
    return [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": name},
         "spec": {"matchConstraints": {"resourceRules": rules}, "failurePolicy": failure, **spec}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}},
    ]


def _denial(spec: dict[str, Any], failure: str = "Fail") -> str | None:
    """The message creating a ConfigMap is denied with under a policy of ``spec`` (None: admitted)."""
    cp = ControlPlane()
    for obj in _policy("costly", spec, failure):
        cp.apply(obj)
    try:
        cp.server.create(ConfigMap.model_validate({"metadata": {"name": "c", "namespace": NS}}))
    except StatusError as err:
        return err.message
    return None


PREFIX = ("configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'costly' with binding 'costly' "
          "denied request: ")


def test_validations_that_together_pass_the_budget_fail_the_policy() -> None:
    """Ten ~963k validations fit in 10M; the eleventh does not (each is under the per-call limit)."""
    ten = {"validations": [{"expression": HEAVY}] * 10}
    assert _denial(ten) is None
    eleven = {"validations": [{"expression": HEAVY}] * 10 + [{"expression": HEAVY, "message": "no"}]}
    assert _denial(eleven) == PREFIX + OUT_OF_BUDGET
    assert _denial(eleven, failure="Ignore") is None


def test_variables_are_paid_from_the_same_budget() -> None:
    spec = {"variables": [{"name": f"v{i}", "expression": HEAVY} for i in range(6)],
            "validations": [{"expression": HEAVY}] * 5}
    assert _denial(spec) == PREFIX + OUT_OF_BUDGET


def test_message_expressions_get_what_the_validations_left() -> None:
    """validator_test.go "messageExpression out of budget after successful eval of expression"."""
    spec = {"validations": [{"expression": HEAVY}] * 9
            + [{"expression": "false", "messageExpression": f"string({HEAVY})"},
               {"expression": "false", "messageExpression": f"string({HEAVY})"}]}
    assert _denial(spec) == PREFIX + f"failed messageExpression: {OUT_OF_BUDGET}"


def test_match_conditions_have_their_own_smaller_budget() -> None:
    conditions = [{"name": f"c{i}", "expression": HEAVY} for i in range(3)]  # 2.9M > 2.5M
    spec = {"matchConditions": conditions, "validations": [{"expression": "false"}]}
    assert _denial(spec) == PREFIX + OUT_OF_BUDGET
    assert _denial({**spec, "matchConditions": conditions[:2]}) == PREFIX + "failed expression: false"


def test_a_validation_past_the_per_call_limit_is_an_evaluation_error() -> None:
    assert _denial({"validations": [{"expression": TOO_HEAVY}]}) == (
        PREFIX + f"expression '{TOO_HEAVY}' resulted in error: {PER_CALL_LIMIT_EXCEEDED}")


def test_a_dra_selector_stops_at_its_runtime_cost_limit() -> None:
    """dynamic-resource-allocation cel/compile.go: ``cel.CostLimit(CELSelectorExpressionMaxCost)``."""
    from kbatch.api.cel import DeviceInput, SelectorRuntimeError, compile_selector

    device = DeviceInput("gpu.example.com", {}, {})
    assert compile_selector(HEAVY).matches(device) is True
    with pytest.raises(SelectorRuntimeError, match=f"^{PER_CALL_LIMIT_EXCEEDED}$"):
        compile_selector(TOO_HEAVY).matches(device)
