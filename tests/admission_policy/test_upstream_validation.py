"""Cases of upstream's validation table for the policy kinds, translated one by one
(``pkg/apis/admissionregistration/validation/validation_test.go``, kubernetes 1.37 cycle:
``TestValidateValidatingAdmissionPolicy`` and ``TestValidateValidatingAdmissionPolicyBinding``).
Each case is created through kbatch's API, as a user's object goes, and must be refused with
upstream's field error (path and detail) and nothing stored.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.errors import Invalid

RULE = {"apiGroups": ["a"], "apiVersions": ["a"], "operations": ["CREATE"], "resources": ["a"]}
GOOD_SPEC: dict[str, Any] = {
    "matchConstraints": {"resourceRules": [RULE]},
    "validations": [{"expression": "true"}],
}


def _policy(**spec: Any) -> ValidatingAdmissionPolicy:
    return ValidatingAdmissionPolicy.model_validate(
        {"metadata": {"name": "config"}, "spec": {**GOOD_SPEC, **spec}}
    )


def _binding(**spec: Any) -> ValidatingAdmissionPolicyBinding:
    body = {"policyName": "xyzlimit-scale.example.com", "validationActions": ["Deny"], **spec}
    return ValidatingAdmissionPolicyBinding.model_validate({"metadata": {"name": "config"}, "spec": body})


def _invalid(obj: Any) -> str:
    cp = ControlPlane()
    with pytest.raises(Invalid) as caught:
        cp.server.create(obj)
    assert not cp.server.list(type(obj)).items
    return caught.value.message


POLICY_CASES = [
    (
        "failure policy validation",
        dict(failurePolicy="other"),
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"',
    ),
    ("match constraints is required", dict(matchConstraints=None), "spec.matchConstraints: Required value"),
    (
        "resource rules required",
        dict(matchConstraints={"resourceRules": []}),
        "spec.matchConstraints.resourceRules: Required value",
    ),
    (
        "validation is required",
        dict(validations=[]),
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
    ),
    (
        "invalid expression",
        dict(validations=[{"expression": "object.x in [1, 2, "}]),
        'spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: '
        "<input>:1:20: Syntax error",
    ),
    (
        "undeclared params without paramKind",
        dict(validations=[{"expression": "params.x == 1"}]),
        'spec.validations[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: '
        "<input>:1:7: undeclared reference to 'params",
    ),
    (
        "expression must return bool",
        dict(validations=[{"expression": "1"}]),
        'spec.validations[0].expression: Invalid value: "1": must evaluate to bool but got int',
    ),
    (
        "messageExpression must return string",
        dict(validations=[{"expression": "true", "messageExpression": "1"}]),
        'spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int',
    ),
    (
        "message with line break",
        dict(validations=[{"expression": "true", "message": "a\nb"}]),
        'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks',
    ),
    (
        "invalid reason",
        dict(validations=[{"expression": "true", "reason": "other"}]),
        'spec.validations[0].reason: Unsupported value: "other": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge", "Unauthorized"',
    ),
    (
        "operation must be known",
        dict(matchConstraints={"resourceRules": [{**RULE, "operations": ["PATCH"]}]}),
        'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH"',
    ),
    (
        "matchPolicy must be known",
        dict(matchConstraints={"resourceRules": [RULE], "matchPolicy": "other"}),
        'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: '
        '"Equivalent", "Exact"',
    ),
    ("paramKind kind required", dict(paramKind={"apiVersion": "v1"}), "spec.paramKind.kind: Required value"),
    (
        "matchCondition name required",
        dict(matchConditions=[{"expression": "true"}]),
        "spec.matchConditions[0].name: Required value",
    ),
    (
        "variable name must be a CEL identifier",
        dict(variables=[{"name": "a-b", "expression": "1"}]),
        'spec.variables[0].name: Invalid value: "a-b": name is not a valid CEL identifier',
    ),
]


@pytest.mark.parametrize(("case", "spec", "expected"), POLICY_CASES, ids=[c[0] for c in POLICY_CASES])
def test_validate_validating_admission_policy(case: str, spec: dict[str, Any], expected: str) -> None:
    """``TestValidateValidatingAdmissionPolicy``: the case named ``case``."""
    assert expected in _invalid(_policy(**spec))


@pytest.mark.parametrize("name", ["foo", "_x1", "Var_2"])
def test_a_variable_name_ending_in_a_newline_is_not_a_cel_identifier(name: str) -> None:
    """``isCELIdentifier``'s regexp: Go's ``$`` matches only at the end of the text, so ``"foo\\n"``
    is refused (Python's ``$`` also matched before the final newline)."""
    ControlPlane().server.create(_policy(variables=[{"name": name, "expression": "1"}]))
    expected = f'spec.variables[0].name: Invalid value: "{name}\\n": name is not a valid CEL identifier'
    assert expected in _invalid(_policy(variables=[{"name": name + "\n", "expression": "1"}]))


BINDING_CASES = [
    ("policyName is required", dict(policyName=""), "spec.policyName: Required value"),
    (
        "validationActions is required",
        dict(validationActions=[]),
        "spec.validationActions: Required value: at least one validation action is required",
    ),
    (
        "invalid validationActions",
        dict(validationActions=["other"]),
        'spec.validationActions[0]: Unsupported value: "other": supported values: "Audit", "Deny", "Warn"',
    ),
    (
        "duplicate validationActions",
        dict(validationActions=["Deny", "Deny"]),
        'spec.validationActions[1]: Duplicate value: "Deny"',
    ),
    (
        "Deny and Warn",
        dict(validationActions=["Deny", "Warn"]),
        "must not contain both Deny and Warn (repeating the same validation failure information in the API "
        "response and headers serves no purpose)",
    ),
    (
        "paramRef name and selector",
        dict(paramRef={"name": "a", "selector": {}, "parameterNotFoundAction": "Deny"}),
        "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
    ),
    (
        "paramRef one of name or selector",
        dict(paramRef={"parameterNotFoundAction": "Deny"}),
        "spec.paramRef: Required value: one of name or selector must be specified",
    ),
    (
        "paramRef parameterNotFoundAction required",
        dict(paramRef={"name": "a"}),
        "spec.paramRef.parameterNotFoundAction: Required value",
    ),
    (
        "paramRef parameterNotFoundAction known",
        dict(paramRef={"name": "a", "parameterNotFoundAction": "x"}),
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "x": supported values: "Deny", "Allow"',
    ),
]


@pytest.mark.parametrize(("case", "spec", "expected"), BINDING_CASES, ids=[c[0] for c in BINDING_CASES])
def test_validate_validating_admission_policy_binding(case: str, spec: dict[str, Any], expected: str) -> None:
    """``TestValidateValidatingAdmissionPolicyBinding``: the case named ``case``."""
    assert expected in _invalid(_binding(**spec))


def test_defaults_fill_what_validation_requires() -> None:
    """``pkg/apis/admissionregistration/v1/defaults.go``: failurePolicy Fail, matchPolicy Equivalent,
    match-all selectors, scope ``*``."""
    cp = ControlPlane()
    stored = cp.server.create(_policy())
    mc = stored.spec.match_constraints
    assert stored.spec.failure_policy == "Fail"
    assert mc is not None and mc.match_policy == "Equivalent" and mc.resource_rules is not None
    assert mc.namespace_selector is not None and mc.object_selector is not None
    assert mc.resource_rules[0].scope == "*"
