"""Validation of scheduling constraints: tolerations, taints, node/pod affinity, topology spread.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (validateTolerations,
validateTaintEffect, ValidateNodeSelector*, validatePodAffinityTerm, validateTopologySpreadConstraints).
Messages are upstream's.
"""

from __future__ import annotations

from kbatch.api.core_v1 import (
    Affinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinityTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from kbatch.api.errors import FieldError
from kbatch.api.validation import (
    child,
    index,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_valid_label_value,
    validate_label_name,
    validate_label_selector,
)

__all__ = [
    "TAINT_EFFECTS",
    "tolerations_known_valid",
    "validate_affinity",
    "validate_node_selector",
    "validate_taint_effect",
    "validate_taints",
    "validate_tolerations",
    "validate_topology_spread_constraints",
]

TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def validate_taint_effect(effect: str | None, allow_empty: bool, path: str) -> list[FieldError]:
    if not effect:
        return [] if allow_empty else [FieldError.required(path, "")]
    if effect not in TAINT_EFFECTS:
        return [FieldError.not_supported(path, effect, TAINT_EFFECTS)]
    return []


def _validate_toleration(tol: Toleration, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if tol.key:
        errs += validate_label_name(tol.key, child(path, "key"))
    if not tol.key and tol.operator != "Exists":
        errs.append(FieldError.invalid(child(path, "operator"), tol.operator or "",
                                       "operator must be Exists when `key` is empty, which means "
                                       "\"match all values and all keys\""))
    if tol.toleration_seconds is not None and tol.effect != "NoExecute":
        errs.append(FieldError.invalid(child(path, "effect"), tol.effect or "",
                                       "effect must be 'NoExecute' when `tolerationSeconds` is set"))
    if tol.operator in ("Equal", "", None):
        msgs = is_valid_label_value(tol.value or "")
        if msgs:
            errs.append(FieldError.invalid(child(path, "operator"), tol.value or "", ";".join(msgs)))
    elif tol.operator == "Exists":
        if tol.value:
            errs.append(FieldError.invalid(child(path, "operator"), tol.value,
                                           "value must be empty when `operator` is 'Exists'"))
    else:
        errs.append(FieldError.not_supported(child(path, "operator"), tol.operator, ["Equal", "Exists"]))
    if tol.effect:
        errs += validate_taint_effect(tol.effect, True, child(path, "effect"))
    return errs


# Field values of tolerations found valid: whether one is valid depends on its fields alone (the path
# only appears in messages), and nearly every pod carries the same two defaulted ones. Process-wide,
# bounded (cleared when full).
_VALID_TOLERATIONS: set[tuple[object, ...]] = set()
_MAX_VALID_TOLERATIONS = 4096


def tolerations_known_valid(tolerations: list[Toleration]) -> bool:
    """Whether every toleration was already found valid (:func:`validate_tolerations` remembers them)."""
    known = _VALID_TOLERATIONS
    return all(tuple(tol.__dict__.values()) in known for tol in tolerations)


def validate_tolerations(tolerations: list[Toleration] | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, tol in enumerate(tolerations or ()):
        fields = tuple(tol.__dict__.values())  # every field is a scalar: hashable
        if fields in _VALID_TOLERATIONS:
            continue
        found = _validate_toleration(tol, index(path, i))
        if not found:
            if len(_VALID_TOLERATIONS) >= _MAX_VALID_TOLERATIONS:
                _VALID_TOLERATIONS.clear()
            _VALID_TOLERATIONS.add(fields)
        errs += found
    return errs


def validate_taints(taints: list[Taint] | None, path: str) -> list[FieldError]:
    """``validateNodeTaints``: qualified key, label-like value, supported effect, unique key+effect."""
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints or ()):
        at = index(path, i)
        errs += validate_label_name(taint.key, child(at, "key"))
        errs += [FieldError.invalid(child(at, "value"), taint.value or "", m)
                 for m in is_valid_label_value(taint.value or "")]
        errs += validate_taint_effect(taint.effect, False, child(at, "effect"))
        ident = (taint.key, taint.effect)
        if ident in seen:
            errs.append(FieldError.duplicate(at, f"taint key {taint.key}, effect {taint.effect}"))
        seen.add(ident)
    return errs


# --- node affinity ----------------------------------------------------------------------------

def _validate_node_requirement(req: NodeSelectorRequirement, path: str,
                               label_values: bool = False) -> list[FieldError]:
    """``ValidateNodeSelectorRequirement``; ``label_values`` checks each value as a label value (a
    pod's required node affinity on create: ``AllowInvalidLabelValueInRequiredNodeAffinity`` is
    false there, pkg/api/pod/util.go; the Gt/Lt value is checked as a label value too, not as an
    integer)."""
    errs: list[FieldError] = []
    op, values = req.operator, req.values or []
    if op in ("In", "NotIn"):
        if not values:
            errs.append(FieldError.required(child(path, "values"),
                                            "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(FieldError.forbidden(
                child(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(FieldError.required(child(path, "values"),
                                            "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(FieldError.invalid(child(path, "operator"), op, "not a valid selector operator"))
    errs += validate_label_name(req.key, child(path, "key"))
    if label_values:
        for i, value in enumerate(values):
            errs += [FieldError.invalid(index(child(path, "values"), i), value, m)
                     for m in is_valid_label_value(value)]
    return errs


def _validate_field_requirement(req: NodeSelectorRequirement, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if req.operator in ("In", "NotIn"):
        if len(req.values or ()) != 1:
            errs.append(FieldError.required(
                child(path, "values"),
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(FieldError.invalid(child(path, "operator"), req.operator,
                                       "not a valid selector operator"))
    if req.key != "metadata.name":
        errs.append(FieldError.invalid(child(path, "key"), req.key, "not a valid field selector key"))
    else:  # nodeFieldSelectorValidators: metadata.name values are node names (ValidateNodeName)
        for i, value in enumerate(req.values or ()):
            errs += [FieldError.invalid(index(child(path, "values"), i), value, m)
                     for m in is_dns1123_subdomain(value)]
    return errs


def _validate_term(term: NodeSelectorTerm, path: str, label_values: bool = False) -> list[FieldError]:
    errs: list[FieldError] = []
    for j, req in enumerate(term.match_expressions or ()):
        errs += _validate_node_requirement(req, index(child(path, "matchExpressions"), j), label_values)
    for j, req in enumerate(term.match_fields or ()):
        errs += _validate_field_requirement(req, index(child(path, "matchFields"), j))
    return errs


def _validate_node_selector(selector: NodeSelector, path: str,
                            label_values: bool = False) -> list[FieldError]:
    terms_path = child(path, "nodeSelectorTerms")
    if not selector.node_selector_terms:
        return [FieldError.required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(selector.node_selector_terms):
        errs += _validate_term(term, index(terms_path, i), label_values)
    return errs


validate_node_selector = _validate_node_selector  # public: ResourceSlice validation reuses it
validate_term = _validate_term  # public: the scheduler's NodeAffinityArgs.addedAffinity reuses it


def _weight_errors(weight: int, path: str) -> list[FieldError]:
    if weight <= 0 or weight > 100:
        return [FieldError.invalid(path, weight, "must be in the range 1-100")]
    return []


# --- pod affinity -----------------------------------------------------------------------------

def _validate_pod_affinity_term(term: PodAffinityTerm, path: str, loose: bool) -> list[FieldError]:
    """``validatePodAffinityTerm``; ``loose`` is ``AllowInvalidLabelValueInSelector`` (an update
    whose old pod already had such a value, pkg/api/pod/util.go)."""
    errs = validate_label_selector(term.label_selector, child(path, "labelSelector"),
                                   allow_invalid_label_values=loose)
    errs += validate_label_selector(term.namespace_selector, child(path, "namespaceSelector"),
                                    allow_invalid_label_values=loose)
    for name in term.namespaces or ():
        errs += [FieldError.invalid(child(path, "namespace"), name, m) for m in is_dns1123_label(name)]
    if not term.topology_key:
        errs.append(FieldError.required(child(path, "topologyKey"), "can not be empty"))
    else:
        errs += validate_label_name(term.topology_key, child(path, "topologyKey"))
    return errs


def _validate_pod_affinity_terms(terms: list[PodAffinityTerm] | None, path: str,
                                 loose: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, term in enumerate(terms or ()):
        errs += _validate_pod_affinity_term(term, index(path, i), loose)
    return errs


def _validate_weighted(terms: list[WeightedPodAffinityTerm] | None, path: str,
                       loose: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, term in enumerate(terms or ()):
        at = index(path, i)
        errs += _weight_errors(term.weight, child(at, "weight"))
        errs += _validate_pod_affinity_term(term.pod_affinity_term, child(at, "podAffinityTerm"), loose)
    return errs


_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def validate_affinity(affinity: Affinity | None, path: str, *, loose_node_values: bool = False,
                      loose_selector_values: bool = False) -> list[FieldError]:
    """``validateAffinity``. The two relaxations are the update options of pkg/api/pod/util.go:
    ``loose_node_values`` is ``AllowInvalidLabelValueInRequiredNodeAffinity``,
    ``loose_selector_values`` ``AllowInvalidLabelValueInSelector`` (pod affinity term selectors)."""
    if affinity is None:
        return []
    errs: list[FieldError] = []
    node = affinity.node_affinity
    if node is not None:
        node_path = child(path, "nodeAffinity")
        if node.required_during_scheduling_ignored_during_execution is not None:
            errs += _validate_node_selector(node.required_during_scheduling_ignored_during_execution,
                                            child(node_path, _REQUIRED), label_values=not loose_node_values)
        for i, pref in enumerate(node.preferred_during_scheduling_ignored_during_execution or ()):
            at = index(child(node_path, _PREFERRED), i)
            errs += _weight_errors(pref.weight, child(at, "weight"))
            errs += _validate_term(pref.preference, child(at, "preference"))
    pod_terms = (("podAffinity", affinity.pod_affinity), ("podAntiAffinity", affinity.pod_anti_affinity))
    for name, value in pod_terms:
        if value is not None:
            errs += _validate_pod_affinity_terms(value.required_during_scheduling_ignored_during_execution,
                                                 child(child(path, name), _REQUIRED), loose_selector_values)
            errs += _validate_weighted(value.preferred_during_scheduling_ignored_during_execution,
                                       child(child(path, name), _PREFERRED), loose_selector_values)
    return errs


# --- topology spread --------------------------------------------------------------------------

_NODE_INCLUSION_POLICIES = ["Honor", "Ignore"]


def _node_policy_errors(policy: str | None, path: str) -> list[FieldError]:
    """``validateNodeInclusionPolicy``: unset, ``Honor`` or ``Ignore``."""
    if policy is not None and policy not in _NODE_INCLUSION_POLICIES:
        return [FieldError.not_supported(path, policy, _NODE_INCLUSION_POLICIES)]
    return []


def _min_domains_errors(c: TopologySpreadConstraint, path: str) -> list[FieldError]:
    """``validateMinDomains``: positive, and only with DoNotSchedule (both errors can apply)."""
    if c.min_domains is None:
        return []
    errs: list[FieldError] = []
    if c.min_domains <= 0:
        errs.append(FieldError.invalid(path, c.min_domains, "must be greater than zero"))
    if c.when_unsatisfiable != "DoNotSchedule":
        errs.append(FieldError.invalid(
            path, c.min_domains,
            f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {c.when_unsatisfiable}"))
    return errs


def _repeat_errors(constraints: list[TopologySpreadConstraint], i: int, path: str) -> list[FieldError]:
    """``ValidateSpreadConstraintNotRepeat``: constraint ``i`` against the ones after it, reported on
    ``i`` itself under the pseudo-field ``{topologyKey, whenUnsatisfiable}``."""
    c = constraints[i]
    if any((c.topology_key, c.when_unsatisfiable) == (o.topology_key, o.when_unsatisfiable)
           for o in constraints[i + 1:]):
        return [FieldError.duplicate(child(path, "{topologyKey, whenUnsatisfiable}"),
                                     f"{{{c.topology_key}, {c.when_unsatisfiable}}}")]
    return []


def validate_topology_spread_constraints(
    constraints: list[TopologySpreadConstraint] | None, path: str, *, loose_values: bool = False,
) -> list[FieldError]:
    """``validateTopologySpreadConstraints`` (kubernetes ``pkg/apis/core/validation/validation.go``);
    ``loose_values`` is ``AllowInvalidTopologySpreadConstraintLabelSelector`` (an update whose old
    pod had such a selector, pkg/api/pod/util.go)."""
    errs: list[FieldError] = []
    items = constraints or []
    for i, c in enumerate(items):
        at = index(path, i)
        if c.max_skew <= 0:
            errs.append(FieldError.invalid(child(at, "maxSkew"), c.max_skew, "must be greater than zero"))
        if not c.topology_key:  # ValidateTopologyKey: presence only (unlike a pod affinity term's)
            errs.append(FieldError.required(child(at, "topologyKey"), "can not be empty"))
        if c.when_unsatisfiable not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(FieldError.not_supported(child(at, "whenUnsatisfiable"), c.when_unsatisfiable,
                                                 ["DoNotSchedule", "ScheduleAnyway"]))
        errs += _repeat_errors(items, i, at)
        errs += _min_domains_errors(c, child(at, "minDomains"))
        errs += _node_policy_errors(c.node_affinity_policy, child(at, "nodeAffinityPolicy"))
        errs += _node_policy_errors(c.node_taints_policy, child(at, "nodeTaintsPolicy"))
        errs += validate_label_selector(c.label_selector, child(at, "labelSelector"),
                                        allow_invalid_label_values=loose_values)
    return errs
