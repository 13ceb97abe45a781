"""Validation of CompositePodGroups and of a Workload's ``compositePodGroupTemplates`` (KEP-6012,
Kubernetes 1.37, gate ``CompositePodGroup``).

The per-field rules are v1alpha3's declarative tags (``staging/src/k8s.io/api/scheduling/v1alpha3/
types.go``): a CompositePodGroup's ``workloadRef`` required (``workloadName`` a DNS subdomain,
``templateName`` a DNS label), ``parentCompositePodGroupName`` a DNS subdomain, ``schedulingPolicy``
exactly one of ``basic``/``gang`` with ``gang.minGroupCount`` required and at least 1, at most one
topology constraint, ``disruptionMode`` exactly one of ``single``/``all``, ``priority`` at most 1e9;
the whole spec immutable. The tree rules are upstream's hand-written ones
(``pkg/apis/scheduling/validation/validation.go`` ``ValidateWorkloadSpec``): template names unique in
the whole tree, at most 4 levels (``maximum template hierarchy depth is 4``), one priority and
priority class for every template of the tree, every composite template with at least one child;
each list at most 8 items (``+k8s:maxItems=8``), no item added or removed on update.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import (
    CompositePodGroupSchedulingPolicy,
    CompositePodGroupTemplate,
    PodGroupTemplate,
    Workload,
)
from kbatch.api.strategies.policy import validate_conditions
from kbatch.api.strategies.scheduling.validation import (
    MAX_PODGROUP_TEMPLATES,
    dns_label,
    dns_subdomain,
    frozen_fields,
    policy_update,
    preemption_policy_errors,
    priority_errors,
    union,
    validate_scheduling_constraints,
    validate_template,
)
from kbatch.api.validation import child, index, is_dns1123_subdomain, validate_immutable

__all__ = [
    "MAX_TREE_DEPTH",
    "validate_composite_pod_group",
    "validate_composite_pod_group_status",
    "validate_composite_pod_group_update",
    "validate_composite_templates",
    "validate_composite_templates_update",
]

MAX_TREE_DEPTH = 4  # scheduling.WorkloadMaxTreeDepth
_POLICY_CHOICES = ("basic", "gang")
_DISRUPTION_CHOICES = ("single", "all")


def validate_composite_policy(policy: CompositePodGroupSchedulingPolicy, path: str) -> list[FieldError]:
    errs = union(policy, _POLICY_CHOICES, path)
    if errs or policy.gang is None:
        return errs
    count, at = policy.gang.min_group_count, child(child(path, "gang"), "minGroupCount")
    if not count:
        return [FieldError.required(at, "")]
    if count < 1:
        return [FieldError.invalid(at, count, "must be greater than or equal to 1")]
    return []


def _common(spec: Any, path: str) -> list[FieldError]:
    """The fields a composite and its template share."""
    errs = validate_composite_policy(spec.scheduling_policy, child(path, "schedulingPolicy"))
    errs += validate_scheduling_constraints(spec.scheduling_constraints, child(path, "schedulingConstraints"))
    if spec.disruption_mode is not None:
        errs += union(spec.disruption_mode, _DISRUPTION_CHOICES, child(path, "disruptionMode"))
    errs += priority_errors(spec.priority, spec.priority_class_name, path)
    errs += preemption_policy_errors(spec.preemption_policy, path)
    return errs


# --- CompositePodGroup --------------------------------------------------------------------------

def validate_composite_pod_group(cpg: CompositePodGroup) -> list[FieldError]:
    spec, path = cpg.spec, "spec"
    errs: list[FieldError] = []
    parent = spec.parent_composite_pod_group_name
    if parent is not None:
        at = child(path, "parentCompositePodGroupName")
        errs += [FieldError.invalid(at, parent, m) for m in is_dns1123_subdomain(parent)]
    ref, at = spec.workload_ref, child(path, "workloadRef")
    if ref is None:
        errs.append(FieldError.required(at, ""))
    else:
        errs += dns_subdomain(ref.workload_name, child(at, "workloadName"))
        errs += dns_label(ref.template_name, child(at, "templateName"))
    return errs + _common(spec, path)


def validate_composite_pod_group_update(new: CompositePodGroup, old: CompositePodGroup) -> list[FieldError]:
    """Every field of the spec is immutable (``+k8s:immutable`` on each)."""
    errs = validate_composite_pod_group(new)
    for name, wire in (("parent_composite_pod_group_name", "parentCompositePodGroupName"),
                       ("workload_ref", "workloadRef"), ("scheduling_policy", "schedulingPolicy"),
                       ("scheduling_constraints", "schedulingConstraints"),
                       ("disruption_mode", "disruptionMode"), ("priority_class_name", "priorityClassName"),
                       ("priority", "priority"), ("preemption_policy", "preemptionPolicy")):
        errs += validate_immutable(getattr(new.spec, name), getattr(old.spec, name), child("spec", wire))
    return errs


def validate_composite_pod_group_status(new: CompositePodGroup, old: CompositePodGroup) -> list[FieldError]:
    conditions = new.status.conditions if new.status is not None else None
    return validate_conditions(conditions, "status.conditions")


# --- Workload.spec.compositePodGroupTemplates ---------------------------------------------------

def _walk(templates: list[CompositePodGroupTemplate], path: str
          ) -> Iterator[tuple[CompositePodGroupTemplate, str, int]]:
    """Every composite template of the tree with its path and depth (1 at the top), depth first."""
    stack = [(t, index(path, i), 1) for i, t in enumerate(templates)]
    stack.reverse()
    while stack:
        template, at, depth = stack.pop()
        yield template, at, depth
        children = template.composite_pod_group_templates or []
        sub = child(at, "compositePodGroupTemplates")
        stack.extend(reversed([(c, index(sub, i), depth + 1) for i, c in enumerate(children)]))


def _list_errors(items: list[Any] | None, path: str) -> list[FieldError]:
    if items and len(items) > MAX_PODGROUP_TEMPLATES:
        return [FieldError.too_many(path, len(items), MAX_PODGROUP_TEMPLATES)]
    return []


def _node_errors(template: CompositePodGroupTemplate, at: str) -> list[FieldError]:
    errs = dns_label(template.name, child(at, "name")) + _common(template, at)
    pod_groups, composites = template.pod_group_templates, template.composite_pod_group_templates
    errs += _list_errors(pod_groups, child(at, "podGroupTemplates"))
    errs += _list_errors(composites, child(at, "compositePodGroupTemplates"))
    if not pod_groups and not composites:
        errs.append(FieldError.invalid(at, template.name, "must have at least one child PodGroupTemplate "
                                                          "or CompositePodGroupTemplate"))
    seen: set[str] = set()
    for i, leaf in enumerate(pod_groups or ()):
        errs += validate_template(leaf, index(child(at, "podGroupTemplates"), i), seen)
    return errs


def _depth_errors(templates: list[CompositePodGroupTemplate], path: str) -> list[FieldError]:
    """``validateWorkloadTemplatesDepth``: a top-level entry whose subtree reaches depth 4."""
    errs = []
    for i, top in enumerate(templates):
        if any(depth >= MAX_TREE_DEPTH for _, _, depth in _walk([top], path)):
            children = [c.to_dict() for c in top.composite_pod_group_templates or ()]
            errs.append(FieldError.invalid(index(path, i), children,
                                           f"maximum template hierarchy depth is {MAX_TREE_DEPTH}"))
    return errs


def _name_errors(templates: list[CompositePodGroupTemplate], path: str) -> list[FieldError]:
    """``validateWorkloadTemplateNamesUniqueness``: a name used higher up or in an earlier branch."""
    errs: list[FieldError] = []
    names: set[str] = set()

    def visit(level: list[Any], at: str) -> None:
        for i, item in enumerate(level):
            if item.name in names:
                errs.append(FieldError.duplicate(child(index(at, i), "name"), item.name))
        names.update(item.name for item in level)

    def descend(nodes: list[CompositePodGroupTemplate], at: str) -> None:
        visit(nodes, at)
        for i, node in enumerate(nodes):
            node_at = index(at, i)
            visit(node.pod_group_templates or [], child(node_at, "podGroupTemplates"))
            descend(node.composite_pod_group_templates or [], child(node_at, "compositePodGroupTemplates"))

    descend(templates, path)
    return errs


def _priorities(templates: list[CompositePodGroupTemplate]) -> Iterator[tuple[str, int | None]]:
    for template, _, _ in _walk(templates, ""):
        yield template.priority_class_name or "", template.priority
        for leaf in template.pod_group_templates or ():
            yield leaf.priority_class_name or "", leaf.priority


def validate_composite_templates(workload: Workload) -> list[FieldError]:
    """``spec.compositePodGroupTemplates`` (the caller has checked the one-of with ``podGroupTemplates``)."""
    templates, path = workload.spec.composite_pod_group_templates or [], "spec.compositePodGroupTemplates"
    errs = _list_errors(templates, path)
    for template, at, depth in _walk(templates, path):
        if depth < MAX_TREE_DEPTH:
            errs += _node_errors(template, at)
    errs += _depth_errors(templates, path)
    errs += _name_errors(templates, path)
    if len(set(_priorities(templates))) > 1:
        errs.append(FieldError.invalid("spec", None, "all priority and priorityClassName values must be "
                                                     "identical, detected multiple values"))
    return errs


def _leaves_update(new: list[PodGroupTemplate], old: list[PodGroupTemplate], at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, (template, was) in enumerate(zip(new, old, strict=True)):
        errs += policy_update(template.scheduling_policy, was.scheduling_policy,
                              child(index(at, i), "schedulingPolicy"))
        errs += frozen_fields(template, was, index(at, i))
    return errs


_TEMPLATE_FROZEN = (("scheduling_constraints", "schedulingConstraints"),
                    ("disruption_mode", "disruptionMode"),
                    ("priority_class_name", "priorityClassName"), ("priority", "priority"),
                    ("preemption_policy", "preemptionPolicy"))


def _frozen_template(new: CompositePodGroupTemplate, old: CompositePodGroupTemplate,
                     at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for name, wire in _TEMPLATE_FROZEN:
        errs += validate_immutable(getattr(new, name), getattr(old, name), child(at, wire))
    return errs


def validate_composite_templates_update(new: list[CompositePodGroupTemplate],
                                        old: list[CompositePodGroupTemplate], at: str) -> list[FieldError]:
    """No item added or removed at any level (``+k8s:update=NoAddItem,NoRemoveItem``); each template
    keeps its policy variant and its constraints, disruption mode, priority and preemption policy."""
    if [t.name for t in new] != [t.name for t in old]:
        return [FieldError.invalid(at, [t.to_dict() for t in new], "field is immutable")]
    errs: list[FieldError] = []
    for i, (template, was) in enumerate(zip(new, old, strict=True)):
        node = index(at, i)
        errs += policy_update(template.scheduling_policy, was.scheduling_policy,
                              child(node, "schedulingPolicy"))
        errs += _frozen_template(template, was, node)
        leaves, before = template.pod_group_templates or [], was.pod_group_templates or []
        leaves_at = child(node, "podGroupTemplates")
        if [t.name for t in leaves] != [t.name for t in before]:
            errs.append(FieldError.invalid(leaves_at, [t.to_dict() for t in leaves], "field is immutable"))
        else:
            errs += _leaves_update(leaves, before, leaves_at)
        errs += validate_composite_templates_update(template.composite_pod_group_templates or [],
                                                    was.composite_pod_group_templates or [],
                                                    child(node, "compositePodGroupTemplates"))
    return errs
