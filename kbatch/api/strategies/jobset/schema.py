"""The JobSet CRD's own validation: its OpenAPI schema rules and its CEL ``x-kubernetes-validations``.

Upstream serves JobSet from ``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml`` (v0.12.0);
kube-apiserver's apiextensions validation checks, in this order (``customResourceStrategy.Validate``):

1. the schema: ``required`` fields (``Required value``), ``enum`` values (``Unsupported value: "X":
   supported values: ...`` in the schema's order), ``minimum`` (``<path> in body should be greater
   than or equal to 0``), ``maxItems`` (``Too many: N: must have at most M items``);
2. the list-map invariant (``x-kubernetes-list-type: map``): a repeated key is ``Duplicate value``;
3. the CEL rules, skipped when an ``Unsupported value`` error was found (apiextensions
   ``hasBlockingErr``), which then adds ``<nil>: Invalid value: "null": some validation rules were
   not checked because the object was invalid; correct the existing errors to complete validation``.
   Create: ``StartupPolicy and DependsOn APIs are mutually exclusive`` on ``spec`` and ``namespace
   cannot be set for VolumeClaimPolicies templates`` on each volume claim policy. Update: the
   transition rules ``self == oldSelf`` (``Value is immutable``) on ``network``, ``successPolicy``,
   ``failurePolicy``, ``startupPolicy``, ``volumeClaimPolicies`` and each replicated job's
   ``dependsOn`` (matched to the old one by the list-map key ``name``); a transition rule applies only
   when the field exists in both the old and the new object, as in Kubernetes.

The embedded Job template is checked for the schema's ``required`` fields a manifest most often
misses (``template``, ``containers``, container names); the rest of its
validation happens when the controller creates the child Job, as upstream (the CRD's copy of the Job
schema checks types and required fields only). kbatch does not implement validation ratcheting
(unchanged invalid values on update are reported again).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kbatch.api import jobset_constants as c
from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.jobset_v1alpha2 import JobSet, JobSetSpec, ReplicatedJob
from kbatch.api.validation import child, index

__all__ = ["duplicate_key", "duplicates", "not_checked_error", "validate_spec_schema",
           "validate_spec_transitions"]

Errors = list[FieldError]

NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the "
               "existing errors to complete validation")
MUTUALLY_EXCLUSIVE = "StartupPolicy and DependsOn APIs are mutually exclusive"
NAMESPACE_IN_TEMPLATE = "namespace cannot be set for VolumeClaimPolicies templates"
IMMUTABLE = "Value is immutable"
MAX_DEPENDS_ON = 5
MAX_CLAIM_POLICIES = 50
MAX_CLAIM_TEMPLATES = 50


def not_checked_error() -> FieldError:
    return FieldError.invalid("<nil>", "null", NOT_CHECKED)  # Go prints a nil value as "null"


def _enum(value: str | None, path: str, allowed: tuple[str, ...]) -> Errors:
    return [] if value is None or value in allowed else [FieldError.not_supported(path, value, list(allowed))]


def _required(value: Any, path: str) -> Errors:
    return [FieldError.required(path)] if value is None else []


def _max_items(items: list[Any] | None, path: str, limit: int) -> Errors:
    return [FieldError.too_many(path, len(items), limit)] if items is not None and len(items) > limit else []


def duplicate_key(path: str, key: str, value: str) -> FieldError:
    """A list-map item repeating a key: ``Duplicate value`` with the key map as Go prints it
    (``%#v``); the text goes in as the detail, printed verbatim."""
    go_map = "map[string]interface {}{" + json.dumps(key) + ":" + json.dumps(value) + "}"
    return FieldError(FieldErrorType.DUPLICATE, path, go_map)


def duplicates(items: Iterable[Any], path: str, key: str = "name") -> Errors:
    """The list-map invariant: the second item with a key already seen is a ``Duplicate value``."""
    seen: set[Any] = set()
    errs: Errors = []
    for i, item in enumerate(items):
        value = getattr(item, key)
        if value in seen:
            errs.append(duplicate_key(index(path, i), key, value))
        seen.add(value)
    return errs


def _template_required(rjob: ReplicatedJob, path: str) -> Errors:
    """The embedded Job schema's ``required`` fields most manifests could miss: the template, the pod
    template's containers and their names. kbatch's models do not tell a missing list or name from an
    empty one, so an empty ``containers`` or ``name`` counts as missing here (upstream's schema lets an
    explicit empty value through to the child Job's validation)."""
    if rjob.template is None:
        return [FieldError.required(child(path, "template"))]
    pod_path = child(path, "template.spec.template.spec")
    pod_spec = rjob.template.spec.template.spec
    errs: Errors = []
    if not pod_spec.containers:
        errs.append(FieldError.required(child(pod_path, "containers")))
    lists = (("initContainers", pod_spec.init_containers), ("containers", pod_spec.containers))
    for field, containers in lists:
        for i, container in enumerate(containers or ()):
            if not container.name:
                errs.append(FieldError.required(child(index(child(pod_path, field), i), "name")))
    return errs


def _replicated_job_errors(rjob: ReplicatedJob, path: str) -> Errors:
    errs = _required(rjob.name, child(path, "name"))
    errs += _template_required(rjob, path)
    deps = rjob.depends_on
    errs += _max_items(deps, child(path, "dependsOn"), MAX_DEPENDS_ON)
    for i, dep in enumerate(deps or ()):
        at = index(child(path, "dependsOn"), i)
        errs += _required(dep.name, child(at, "name"))
        errs += _required(dep.status, child(at, "status"))
        errs += _enum(dep.status, child(at, "status"), c.DEPENDS_ON_STATUSES)
    return errs


def _policies_errors(spec: JobSetSpec) -> Errors:
    errs: Errors = []
    if spec.coordinator is not None:
        errs += _required(spec.coordinator.replicated_job, "spec.coordinator.replicatedJob")
    fp = spec.failure_policy
    if fp is not None:
        errs += _enum(fp.restart_strategy, "spec.failurePolicy.restartStrategy", c.RESTART_STRATEGIES)
        for i, rule in enumerate(fp.rules or ()):
            at = index("spec.failurePolicy.rules", i)
            errs += _required(rule.action, child(at, "action"))
            errs += _enum(rule.action, child(at, "action"), c.FAILURE_ACTIONS)
            errs += _required(rule.name, child(at, "name"))
    if spec.startup_policy is not None:
        order = spec.startup_policy.startup_policy_order
        errs += _required(order, "spec.startupPolicy.startupPolicyOrder")
        errs += _enum(order, "spec.startupPolicy.startupPolicyOrder", c.STARTUP_ORDERS)
    if spec.success_policy is not None:
        errs += _required(spec.success_policy.operator, "spec.successPolicy.operator")
        errs += _enum(spec.success_policy.operator, "spec.successPolicy.operator", c.OPERATORS)
    ttl = spec.ttl_seconds_after_finished
    if ttl is not None and ttl < 0:
        errs.append(FieldError.invalid("spec.ttlSecondsAfterFinished", ttl,
                                       "spec.ttlSecondsAfterFinished in body should be greater than or "
                                       "equal to 0"))
    policies = spec.volume_claim_policies
    errs += _max_items(policies, "spec.volumeClaimPolicies", MAX_CLAIM_POLICIES)
    for i, policy in enumerate(policies or ()):
        at = index("spec.volumeClaimPolicies", i)
        errs += _max_items(policy.templates, child(at, "templates"), MAX_CLAIM_TEMPLATES)
        if policy.retention_policy is not None:
            errs += _enum(policy.retention_policy.when_deleted, child(at, "retentionPolicy.whenDeleted"),
                          c.RETENTION_POLICIES)
    return errs


def _cel_errors(spec: JobSetSpec) -> Errors:
    errs: Errors = []
    rjobs = spec.replicated_jobs or ()
    if (spec.startup_policy is not None and spec.startup_policy.startup_policy_order == c.IN_ORDER
            and any(r.depends_on is not None for r in rjobs)):
        errs.append(FieldError.invalid("spec", "object", MUTUALLY_EXCLUSIVE))
    for i, policy in enumerate(spec.volume_claim_policies or ()):
        if any(t.metadata is not None and t.metadata.namespace for t in policy.templates or ()):
            errs.append(FieldError.invalid(index("spec.volumeClaimPolicies", i), "object",
                                           NAMESPACE_IN_TEMPLATE))
    return errs


def _blocking(errs: Errors) -> bool:
    return any(e.type is FieldErrorType.NOT_SUPPORTED for e in errs)


def validate_spec_schema(js: JobSet) -> Errors:
    """Steps 1-3 of the module docstring for a create (and the non-transition part of an update)."""
    spec = js.spec
    rjobs = spec.replicated_jobs or []
    errs: Errors = []
    for i, rjob in enumerate(rjobs):
        errs += _replicated_job_errors(rjob, index("spec.replicatedJobs", i))
    errs += _policies_errors(spec)
    errs += duplicates((r for r in rjobs if r.name is not None), "spec.replicatedJobs")
    for i, rjob in enumerate(rjobs):
        errs += duplicates((d for d in rjob.depends_on or () if d.name is not None),
                            child(index("spec.replicatedJobs", i), "dependsOn"))
    if _blocking(errs):
        return [*errs, not_checked_error()]
    return errs + _cel_errors(spec)


def _immutable(new: Any, old: Any, path: str, shape: str = "object") -> Errors:
    if new is None or old is None or new == old:
        return []
    return [FieldError.invalid(path, shape, IMMUTABLE)]


def _same_map_list(new: list[Any] | None, old: list[Any] | None) -> bool:
    """CEL equality of two ``x-kubernetes-list-type: map`` lists keyed by name: order is ignored."""
    return sorted((d.name or "", d.status or "") for d in new or ()) == \
        sorted((d.name or "", d.status or "") for d in old or ())


def validate_spec_transitions(new: JobSet, old: JobSet) -> Errors:
    """The ``self == oldSelf`` transition rules (CEL, after the schema: skipped when it blocks)."""
    ns, os_ = new.spec, old.spec
    errs: Errors = []
    errs += _immutable(ns.failure_policy, os_.failure_policy, "spec.failurePolicy")
    errs += _immutable(ns.network, os_.network, "spec.network")
    old_rjobs = {r.name: r for r in os_.replicated_jobs or () if r.name is not None}
    for i, rjob in enumerate(ns.replicated_jobs or ()):
        before = old_rjobs.get(rjob.name) if rjob.name is not None else None
        if before is None or rjob.depends_on is None or before.depends_on is None:
            continue
        if not _same_map_list(rjob.depends_on, before.depends_on):
            errs.append(FieldError.invalid(child(index("spec.replicatedJobs", i), "dependsOn"),
                                           "array", IMMUTABLE))
    errs += _immutable(ns.startup_policy, os_.startup_policy, "spec.startupPolicy")
    errs += _immutable(ns.success_policy, os_.success_policy, "spec.successPolicy")
    errs += _immutable(ns.volume_claim_policies, os_.volume_claim_policies, "spec.volumeClaimPolicies",
                       "array")
    return errs
