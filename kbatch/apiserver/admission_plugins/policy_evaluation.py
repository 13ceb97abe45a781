"""Evaluating one ValidatingAdmissionPolicy on one request: its decisions.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go`` (``Validate``).
With the request's variables (``object``, ``oldObject``, ``request``, ``namespaceObject``,
``params``): match conditions first (``webhook/matchconditions/matcher.go``: one false → no decision;
otherwise an error → the failure policy); then each validation gives ``Admit``, or ``Deny`` with its message
(``messageExpression`` when it yields a non-blank one-line string, else ``message``, else
``failed expression: <expression>``) and reason (``Invalid`` unless ``reason`` is set); an
evaluation error is a ``Deny`` under ``failurePolicy: Fail`` and an ``Admit`` under ``Ignore``.
``variables`` are composed in order (upstream evaluates them lazily; kbatch evaluates each once, in
order, and a variable that fails makes the expressions that read it fail with its error).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.admissionregistration_v1 import MutatingAdmissionPolicy, ValidatingAdmissionPolicy

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


def compose_variables(policy: AnyPolicy, data: dict[str, Any]) -> dict[str, str]:
    """Set ``data["variables"]`` to each variable's value; answer the errors of those that failed."""
    from kbatch.api.cel.admission import CompileError, EvaluationError

    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    has_params = policy.spec.param_kind is not None
    mutating = isinstance(policy, MutatingAdmissionPolicy)
    for var in policy.spec.variables or ():
        try:
            values[var.name] = _compiled(var.expression, has_params, "any", mutating).evaluate(
                {**data, "variables": values}
            )
        except (CompileError, EvaluationError) as err:
            errors[var.name] = str(err)
    data["variables"] = values
    return errors


def _failure(policy: AnyPolicy, message: str) -> Decision | None:
    """``policyDecisionActionForError``: Fail denies, Ignore admits."""
    return None if policy.spec.failure_policy == "Ignore" else Decision(True, message)


def _message(validation: Any, data: Mapping[str, Any], has_params: bool) -> str:
    """The denial message: messageExpression's, else message, else the expression."""
    from kbatch.api.cel.admission import CompileError, EvaluationError

    if validation.message_expression:
        try:
            value = _compiled(validation.message_expression, has_params, "string").evaluate(data)
        except (CompileError, EvaluationError):
            value = None
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
             returns: str = "bool", mutating: bool = False) -> Any:
    """``expression``'s value on ``data`` (plain data for a mutation); ``EvaluationError`` when it
    reads a variable in ``failed`` or fails itself."""
    from kbatch.api.cel.admission import EvaluationError

    error = _reads_failed_variable(expression, failed)
    if error is not None:
        raise EvaluationError(f"expression '{expression}' resulted in error: {error}")
    compiled = _compiled(expression, has_params, returns, mutating)
    return compiled.evaluate_plain(data) if mutating and returns != "bool" else compiled.evaluate(data)


def match_conditions(policy: AnyPolicy, data: Mapping[str, Any], failed: Mapping[str, str]) -> bool | str:
    """``webhook/matchconditions/matcher.go``: False when one condition is false (whatever errors
    others had), the error text when some failed and none is false, else True."""
    from kbatch.api.cel.admission import CompileError, EvaluationError

    has_params = policy.spec.param_kind is not None
    mutating = isinstance(policy, MutatingAdmissionPolicy)
    errors: list[str] = []
    for condition in policy.spec.match_conditions or ():
        try:
            if evaluate(condition.expression, data, has_params, failed, mutating=mutating) is False:
                return False
        except (CompileError, EvaluationError) as err:
            errors.append(str(err))
    if errors:
        return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return True


def evaluate_policy(policy: ValidatingAdmissionPolicy, data: dict[str, Any]) -> list[Decision]:
    """The decisions of ``policy``'s validations on ``data`` (the request's variables, params
    included); an empty list when a match condition is false."""
    from kbatch.api.cel.admission import CompileError, EvaluationError

    has_params = policy.spec.param_kind is not None
    failed = compose_variables(policy, data)
    matched = match_conditions(policy, data, failed)
    if matched is False:
        return []
    if isinstance(matched, str):  # errors and no false condition: the failure policy
        decision = _failure(policy, matched)
        return [decision] if decision else []
    decisions: list[Decision] = []
    for validation in policy.spec.validations or ():
        try:
            result = evaluate(validation.expression, data, has_params, failed)
        except (CompileError, EvaluationError) as err:
            decision = _failure(policy, str(err))
            decisions.append(decision or Decision(False))
            continue
        if result is True:
            decisions.append(Decision(False))
        else:
            decisions.append(
                Decision(True, _message(validation, data, has_params), validation.reason or "Invalid")
            )
    return decisions
