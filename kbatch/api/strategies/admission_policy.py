"""admissionregistration.k8s.io/v1 strategies: defaulting and validation of ValidatingAdmissionPolicy
and ValidatingAdmissionPolicyBinding.

Upstream (semantics only), Kubernetes 1.37:

* ``pkg/apis/admissionregistration/v1/defaults.go``: a policy's ``failurePolicy`` defaults to
  ``Fail``; a ``MatchResources`` gets ``matchPolicy: Equivalent`` and empty (match-all) namespace and
  object selectors; a rule's ``scope`` defaults to ``*``.
* ``pkg/apis/admissionregistration/validation/validation.go``: ``failurePolicy`` Fail|Ignore;
  ``matchConstraints`` required with at least one resource rule; rules name operations, groups,
  versions and resources; ``paramKind`` apiVersion and kind; each validation's ``expression``
  compiles to bool, ``messageExpression`` to string (with ``params`` only when ``paramKind`` is set),
  ``message`` has no line break, ``reason`` is one of four; ``matchConditions`` named, unique,
  compiled; ``variables`` CEL identifiers; validations or auditAnnotations required. A binding needs
  ``policyName``, ``validationActions`` (Deny|Warn|Audit, no duplicate, not both Deny and Warn) and a
  ``paramRef`` with one of name or selector and a ``parameterNotFoundAction`` (Deny|Allow).
* ``pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go``: status is reset on
  create and kept on update; generation moves with the spec.
"""

from __future__ import annotations

import re

from kbatch.api.admissionregistration_v1 import (
    MatchResources,
    MutatingAdmissionPolicySpec,
    NamedRuleWithOperations,
    ParamKind,
    ParamRef,
    ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
    ValidatingAdmissionPolicySpec,
    ValidatingAdmissionPolicyStatus,
    Validation,
)
from kbatch.api.errors import FieldError
from kbatch.api.meta import LabelSelector, Resource
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import (
    child,
    index,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_label_selector,
)

__all__ = [
    "PolicyBindingStrategy",
    "PolicyStrategy",
    "common_spec_errors",
    "compile_errors",
    "condition_errors",
    "default_match_resources",
    "match_resources_errors",
    "param_kind_errors",
    "param_ref_errors",
    "variable_errors",
]

_FAILURE_POLICIES = ["Fail", "Ignore"]
_MATCH_POLICIES = ["Equivalent", "Exact"]
_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"]
_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
_SCOPES = ["*", "Cluster", "Namespaced"]
_ACTIONS = ["Audit", "Deny", "Warn"]
_CEL_IDENT = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_CEL_RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)


def default_match_resources(mr: MatchResources | None) -> None:
    """``SetDefaults_MatchResources`` and ``SetDefaults_Rule`` (scope ``*``)."""
    if mr is None:
        return
    if mr.match_policy is None:
        mr.match_policy = "Equivalent"
    if mr.namespace_selector is None:
        mr.namespace_selector = LabelSelector()
    if mr.object_selector is None:
        mr.object_selector = LabelSelector()
    for rule in (*(mr.resource_rules or ()), *(mr.exclude_resource_rules or ())):
        if rule.scope is None:
            rule.scope = "*"


def compile_errors(expression: str, path: str, has_params: bool, returns: str = "bool",
                   mutating: bool = False) -> list[FieldError]:
    """The expression's compile error as upstream's ``convertCELErrorToValidationError``;
    ``mutating``: in a MutatingAdmissionPolicy's environment."""
    from kbatch.api.cel.admission import CompileError, compile_expression

    try:
        compile_expression(expression, has_params, returns, mutating)
    except CompileError as err:
        return [FieldError.invalid(path, expression, err.detail)]
    return []


def _rule(rule: NamedRuleWithOperations, path: str) -> list[FieldError]:
    """``validateNamedRuleWithOperations`` / ``validateRuleWithOperations``."""
    errs: list[FieldError] = []
    ops = rule.operations or []
    if not ops:
        errs.append(FieldError.required(child(path, "operations"), ""))
    for i, op in enumerate(ops):
        if op not in _OPERATIONS:
            errs.append(FieldError.not_supported(index(child(path, "operations"), i), op, _OPERATIONS))
    if len(ops) > 1 and "*" in ops:
        errs.append(
            FieldError.invalid(
                child(path, "operations"), ops, "if '*' is present, must not specify other operations"
            )
        )
    for name in ("api_groups", "api_versions", "resources"):
        values = getattr(rule, name) or []
        field = {"api_groups": "apiGroups", "api_versions": "apiVersions", "resources": "resources"}[name]
        if not values:
            errs.append(FieldError.required(child(path, field), ""))
        elif len(values) > 1 and "*" in values:
            errs.append(
                FieldError.invalid(
                    child(path, field), values, "if '*' is present, must not specify other " + field
                )
            )
    if rule.scope is not None and rule.scope not in _SCOPES:
        errs.append(FieldError.not_supported(child(path, "scope"), rule.scope, _SCOPES))
    return errs


def match_resources_errors(mr: MatchResources | None, path: str) -> list[FieldError]:
    """``validateMatchResources``."""
    if mr is None:
        return []
    errs: list[FieldError] = []
    if mr.match_policy is None:
        errs.append(FieldError.required(child(path, "matchPolicy"), ""))
    elif mr.match_policy not in _MATCH_POLICIES:
        errs.append(FieldError.not_supported(child(path, "matchPolicy"), mr.match_policy, _MATCH_POLICIES))
    for name, selector in (
        ("namespaceSelector", mr.namespace_selector),
        ("objectSelector", mr.object_selector),
    ):
        if selector is None:
            errs.append(FieldError.required(child(path, name), ""))
        else:
            errs.extend(validate_label_selector(selector, child(path, name)))
    for name, rules in (
        ("resourceRules", mr.resource_rules),
        ("excludeResourceRules", mr.exclude_resource_rules),
    ):
        for i, rule in enumerate(rules or ()):
            errs.extend(_rule(rule, index(child(path, name), i)))
    return errs


def param_kind_errors(pk: ParamKind, path: str) -> list[FieldError]:
    """``validateParamKind`` (group a DNS subdomain, version a DNS-1035 label, kind required)."""
    errs: list[FieldError] = []
    group, _, version = pk.api_version.rpartition("/")
    if not pk.api_version:
        errs.append(FieldError.required(child(path, "apiVersion"), ""))
    elif pk.api_version.count("/") > 1:
        errs.append(
            FieldError.invalid(
                child(path, "apiVersion"), pk.api_version, f"unexpected GroupVersion string: {pk.api_version}"
            )
        )
    else:
        if group and is_dns1123_subdomain(group):
            errs.append(
                FieldError.invalid(child(path, "apiVersion"), group, ",".join(is_dns1123_subdomain(group)))
            )
        if not version:
            errs.append(
                FieldError.invalid(child(path, "apiVersion"), pk.api_version, "version must be specified")
            )
        elif is_dns1035_label(version):
            errs.append(
                FieldError.invalid(child(path, "apiVersion"), version, ",".join(is_dns1035_label(version)))
            )
    if not pk.kind:
        errs.append(FieldError.required(child(path, "kind"), ""))
    elif is_dns1035_label(pk.kind.lower()):
        errs.append(
            FieldError.invalid(
                child(path, "kind"),
                pk.kind,
                "may have mixed case, but should otherwise "
                "match: " + ",".join(is_dns1035_label(pk.kind.lower())),
            )
        )
    return errs


def _validation(v: Validation, path: str, has_params: bool) -> list[FieldError]:
    """``validateValidation``."""
    errs: list[FieldError] = []
    if not v.expression.strip():
        errs.append(FieldError.required(child(path, "expression"), "expression is not specified"))
    else:
        errs.extend(compile_errors(v.expression, child(path, "expression"), has_params))
    if v.message_expression and not v.message_expression.strip():
        errs.append(
            FieldError.invalid(
                child(path, "messageExpression"), v.message_expression, "must be non-empty if specified"
            )
        )
    elif v.message_expression:
        errs.extend(
            compile_errors(v.message_expression, child(path, "messageExpression"), has_params, "string")
        )
    message = v.message or ""
    if message and not message.strip():
        errs.append(
            FieldError.invalid(child(path, "message"), message, "message must be non-empty if specified")
        )
    elif re.search(r"[\n\r]", message.strip()):
        errs.append(
            FieldError.invalid(child(path, "message"), message, "message must not contain line breaks")
        )
    if v.reason is not None and v.reason not in _REASONS:
        errs.append(FieldError.not_supported(child(path, "reason"), v.reason, _REASONS))
    return errs


def condition_errors(spec: ValidatingAdmissionPolicySpec | MutatingAdmissionPolicySpec, path: str,
                     has_params: bool, mutating: bool = False) -> list[FieldError]:
    """``validateMatchConditions``."""
    errs: list[FieldError] = []
    conditions = spec.match_conditions or []
    if len(conditions) > 64:
        errs.append(FieldError.too_many(path, len(conditions), 64))
    seen: set[str] = set()
    for i, mc in enumerate(conditions):
        at = index(path, i)
        if not mc.expression.strip():
            errs.append(FieldError.required(child(at, "expression"), ""))
        else:
            errs.extend(compile_errors(mc.expression.strip(), child(at, "expression"), has_params, "bool",
                                       mutating))
        if not mc.name:
            errs.append(FieldError.required(child(at, "name"), ""))
        else:
            errs.extend(FieldError.invalid(child(at, "name"), mc.name, m) for m in is_qualified_name(mc.name))
            if mc.name in seen:
                errs.append(FieldError.duplicate(child(at, "name"), mc.name))
            seen.add(mc.name)
    return errs


def variable_errors(spec: ValidatingAdmissionPolicySpec | MutatingAdmissionPolicySpec, path: str,
                    has_params: bool, mutating: bool = False) -> list[FieldError]:
    """``validateVariable``."""
    errs: list[FieldError] = []
    for i, var in enumerate(spec.variables or ()):
        at = index(path, i)
        if not var.name.strip():
            errs.append(FieldError.required(child(at, "name"), "name is not specified"))
        # fullmatch: Go's ``$`` is the end of the text, never before a final "\n"
        elif not _CEL_IDENT.fullmatch(var.name) or var.name in _CEL_RESERVED:
            errs.append(FieldError.invalid(child(at, "name"), var.name, "name is not a valid CEL identifier"))
        if not var.expression.strip():
            errs.append(FieldError.required(child(at, "expression"), "expression is not specified"))
        else:
            errs.extend(compile_errors(var.expression, child(at, "expression"), has_params, "any", mutating))
    return errs


def _audit_annotations(policy: ValidatingAdmissionPolicy, path: str, has_params: bool) -> list[FieldError]:
    """``validateAuditAnnotation`` (at most 20, unique keys, compiled value expressions)."""
    annotations = policy.spec.audit_annotations or []
    errs: list[FieldError] = []
    if len(annotations) > 20:
        errs.append(FieldError.invalid(path, "...", "must not have more than 20 auditAnnotations"))
    seen: set[str] = set()
    for i, aa in enumerate(annotations):
        at = index(path, i)
        errs.extend(
            FieldError.invalid(child(at, "key"), aa.key, m)
            for m in is_qualified_name(f"{policy.name}/{aa.key}")
        )
        value = aa.value_expression.strip()
        if not value:
            errs.append(FieldError.required(child(at, "valueExpression"), "valueExpression is not specified"))
        else:
            errs.extend(compile_errors(value, child(at, "valueExpression"), has_params, "any"))
        if aa.key in seen:
            errs.append(FieldError.duplicate(child(at, "key"), aa.key))
        seen.add(aa.key)
    return errs


def common_spec_errors(spec: ValidatingAdmissionPolicySpec | MutatingAdmissionPolicySpec,
                       mutating: bool = False) -> list[FieldError]:
    """What both policy kinds validate alike: failurePolicy, paramKind, matchConstraints (with resource
    rules), matchConditions and variables (compiled in the mutating environment for ``mutating``)."""
    errs: list[FieldError] = []
    has_params = spec.param_kind is not None
    if spec.failure_policy is None:
        errs.append(FieldError.required("spec.failurePolicy", ""))
    elif spec.failure_policy not in _FAILURE_POLICIES:
        errs.append(FieldError.not_supported("spec.failurePolicy", spec.failure_policy, _FAILURE_POLICIES))
    if spec.param_kind is not None:
        errs.extend(param_kind_errors(spec.param_kind, "spec.paramKind"))
    if spec.match_constraints is None:
        errs.append(FieldError.required("spec.matchConstraints", ""))
    else:
        errs.extend(match_resources_errors(spec.match_constraints, "spec.matchConstraints"))
        if not spec.match_constraints.resource_rules:
            errs.append(FieldError.required("spec.matchConstraints.resourceRules", ""))
    errs.extend(condition_errors(spec, "spec.matchConditions", has_params, mutating))
    errs.extend(variable_errors(spec, "spec.variables", has_params, mutating))
    return errs


def validate_policy(policy: ValidatingAdmissionPolicy) -> list[FieldError]:
    """``validateValidatingAdmissionPolicySpec``."""
    spec = policy.spec
    has_params = spec.param_kind is not None
    errs = common_spec_errors(spec)
    if not spec.validations and not spec.audit_annotations:
        why = "validations or auditAnnotations must contain at least one item"
        errs += [
            FieldError.required("spec.validations", why),
            FieldError.required("spec.auditAnnotations", why),
        ]
    else:
        for i, v in enumerate(spec.validations or ()):
            errs.extend(_validation(v, index("spec.validations", i), has_params))
        errs.extend(_audit_annotations(policy, "spec.auditAnnotations", has_params))
    return errs


def param_ref_errors(pr: ParamRef | None, path: str) -> list[FieldError]:
    """``validateParamRef``."""
    if pr is None:
        return []
    errs: list[FieldError] = []
    exclusive = "name and selector are mutually exclusive"
    if pr.name:
        errs.extend(
            FieldError.invalid(child(path, "name"), pr.name, f"may not contain '{c}'")
            for c in "/%"
            if c in pr.name
        )
        if pr.name in (".", ".."):
            errs.append(FieldError.invalid(child(path, "name"), pr.name, f"may not be '{pr.name}'"))
        if pr.selector is not None:
            errs.append(FieldError.forbidden(child(path, "name"), exclusive))
    if pr.selector is not None:
        errs.extend(validate_label_selector(pr.selector, child(path, "selector")))
        if pr.name:
            errs.append(FieldError.forbidden(child(path, "selector"), exclusive))
    if not pr.name and pr.selector is None:
        errs.append(FieldError.required(path, "one of name or selector must be specified"))
    action = pr.parameter_not_found_action
    if not action:
        errs.append(FieldError.required(child(path, "parameterNotFoundAction"), ""))
    elif action not in ("Deny", "Allow"):
        errs.append(
            FieldError.not_supported(child(path, "parameterNotFoundAction"), action, ["Deny", "Allow"])
        )
    return errs


def _validation_actions(actions: list[str] | None, path: str) -> list[FieldError]:
    """``validateValidationActions``."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions or ()):
        if action not in _ACTIONS:
            errs.append(FieldError.not_supported(index(path, i), action, _ACTIONS))
        if action in seen:
            errs.append(FieldError.duplicate(index(path, i), action))
        seen.add(action)
    if {"Deny", "Warn"} <= seen:
        errs.append(
            FieldError.invalid(
                path,
                actions,
                "must not contain both Deny and Warn (repeating the same "
                "validation failure information in the API response and headers serves "
                "no purpose)",
            )
        )
    if not seen:
        errs.append(FieldError.required(path, "at least one validation action is required"))
    return errs


def validate_binding(binding: ValidatingAdmissionPolicyBinding) -> list[FieldError]:
    """``validateValidatingAdmissionPolicyBindingSpec``."""
    spec, errs = binding.spec, []
    if not spec.policy_name:
        errs.append(FieldError.required("spec.policyName", ""))
    else:
        errs.extend(
            FieldError.invalid("spec.policyName", spec.policy_name, m)
            for m in is_dns1123_subdomain(spec.policy_name)
        )
    errs.extend(param_ref_errors(spec.param_ref, "spec.paramRef"))
    errs.extend(match_resources_errors(spec.match_resources, "spec.matchResources"))
    errs.extend(_validation_actions(spec.validation_actions, "spec.validationActions"))
    return errs


class PolicyStrategy(DefaultStrategy):
    def default(self, obj: Resource) -> None:
        assert isinstance(obj, ValidatingAdmissionPolicy)
        if obj.spec.failure_policy is None:
            obj.spec.failure_policy = "Fail"
        default_match_resources(obj.spec.match_constraints)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, ValidatingAdmissionPolicy)
        return validate_policy(obj)

    def fill_empty_status(self, obj: Resource) -> None:
        """``Status ValidatingAdmissionPolicyStatus`` is a struct: Go serializes ``"status": {}``
        (kbatch.apiserver.empty_status; upstream's type-checking controller, which fills it, is not
        modelled)."""
        assert isinstance(obj, ValidatingAdmissionPolicy)
        if obj.status is None:
            obj.status = ValidatingAdmissionPolicyStatus()


class PolicyBindingStrategy(DefaultStrategy):
    has_status = False

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, ValidatingAdmissionPolicyBinding)
        default_match_resources(obj.spec.match_resources)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, ValidatingAdmissionPolicyBinding)
        return validate_binding(obj)
