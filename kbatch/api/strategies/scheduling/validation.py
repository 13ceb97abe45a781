"""Validation of scheduling.k8s.io/v1beta1 Workload and PodGroup, and of the Job's ``spec.scheduling``.

Upstream ``pkg/apis/scheduling/validation/validation.go`` (``ValidatePodGroup``, ``ValidateWorkload``,
``validatePodGroupSchedulingPolicy``, ``validateGangSchedulingPolicy``, ``validateControllerRef``) with
the 1.37 rules of KEP-4671/KEP-5710 (``types.go`` of v1beta1): the two unions (``basic``/``gang``,
``single``/``all``) with their messages; ``minCount`` required and positive; at most 8 templates,
named by DNS labels, unique; ``all`` disruption only with a gang policy; on update only
``gang.minCount`` may change (no template added or removed, the policy variant frozen).

The alpha fields, as v1beta1's declarative tags state them (``staging/src/k8s.io/api/scheduling/
v1beta1/types.go``): ``schedulingConstraints.topology`` at most 1 item (``+k8s:maxItems=1``), each
``key`` required and a label key (``+k8s:format=k8s-label-key``, a qualified name); ``preemptionPolicy``
one of ``Never``/``PreemptLowerPriority`` (``+k8s:enum``); both immutable. They only reach validation
while their gates serve them (the strategy drops them otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.scheduling_v1beta1 import (
    PREEMPTION_POLICIES,
    DisruptionMode,
    PodGroup,
    PodGroupSchedulingConstraints,
    PodGroupSchedulingPolicy,
    PodGroupSpec,
    PodGroupTemplate,
    Workload,
    WorkloadPodGroupSchedulingPolicy,
)
from kbatch.api.strategies.core.pod_validation import validate_claim_references
from kbatch.api.strategies.policy import validate_conditions
from kbatch.api.validation import (
    child,
    index,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_immutable,
)

__all__ = [
    "MAX_PODGROUP_TEMPLATES",
    "dns_label",
    "dns_subdomain",
    "frozen_fields",
    "policy_update",
    "preemption_policy_errors",
    "priority_errors",
    "union",
    "validate_disruption_mode",
    "validate_pod_group",
    "validate_pod_group_status",
    "validate_pod_group_update",
    "validate_scheduling_constraints",
    "validate_scheduling_policy",
    "validate_template",
    "validate_workload",
    "validate_workload_update",
]

MAX_PODGROUP_TEMPLATES = 8  # scheduling.WorkloadMaxPodGroupTemplates
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
_POLICY_CHOICES = ("basic", "gang")
_DISRUPTION_CHOICES = ("single", "all")


def union(value: Any, choices: Sequence[str], path: str) -> list[FieldError]:
    """An ``exactly one of`` union (upstream's messages, ``WithOrigin("union")``)."""
    chosen = [f"`{name}`" for name in choices if getattr(value, name) is not None]
    listed = ", ".join(f"`{name}`" for name in choices)
    if not chosen:
        return [FieldError.invalid(path, "", f"must specify one of: {listed}")]
    if len(chosen) > 1:
        return [FieldError.invalid(path, "{" + ", ".join(chosen) + "}",
                                   f"exactly one of {listed} is required, but multiple fields are set")]
    return []


def validate_scheduling_policy(policy: PodGroupSchedulingPolicy | WorkloadPodGroupSchedulingPolicy,
                               path: str, *, min_count_optional: bool = False) -> list[FieldError]:
    """``validatePodGroupSchedulingPolicy``; ``min_count_optional`` for the building block a
    controller embeds (the Job's ``spec.scheduling``: unset means "the controller defaults it")."""
    errs = union(policy, _POLICY_CHOICES, path)
    if errs or policy.gang is None:
        return errs
    count, at = policy.gang.min_count, child(child(path, "gang"), "minCount")
    if count is None and min_count_optional:
        return []
    if not count:
        return [FieldError.required(at, "")]
    if count < 0:
        return [FieldError.invalid(at, count, "must be greater than zero")]
    return []


def validate_disruption_mode(mode: DisruptionMode | None, policy: Any, path: str) -> list[FieldError]:
    """The ``single``/``all`` union; ``all`` needs a gang policy (KEP-5710)."""
    if mode is None:
        return []
    errs = union(mode, _DISRUPTION_CHOICES, path)
    if not errs and mode.all is not None and policy is not None and policy.basic is not None:
        errs.append(FieldError.forbidden(child(path, "all"), "may not be set with a basic scheduling policy"))
    return errs


MAX_TOPOLOGY_CONSTRAINTS = 1  # PodGroupSchedulingConstraints.Topology: +k8s:maxItems=1


def validate_scheduling_constraints(constraints: PodGroupSchedulingConstraints | None,
                                    path: str) -> list[FieldError]:
    """``schedulingConstraints`` (KEP-5732): at most one topology constraint, its ``key`` a label key."""
    topology = constraints.topology if constraints is not None else None
    if not topology:
        return []
    at = child(path, "topology")
    if len(topology) > MAX_TOPOLOGY_CONSTRAINTS:
        return [FieldError.too_many(at, len(topology), MAX_TOPOLOGY_CONSTRAINTS)]
    errs: list[FieldError] = []
    for i, constraint in enumerate(topology):
        key_path = child(index(at, i), "key")
        if not constraint.key:
            errs.append(FieldError.required(key_path, ""))
        else:
            errs += [FieldError.invalid(key_path, constraint.key, m)
                     for m in is_qualified_name(constraint.key)]
    return errs


def preemption_policy_errors(policy: str | None, path: str) -> list[FieldError]:
    if policy is None or policy in PREEMPTION_POLICIES:
        return []
    return [FieldError.not_supported(child(path, "preemptionPolicy"), policy, list(PREEMPTION_POLICIES))]


def priority_errors(priority: int | None, class_name: str | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if class_name:
        errs += [FieldError.invalid(child(path, "priorityClassName"), class_name, m)
                 for m in is_dns1123_subdomain(class_name)]
    if priority is not None and priority > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(FieldError.invalid(child(path, "priority"), priority,
                                       f"must be less than or equal to {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    return errs


def dns_label(value: str, path: str) -> list[FieldError]:
    if not value:
        return [FieldError.required(path, "")]
    return [FieldError.invalid(path, value, m) for m in is_dns1123_label(value)]


def dns_subdomain(value: str, path: str) -> list[FieldError]:
    if not value:
        return [FieldError.required(path, "")]
    return [FieldError.invalid(path, value, m) for m in is_dns1123_subdomain(value)]


# --- PodGroup -----------------------------------------------------------------------------------

def _validate_pod_group_spec(spec: PodGroupSpec, path: str) -> list[FieldError]:
    errs = _parent_errors(spec, path)
    if spec.workload_ref is not None:
        ref = child(path, "workloadRef")
        errs += dns_subdomain(spec.workload_ref.workload_name, child(ref, "workloadName"))
        errs += dns_label(spec.workload_ref.template_name, child(ref, "templateName"))
    errs += validate_scheduling_policy(spec.scheduling_policy, child(path, "schedulingPolicy"))
    errs += validate_disruption_mode(spec.disruption_mode, spec.scheduling_policy,
                                     child(path, "disruptionMode"))
    errs += priority_errors(spec.priority, spec.priority_class_name, path)
    errs += preemption_policy_errors(spec.preemption_policy, path)
    errs += validate_scheduling_constraints(spec.scheduling_constraints, child(path, "schedulingConstraints"))
    errs += validate_pod_group_claims(spec.resource_claims, child(path, "resourceClaims"))
    return errs


def _parent_errors(spec: PodGroupSpec, path: str) -> list[FieldError]:
    """``parentCompositePodGroupName`` (gate CompositePodGroup): a DNS subdomain, and only with a
    ``workloadRef`` (v1alpha3 ``+k8s:dependentRequired("workloadRef")``)."""
    parent = spec.parent_composite_pod_group_name
    if parent is None:
        return []
    at = child(path, "parentCompositePodGroupName")
    errs = [FieldError.invalid(at, parent, m) for m in is_dns1123_subdomain(parent)] if parent else \
        [FieldError.required(at, "")]
    if spec.workload_ref is None:
        errs.append(FieldError.required(child(path, "workloadRef"),
                                        "must be specified when parentCompositePodGroupName is set"))
    return errs


MAX_POD_GROUP_CLAIMS = 4  # upstream PodGroupSpec.ResourceClaims: +k8s:maxItems=4 (KEP-5729)


def validate_pod_group_claims(claims: Sequence[Any] | None, path: str) -> list[FieldError]:
    """``resourceClaims`` of a PodGroup or a Workload's template (DRAWorkloadResourceClaims): at most
    4, checked as a pod's (``validatePodResourceClaims``)."""
    if not claims:
        return []
    errs = []
    if len(claims) > MAX_POD_GROUP_CLAIMS:
        errs.append(FieldError.too_many(path, len(claims), MAX_POD_GROUP_CLAIMS))
    return errs + validate_claim_references(list(claims), path)[0]


def validate_pod_group(pg: PodGroup) -> list[FieldError]:
    return _validate_pod_group_spec(pg.spec, "spec")


def policy_update(new: Any, old: Any, path: str) -> list[FieldError]:
    """Only ``gang.minCount`` may change: the variant (basic/gang) is fixed (gang has NoSet/NoUnset)."""
    errs: list[FieldError] = []
    for name in _POLICY_CHOICES:
        if (getattr(new, name) is None) != (getattr(old, name) is None):
            errs.append(FieldError.invalid(child(path, name), _plain(getattr(new, name)),
                                           "field is immutable"))
    return errs


def _plain(value: Any) -> Any:
    return value.to_dict() if value is not None else None


def validate_pod_group_update(new: PodGroup, old: PodGroup) -> list[FieldError]:
    errs = validate_pod_group(new)
    spec, before, path = new.spec, old.spec, "spec"
    errs += validate_immutable(spec.workload_ref, before.workload_ref, child(path, "workloadRef"))
    errs += validate_immutable(spec.parent_composite_pod_group_name, before.parent_composite_pod_group_name,
                               child(path, "parentCompositePodGroupName"))
    errs += policy_update(spec.scheduling_policy, before.scheduling_policy, child(path, "schedulingPolicy"))
    errs += frozen_fields(spec, before, path)
    return errs


_FROZEN = (("disruption_mode", "disruptionMode"), ("priority_class_name", "priorityClassName"),
           ("priority", "priority"), ("scheduling_constraints", "schedulingConstraints"),
           ("resource_claims", "resourceClaims"), ("preemption_policy", "preemptionPolicy"))


def frozen_fields(new: Any, old: Any, path: str) -> list[FieldError]:
    """The fields of a PodGroup spec or template that never change after creation."""
    errs: list[FieldError] = []
    for name, wire in _FROZEN:
        errs += validate_immutable(getattr(new, name), getattr(old, name), child(path, wire))
    return errs


def validate_pod_group_status(new: PodGroup, old: PodGroup) -> list[FieldError]:
    conditions = new.status.conditions if new.status is not None else None
    return validate_conditions(conditions, "status.conditions")


# --- Workload -----------------------------------------------------------------------------------

def validate_template(template: PodGroupTemplate, path: str, seen: set[str]) -> list[FieldError]:
    errs = dns_label(template.name, child(path, "name"))
    if template.name and template.name in seen:
        errs.append(FieldError.duplicate(path, template.name))
    seen.add(template.name)
    policy = template.scheduling_policy
    errs += validate_scheduling_policy(policy, child(path, "schedulingPolicy"))
    errs += validate_disruption_mode(template.disruption_mode, policy, child(path, "disruptionMode"))
    errs += priority_errors(template.priority, template.priority_class_name, path)
    errs += preemption_policy_errors(template.preemption_policy, path)
    errs += validate_scheduling_constraints(template.scheduling_constraints,
                                            child(path, "schedulingConstraints"))
    errs += validate_pod_group_claims(template.resource_claims, child(path, "resourceClaims"))
    return errs


def _validate_controller_ref(workload: Workload, path: str) -> list[FieldError]:
    ref = workload.spec.controller_ref
    if ref is None:
        return []
    errs: list[FieldError] = []
    if ref.api_group:
        errs += [FieldError.invalid(child(path, "apiGroup"), ref.api_group, m)
                 for m in is_dns1123_subdomain(ref.api_group)]
    for name, value in (("kind", ref.kind), ("name", ref.name)):
        if not value:
            errs.append(FieldError.required(child(path, name), ""))
        else:
            errs += [FieldError.invalid(child(path, name), value, m) for m in _path_segment_errors(value)]
    return errs


def _path_segment_errors(value: str) -> list[str]:
    """apimachinery ``content.IsPathSegmentName``."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in value]


def validate_workload(workload: Workload) -> list[FieldError]:
    spec, path = workload.spec, "spec"
    errs = _validate_controller_ref(workload, child(path, "controllerRef"))
    templates, at = spec.pod_group_templates or [], child(path, "podGroupTemplates")
    if spec.composite_pod_group_templates and templates:
        return [*errs, FieldError.invalid(path, "{`podGroupTemplates`, `compositePodGroupTemplates`}",
                                          "exactly one of `podGroupTemplates`, `compositePodGroupTemplates` "
                                          "is required, but multiple fields are set")]
    if spec.composite_pod_group_templates:
        from kbatch.api.strategies.scheduling.composite_validation import validate_composite_templates

        return [*errs, *validate_composite_templates(workload)]
    if not templates:
        return [*errs, FieldError.required(at, "must have at least one item")]
    if len(templates) > MAX_PODGROUP_TEMPLATES:
        return [*errs, FieldError.too_many(at, len(templates), MAX_PODGROUP_TEMPLATES)]
    seen: set[str] = set()
    for i, template in enumerate(templates):
        errs += validate_template(template, index(at, i), seen)
    return errs


def validate_workload_update(new: Workload, old: Workload) -> list[FieldError]:
    """controllerRef immutable once set; the templates keep their names and everything but
    ``gang.minCount`` (a change there affects only PodGroups created afterwards)."""
    errs = validate_workload(new)
    path = "spec"
    if old.spec.controller_ref is not None:
        errs += validate_immutable(new.spec.controller_ref, old.spec.controller_ref,
                                   child(path, "controllerRef"))
    if new.spec.composite_pod_group_templates or old.spec.composite_pod_group_templates:
        from kbatch.api.strategies.scheduling.composite_validation import validate_composite_templates_update

        return [*errs, *validate_composite_templates_update(
            new.spec.composite_pod_group_templates or [], old.spec.composite_pod_group_templates or [],
            child(path, "compositePodGroupTemplates"))]
    at = child(path, "podGroupTemplates")
    templates, before = new.spec.pod_group_templates or [], old.spec.pod_group_templates or []
    if [t.name for t in templates] != [t.name for t in before]:
        return [*errs, FieldError.invalid(at, [t.to_dict() for t in templates], "field is immutable")]
    for i, (template, was) in enumerate(zip(templates, before, strict=True)):
        errs += policy_update(template.scheduling_policy, was.scheduling_policy,
                               child(index(at, i), "schedulingPolicy"))
        errs += frozen_fields(template, was, index(at, i))
    return errs
