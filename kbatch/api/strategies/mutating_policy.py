"""admissionregistration.k8s.io/v1 strategies: defaulting and validation of MutatingAdmissionPolicy and
MutatingAdmissionPolicyBinding.

Upstream (semantics only), Kubernetes 1.37:

* ``pkg/apis/admissionregistration/v1/defaults.go``: ``failurePolicy`` defaults to ``Fail``; the
  ``MatchResources`` of both kinds are defaulted as a ValidatingAdmissionPolicy's
  (:func:`~kbatch.api.strategies.admission_policy.default_match_resources`);
* ``pkg/apis/admissionregistration/validation/validation.go`` (``validateMutatingAdmissionPolicySpec``,
  ``validateMutation``, ``validateMutatingAdmissionPolicyBindingSpec``): failurePolicy, paramKind,
  matchConstraints (required, with resource rules), matchConditions and variables as for a
  ValidatingAdmissionPolicy, but compiled in the mutating environment (object literals,
  ``jsonpatch.escapeKey``); ``mutations`` required, each with a ``patchType`` of
  ApplyConfiguration|JSONPatch, the matching member set (its expression compiling to ``Object`` or
  ``list(JSONPatch)``) and the other absent; ``reinvocationPolicy`` required, Never|IfNeeded. A
  binding needs ``policyName``, and a valid ``paramRef`` and ``matchResources`` when it has them.
* Neither kind has a status; generation moves with the spec.
"""

from __future__ import annotations

from kbatch.api.admissionregistration_v1 import (
    MutatingAdmissionPolicy,
    MutatingAdmissionPolicyBinding,
    MutatingAdmissionPolicySpec,
    Mutation,
)
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategies.admission_policy import (
    common_spec_errors,
    compile_errors,
    default_match_resources,
    match_resources_errors,
    param_ref_errors,
)
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, index, is_dns1123_subdomain

__all__ = ["MutatingPolicyBindingStrategy", "MutatingPolicyStrategy", "validate_mutating_policy"]

_PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"]
_REINVOCATION_POLICIES = ["IfNeeded", "Never"]
_MEMBERS = {"ApplyConfiguration": "applyConfiguration", "JSONPatch": "jsonPatch"}
_RETURNS = {"ApplyConfiguration": "Object", "JSONPatch": "list(JSONPatch)"}


def _mutation(m: Mutation, path: str, has_params: bool) -> list[FieldError]:
    """``validateMutation``: the member the patch type names, and only that one."""
    if m.patch_type not in _PATCH_TYPES:
        return [FieldError.not_supported(child(path, "patchType"), m.patch_type, _PATCH_TYPES)]
    errs: list[FieldError] = []
    member = _MEMBERS[m.patch_type]
    body = m.apply_configuration if m.patch_type == "ApplyConfiguration" else m.json_patch
    other = m.json_patch if m.patch_type == "ApplyConfiguration" else m.apply_configuration
    if body is None:
        why = f"must be specified when patchType is {m.patch_type}"
        errs.append(FieldError.required(child(path, member), why))
    elif not body.expression.strip():
        errs.append(FieldError.required(child(child(path, member), "expression"), ""))
    else:
        errs.extend(compile_errors(body.expression, child(child(path, member), "expression"), has_params,
                                   _RETURNS[m.patch_type], mutating=True))
    if other is not None:
        name = "jsonPatch" if member == "applyConfiguration" else "applyConfiguration"
        why = f"must not be specified when patchType is {m.patch_type}"
        errs.append(FieldError.forbidden(child(path, name), why))
    return errs


def _spec_errors(spec: MutatingAdmissionPolicySpec) -> list[FieldError]:
    has_params = spec.param_kind is not None
    errs = common_spec_errors(spec, mutating=True)
    if not spec.mutations:
        errs.append(FieldError.required("spec.mutations", "mutations must contain at least one item"))
    for i, mutation in enumerate(spec.mutations or ()):
        errs.extend(_mutation(mutation, index("spec.mutations", i), has_params))
    if not spec.reinvocation_policy:
        errs.append(FieldError.required("spec.reinvocationPolicy", ""))
    elif spec.reinvocation_policy not in _REINVOCATION_POLICIES:
        errs.append(FieldError.not_supported("spec.reinvocationPolicy", spec.reinvocation_policy,
                                             _REINVOCATION_POLICIES))
    return errs


def validate_mutating_policy(policy: MutatingAdmissionPolicy) -> list[FieldError]:
    """``validateMutatingAdmissionPolicySpec``."""
    return _spec_errors(policy.spec)


def _binding_errors(binding: MutatingAdmissionPolicyBinding) -> list[FieldError]:
    """``validateMutatingAdmissionPolicyBindingSpec``."""
    spec, errs = binding.spec, []
    if not spec.policy_name:
        errs.append(FieldError.required("spec.policyName", ""))
    else:
        errs.extend(FieldError.invalid("spec.policyName", spec.policy_name, m)
                    for m in is_dns1123_subdomain(spec.policy_name))
    errs.extend(param_ref_errors(spec.param_ref, "spec.paramRef"))
    errs.extend(match_resources_errors(spec.match_resources, "spec.matchResources"))
    return errs


class MutatingPolicyStrategy(DefaultStrategy):
    has_status = False

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, MutatingAdmissionPolicy)
        if obj.spec.failure_policy is None:
            obj.spec.failure_policy = "Fail"
        default_match_resources(obj.spec.match_constraints)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, MutatingAdmissionPolicy)
        return validate_mutating_policy(obj)


class MutatingPolicyBindingStrategy(DefaultStrategy):
    has_status = False

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, MutatingAdmissionPolicyBinding)
        default_match_resources(obj.spec.match_resources)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, MutatingAdmissionPolicyBinding)
        return _binding_errors(obj)
