"""admissionregistration.k8s.io/v1: ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
(k8s.io/api ``admissionregistration/v1/types.go``, GA since Kubernetes 1.30), MutatingAdmissionPolicy
and MutatingAdmissionPolicyBinding (GA in v1 since 1.36, KEP-3962).

A policy holds CEL ``validations`` (plus ``matchConditions``, ``variables``, ``auditAnnotations``)
and the ``matchConstraints`` of the requests it may judge; a binding puts a policy in force for the
requests its ``matchResources`` also match, with ``validationActions`` (Deny, Warn, Audit) and an
optional ``paramRef`` to the parameter object. Both are cluster-scoped and have no subresource but a
policy's status. Validation and defaulting: :mod:`kbatch.api.strategies.admission_policy`;
enforcement: :mod:`kbatch.apiserver.admission_plugins.validating_policy`; docs/admission-policy.md.

A mutating policy holds ``mutations`` instead (each an ``ApplyConfiguration`` or a ``JSONPatch`` CEL
expression) and a ``reinvocationPolicy``; its binding has no actions. Neither has a status.
Validation: :mod:`kbatch.api.strategies.mutating_policy`; enforcement:
:mod:`kbatch.apiserver.admission_plugins.mutating_policy`.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.meta import Condition, LabelSelector, Resource

__all__ = [
    "GROUP",
    "ApplyConfiguration",
    "AuditAnnotation",
    "JSONPatch",
    "MatchCondition",
    "MatchResources",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicyBindingSpec",
    "MutatingAdmissionPolicySpec",
    "Mutation",
    "NamedRuleWithOperations",
    "ParamKind",
    "ParamRef",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingAdmissionPolicyBindingSpec",
    "ValidatingAdmissionPolicySpec",
    "ValidatingAdmissionPolicyStatus",
    "Validation",
    "Variable",
]

GROUP = "admissionregistration.k8s.io"


class NamedRuleWithOperations(KubeModel):
    resource_names: list[str] | None = None
    operations: list[str] | None = None
    api_groups: list[str] | None = None
    api_versions: list[str] | None = None
    resources: list[str] | None = None
    scope: str | None = None


class MatchResources(KubeModel):
    namespace_selector: LabelSelector | None = None
    object_selector: LabelSelector | None = None
    resource_rules: list[NamedRuleWithOperations] | None = None
    exclude_resource_rules: list[NamedRuleWithOperations] | None = None
    match_policy: str | None = None


class ParamKind(KubeModel):
    api_version: str = ""
    kind: str = ""


class Validation(KubeModel):
    expression: str = ""
    message: str | None = None
    reason: str | None = None
    message_expression: str | None = None


class AuditAnnotation(KubeModel):
    key: str = ""
    value_expression: str = ""


class MatchCondition(KubeModel):
    name: str = ""
    expression: str = ""


class Variable(KubeModel):
    name: str = ""
    expression: str = ""


class ValidatingAdmissionPolicySpec(KubeModel):
    param_kind: ParamKind | None = None
    match_constraints: MatchResources | None = None
    validations: list[Validation] | None = None
    failure_policy: str | None = None
    audit_annotations: list[AuditAnnotation] | None = None
    match_conditions: list[MatchCondition] | None = None
    variables: list[Variable] | None = None


class ExpressionWarning(KubeModel):
    field_ref: str = ""
    warning: str = ""


class TypeChecking(KubeModel):
    expression_warnings: list[ExpressionWarning] | None = None


class ValidatingAdmissionPolicyStatus(KubeModel):
    observed_generation: int | None = None
    type_checking: TypeChecking | None = None
    conditions: list[Condition] | None = None


class ParamRef(KubeModel):
    name: str | None = None
    namespace: str | None = None
    selector: LabelSelector | None = None
    parameter_not_found_action: str | None = None


class ValidatingAdmissionPolicyBindingSpec(KubeModel):
    policy_name: str = ""
    param_ref: ParamRef | None = None
    match_resources: MatchResources | None = None
    validation_actions: list[str] | None = None


def _info(kind: str, plural: str, subresources: tuple[str, ...]) -> ApiInfo:
    return ApiInfo(
        group=GROUP,
        version="v1",
        kind=kind,
        plural=plural,
        namespaced=False,
        singular=kind.lower(),
        subresources=subresources,
    )


class ValidatingAdmissionPolicy(Resource):
    api_info: ClassVar[ApiInfo] = _info(
        "ValidatingAdmissionPolicy", "validatingadmissionpolicies", ("status",)
    )

    spec: ValidatingAdmissionPolicySpec = Field(default_factory=ValidatingAdmissionPolicySpec)
    status: ValidatingAdmissionPolicyStatus | None = None


class ValidatingAdmissionPolicyBinding(Resource):
    api_info: ClassVar[ApiInfo] = _info(
        "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", ()
    )

    spec: ValidatingAdmissionPolicyBindingSpec = Field(default_factory=ValidatingAdmissionPolicyBindingSpec)


class ApplyConfiguration(KubeModel):
    expression: str = ""


class JSONPatch(KubeModel):
    expression: str = ""


class Mutation(KubeModel):
    patch_type: str = ""
    apply_configuration: ApplyConfiguration | None = None
    json_patch: JSONPatch | None = None


class MutatingAdmissionPolicySpec(KubeModel):
    param_kind: ParamKind | None = None
    match_constraints: MatchResources | None = None
    variables: list[Variable] | None = None
    mutations: list[Mutation] | None = None
    failure_policy: str | None = None
    match_conditions: list[MatchCondition] | None = None
    reinvocation_policy: str | None = None


class MutatingAdmissionPolicyBindingSpec(KubeModel):
    policy_name: str = ""
    param_ref: ParamRef | None = None
    match_resources: MatchResources | None = None


class MutatingAdmissionPolicy(Resource):
    api_info: ClassVar[ApiInfo] = _info("MutatingAdmissionPolicy", "mutatingadmissionpolicies", ())

    spec: MutatingAdmissionPolicySpec = Field(default_factory=MutatingAdmissionPolicySpec)


class MutatingAdmissionPolicyBinding(Resource):
    api_info: ClassVar[ApiInfo] = _info(
        "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", ()
    )

    spec: MutatingAdmissionPolicyBindingSpec = Field(default_factory=MutatingAdmissionPolicyBindingSpec)
