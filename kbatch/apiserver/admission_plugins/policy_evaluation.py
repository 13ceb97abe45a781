"""Evaluating one ValidatingAdmissionPolicy on one request: its decisions.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go`` (``Validate``).
With the request's variables (``object``, ``oldObject``, ``request``, ``namespaceObject``,
``params``): match conditions first (``webhook/matchconditions/matcher.go``: one false → no decision;
otherwise an error → the failure policy); then each validation gives ``Admit``, or ``Deny`` with its message
(``messageExpression`` when it yields a non-blank one-line string, else ``message``, else
``failed expression: <expression>``) and reason (``Invalid`` unless ``reason`` is set); an
evaluation error is a ``Deny`` under ``failurePolicy: Fail`` and an ``Admit`` under ``Ignore``.
``variables`` are composed in order (upstream evaluates them lazily; kbatch evaluates each once, in
order, and a variable that fails makes the expressions that read it fail with its error). Cost
(``admission/plugin/cel/activation.go``, :mod:`kbatch.api.cel.budget`): variables, validations and then
messageExpressions share one ``RuntimeCELCostBudget``, match conditions have their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.admissionregistration_v1 import MutatingAdmissionPolicy, ValidatingAdmissionPolicy
from kbatch.api.cel.budget import MATCH_CONDITIONS_BUDGET, Budget

__all__ = ["Decision", "compose_variables", "evaluate", "evaluate_policy", "match_conditions"]

AnyPolicy = ValidatingAdmissionPolicy | MutatingAdmissionPolicy

_MAX_MESSAGE_BYTES = 5 * 1024  # celconfig.MaxEvaluatedMessageExpressionSizeBytes


@dataclass(frozen=True, slots=True)
class Decision:
    """``PolicyDecision``: ``deny`` with ``message`` and ``reason``, else admit."""

    deny: bool
    message: str = ""
    reason: str = "Invalid"


class _VariableError(Exception):
    pass


def _compiled(expression: str, has_params: bool, returns: str = "bool", mutating: bool = False) -> Any:
    from kbatch.api.cel.admission import compile_expression

    return compile_expression(expression, has_params, returns, mutating)


def compose_variables(policy: AnyPolicy, data: dict[str, Any],
                      budget: Budget | None = None) -> dict[str, str]:
    """Set ``data["variables"]`` to each variable's value; answer the errors of those that failed.
    ``budget`` pays for them (upstream charges a variable to the expression that first reads it);
    :class:`OutOfBudget` when it runs out."""
    from kbatch.api.cel.admission import CompileError, EvaluationError, OutOfBudget

    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    has_params = policy.spec.param_kind is not None
    mutating = isinstance(policy, MutatingAdmissionPolicy)
    for var in policy.spec.variables or ():
        try:
            values[var.name] = _compiled(var.expression, has_params, "any", mutating).evaluate(
                {**data, "variables": values}, budget
            )
        except OutOfBudget:
            raise
        except (CompileError, EvaluationError) as err:
            errors[var.name] = str(err)
    data["variables"] = values
    return errors


def _failure(policy: AnyPolicy, message: str) -> Decision | None:
    """``policyDecisionActionForError``: Fail denies, Ignore admits."""
    return None if policy.spec.failure_policy == "Ignore" else Decision(True, message)


def _message_value(validation: Any, data: Mapping[str, Any], has_params: bool, budget: Budget) -> Any:
    """messageExpression's value (None without one, or when it fails: upstream only logs that);
    :class:`OutOfBudget` when the budget runs out."""
    from kbatch.api.cel.admission import CompileError, EvaluationError, OutOfBudget

    if not validation.message_expression:
        return None
    try:
        return _compiled(validation.message_expression, has_params, "string").evaluate(data, budget)
    except OutOfBudget:
        raise
    except (CompileError, EvaluationError):
        return None


def _message(validation: Any, value: Any) -> str:
    """The denial message: messageExpression's ``value``, else message, else the expression."""
    if isinstance(value, str):
        text = value.strip()
        if text and len(text) <= _MAX_MESSAGE_BYTES and "\n" not in text:
            return text
    if validation.message and validation.message.strip():
        return str(validation.message.strip())
    return f"failed expression: {validation.expression.strip()}"


def _reads_failed_variable(expression: str, failed: Mapping[str, str]) -> str | None:
    for name in sorted(failed):
        if f"variables.{name}" in expression:
            return failed[name]
    return None


def evaluate(expression: str, data: Mapping[str, Any], has_params: bool, failed: Mapping[str, str],
             returns: str = "bool", mutating: bool = False, budget: Budget | None = None) -> Any:
    """``expression``'s value on ``data`` (plain data for a mutation), paid from ``budget``;
    ``EvaluationError`` when it reads a variable in ``failed`` or fails itself (``OutOfBudget`` when
    the budget runs out)."""
    from kbatch.api.cel.admission import EvaluationError

    error = _reads_failed_variable(expression, failed)
    if error is not None:
        raise EvaluationError(f"expression '{expression}' resulted in error: {error}")
    compiled = _compiled(expression, has_params, returns, mutating)
    if mutating and returns != "bool":
        return compiled.evaluate_plain(data, budget)
    return compiled.evaluate(data, budget)


def match_conditions(policy: AnyPolicy, data: Mapping[str, Any], failed: Mapping[str, str]) -> bool | str:
    """``webhook/matchconditions/matcher.go``: False when one condition is false (whatever errors
    others had), the error text when some failed and none is false, else True. The conditions share
    ``RuntimeCELCostBudgetMatchConditions``; running out of it is an error."""
    from kbatch.api.cel.admission import CompileError, EvaluationError, OutOfBudget

    has_params = policy.spec.param_kind is not None
    mutating = isinstance(policy, MutatingAdmissionPolicy)
    budget = Budget(MATCH_CONDITIONS_BUDGET)
    errors: list[str] = []
    for condition in policy.spec.match_conditions or ():
        try:
            if evaluate(condition.expression, data, has_params, failed, mutating=mutating,
                        budget=budget) is False:
                return False
        except OutOfBudget as err:
            return str(err)
        except (CompileError, EvaluationError) as err:
            errors.append(str(err))
    if errors:
        return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return True


def _validate(policy: ValidatingAdmissionPolicy, data: Mapping[str, Any], failed: Mapping[str, str],
              budget: Budget) -> list[bool | str]:
    """Each validation's result (a bool, or its error's text), paid from ``budget``."""
    from kbatch.api.cel.admission import CompileError, EvaluationError, OutOfBudget

    results: list[bool | str] = []
    for validation in policy.spec.validations or ():
        try:
            results.append(evaluate(validation.expression, data, policy.spec.param_kind is not None,
                                    failed, budget=budget) is True)
        except OutOfBudget:
            raise
        except (CompileError, EvaluationError) as err:
            results.append(str(err))
    return results


def evaluate_policy(policy: ValidatingAdmissionPolicy, data: dict[str, Any]) -> list[Decision]:
    """The decisions of ``policy``'s validations on ``data`` (the request's variables, params
    included); an empty list when a match condition is false. ``validator.go``: variables and
    validations share ``RuntimeCELCostBudget``, the messageExpressions get what they left; running out
    fails the policy (its failure policy decides)."""
    from kbatch.api.cel.admission import OutOfBudget

    has_params = policy.spec.param_kind is not None
    budget = Budget()
    try:
        failed = compose_variables(policy, data, budget)
    except OutOfBudget as err:
        return _failed_policy(policy, str(err))
    matched = match_conditions(policy, data, failed)
    if matched is False:
        return []
    if isinstance(matched, str):  # errors and no false condition: the failure policy
        return _failed_policy(policy, matched)
    try:
        results = _validate(policy, data, failed, budget)
    except OutOfBudget as err:
        return _failed_policy(policy, str(err))
    validations = policy.spec.validations or []
    try:
        messages = [_message_value(v, data, has_params, budget) for v in validations]
        message_error = ""
    except OutOfBudget as err:
        messages, message_error = [None] * len(validations), f"failed messageExpression: {err}"
    decisions: list[Decision] = []
    for validation, result, message in zip(validations, results, messages, strict=True):
        if isinstance(result, str) or message_error:  # an error; else the messages' budget ran out
            decisions.append(_failure(policy, result if isinstance(result, str) else message_error)
                             or Decision(False))
        elif result:
            decisions.append(Decision(False))
        else:
            decisions.append(Decision(True, _message(validation, message), validation.reason or "Invalid"))
    return decisions


def _failed_policy(policy: AnyPolicy, message: str) -> list[Decision]:
    """The policy's one decision when it could not be evaluated: its failure policy's."""
    decision = _failure(policy, message)
    return [decision] if decision else []
