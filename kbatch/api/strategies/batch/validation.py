"""batch/v1 Job spec validation: create and update (pkg/apis/batch/validation/validation.go).

Every Job feature gate is on (job-semantics.md "modern" behaviour: ElasticIndexedJob,
JobBackoffLimitPerIndex, JobSuccessPolicy, JobPodReplacementPolicy, JobManagedBy, JobPodFailurePolicy).
Each validator returns all its errors at once, with upstream's messages and field paths. Generic
object metadata (name format, labels, annotations) is the API server's job and is not repeated here.
The pod template itself is validated by the core strategies (``validate_pod_template_spec``) when
that module is present.

Known rendering difference: upstream prints structured bad values (selectors, templates, lists) with
Go's ``%#v``; kbatch prints them as JSON.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kbatch.api import batch_constants as bc
from kbatch.api.batch_indexes import IndexesError, count_indexes, parse_indexes
from kbatch.api.batch_v1 import (
    Job,
    JobSpec,
    JobTemplateSpec,
    PodFailurePolicyOnExitCodesRequirement,
    PodFailurePolicyOnPodConditionsPattern,
    PodFailurePolicyRule,
    SuccessPolicyRule,
)
from kbatch.api.core_v1 import PodTemplateSpec
from kbatch.api.errors import BadRequest, FieldError, FieldErrorType
from kbatch.api.gates import (
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS,
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS,
    gate_on,
    restart_all_allowed,
)
from kbatch.api.go_quote import go_quote_list
from kbatch.api.meta import LabelSelector, ObjectMeta
from kbatch.api.selectors import selector_from_model
from kbatch.api.strategies.batch.scheduling_validation import (
    validate_job_scheduling,
    validate_job_scheduling_update,
)
from kbatch.api.validation import (
    is_dns1123_label,
    is_qualified_name,
    validate_domain_prefixed_path,
    validate_label_selector,
)

if TYPE_CHECKING:
    from kbatch.api.features import FeatureGates

__all__ = [
    "Errors",
    "JobValidationOptions",
    "job_validation_options",
    "suspended_for_template_changes",
    "validate_job",
    "validate_job_spec",
    "validate_job_spec_update",
    "validate_job_template_spec",
    "validate_job_update",
]

Errors = list[FieldError]


# =============================================================================================
# Small helpers
# =============================================================================================


def _omitted(path: str, detail: str) -> FieldError:
    """``field.Invalid(path, field.OmitValueType{}, detail)``: rendered without a value."""
    return FieldError(FieldErrorType.INVALID, path, detail)


def _non_negative(value: int | None, path: str) -> Errors:
    """``ValidateNonnegativeField`` (pkg/apis/core/validation)."""
    if value is not None and value < 0:
        return [FieldError.invalid(path, value, "must be greater than or equal to 0")]
    return []


def _prune(value: Any) -> Any:
    """Drop ``None`` and empty maps/lists, recursively: upstream's semantic equality treats nil and
    empty maps and slices alike."""
    if isinstance(value, dict):
        pruned = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def _immutable(new: Any, old: Any, path: str) -> Errors:
    """``ValidateImmutableField`` (semantic equality)."""
    new_v = new.to_dict() if hasattr(new, "to_dict") else new
    old_v = old.to_dict() if hasattr(old, "to_dict") else old
    if _prune(new_v) == _prune(old_v):
        return []
    return [FieldError.invalid(path, new_v, "field is immutable")]


def _qualified_name_errors(value: str, path: str) -> Errors:
    """``ValidateQualifiedName`` (used for podFailurePolicy condition types)."""
    return [FieldError.invalid(path, value, msg) for msg in is_qualified_name(value)]


def _selector_matches(sel: LabelSelector | None, labels: dict[str, str] | None) -> bool | None:
    """Whether ``sel`` matches ``labels`` (a nil selector matches nothing, as upstream's
    ``LabelSelectorAsSelector``); ``None`` when the selector cannot be converted (upstream then skips
    the check, the selector's own errors being reported elsewhere)."""
    try:
        return selector_from_model(sel).matches(labels or {})
    except (BadRequest, ValueError):
        return None


# --- the pod template, owned by the core strategies ------------------------------------------


def _pod_template_errors(job_spec: JobSpec, path: str, old: PodTemplateSpec | None = None,
                         restart_all: bool = True) -> Errors:
    """``ValidatePodTemplateSpec`` from the core strategies, when available; on update (``old``, the
    stored template) with the pod validation options computed from it, as upstream's Job and CronJob
    strategies do (pkg/registry/batch/job/strategy.go ``validationOptionsForJob``,
    pkg/registry/batch/cronjob/strategy.go, both through ``GetValidationOptionsFromPodTemplate``);
    ``restart_all``: its ``AllowRestartAllContainers`` (:func:`kbatch.api.gates.restart_all_allowed`)."""
    try:
        from kbatch.api.strategies.core import validate_pod_template_spec  # type: ignore[import-not-found]
        from kbatch.api.strategies.core.pod_validation_options import STRICT, options_from_old
    except ImportError:
        return []
    if old is None:
        opts = STRICT
    else:
        opts = options_from_old(old.spec, old.metadata.annotations if old.metadata is not None else None)
    if not restart_all:
        opts = replace(opts, allow_restart_all_containers=False)
    return list(validate_pod_template_spec(job_spec.template, path, opts))


def _template_labels(spec: JobSpec) -> dict[str, str] | None:
    meta = spec.template.metadata
    return meta.labels if meta is not None else None


def _restart_policy(spec: JobSpec) -> str:
    pod = spec.template.spec
    return (getattr(pod, "restart_policy", None) or "") if pod is not None else ""


def _container_names(spec: JobSpec) -> set[str]:
    pod = spec.template.spec
    if pod is None:
        return set()
    containers = list(getattr(pod, "containers", None) or ()) + list(
        getattr(pod, "init_containers", None) or ()
    )
    return {c.name for c in containers}


# =============================================================================================
# Job spec validation (validation.go validateJobSpec and friends)
# =============================================================================================


@dataclass(frozen=True, slots=True)
class JobValidationOptions:
    """upstream ``JobValidationOptions`` (gates on: elastic Indexed Jobs always allowed)."""

    require_prefixed_labels: bool = True
    allow_mutable_scheduling_directives: bool = False
    allow_mutable_pod_resources: bool = False
    # the template's RestartAllContainers rule action (KEP-5532): the gate, or a stored template
    # already using it (``GetValidationOptionsFromPodTemplate``'s ``AllowRestartAllContainers``)
    allow_restart_all_containers: bool = True
    # the stored Job's pod template on update: its ``PodValidationOptions``
    # (``GetValidationOptionsFromPodTemplate``) relax the rules it already broke
    old_template: PodTemplateSpec | None = None


def job_validation_options(new: Job, old: Job | None = None,
                           gates: FeatureGates | None = None) -> JobValidationOptions:
    """``validationOptionsForJob``: prefixed labels are required unless an old Job lacked them; the
    template's scheduling directives and container resources are mutable while the stored Job is
    suspended (:func:`suspended_for_template_changes`); the RestartAllContainers action needs its
    gate or a stored template already using it."""
    if old is None:
        return JobValidationOptions(allow_restart_all_containers=restart_all_allowed(gates, None))
    old_labels = _template_labels(old.spec) or {}
    return JobValidationOptions(
        require_prefixed_labels=bc.JOB_NAME_LABEL in old_labels and bc.CONTROLLER_UID_LABEL in old_labels,
        allow_mutable_scheduling_directives=suspended_for_template_changes(
            old, safely=gate_on(gates, MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS)),
        allow_mutable_pod_resources=gate_on(gates, MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS)
        and suspended_for_template_changes(old, safely=True),
        allow_restart_all_containers=restart_all_allowed(gates, old.spec.template.spec),
        old_template=old.spec.template,
    )


def suspended_for_template_changes(old: Job, *, safely: bool) -> bool:
    """Whether the stored Job lets its template's scheduling directives (and, KEP-5440, its
    containers' resources) change.

    Before KEP-5440 (gates off): suspended and never started (no ``status.startTime``). With
    ``MutableSchedulingDirectivesForSuspendedJobs`` / ``MutablePodResourcesForSuspendedJobs`` (beta,
    on since 1.36): suspended with no active pod, and either never started or already marked
    ``Suspended=True`` by the Job controller, so no pod of the old template still runs (KEP-5440
    "Resuming on running workloads"; the never-started case is kubernetes#139287, the fix of the
    1.36 regression kubernetes#139281 that refused a new suspended Job before its condition)."""
    if not old.spec.suspend:
        return False
    status = old.status
    never_started = status is None or status.start_time is None
    if not safely:
        return never_started
    if status is not None and (status.active or 0) > 0:
        return False
    return never_started or (status is not None and status.is_true(bc.JOB_SUSPENDED))


def _validate_counts(spec: JobSpec, path: str) -> Errors:
    errs: Errors = []
    for name in (
        "parallelism",
        "completions",
        "active_deadline_seconds",
        "backoff_limit",
        "ttl_seconds_after_finished",
        "backoff_limit_per_index",
    ):
        camel = JobSpec.model_fields[name].alias or name
        errs += _non_negative(getattr(spec, name), f"{path}.{camel}")
    if spec.max_failed_indexes is not None:
        errs += _non_negative(spec.max_failed_indexes, f"{path}.maxFailedIndexes")
        if spec.backoff_limit_per_index is None:
            errs.append(
                FieldError.required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified")
            )
    if spec.managed_by is not None:
        errs += validate_domain_prefixed_path(spec.managed_by, f"{path}.managedBy")
        if len(spec.managed_by) > bc.MAX_MANAGED_BY_LENGTH:
            errs.append(FieldError.too_long(f"{path}.managedBy", bc.MAX_MANAGED_BY_LENGTH))
    return errs


def _validate_indexed(spec: JobSpec, path: str) -> Errors:
    """Rules that depend on ``completionMode`` (Indexed limits, per-index backoff)."""
    errs: Errors = []
    mode = spec.completion_mode
    if mode is not None and mode not in bc.COMPLETION_MODES:
        errs.append(FieldError.not_supported(f"{path}.completionMode", mode, list(bc.COMPLETION_MODES)))
    if mode == bc.COMPLETION_INDEXED:
        errs += _validate_indexed_limits(spec, path)
    if mode is None or mode == bc.COMPLETION_NON_INDEXED:
        if spec.backoff_limit_per_index is not None:
            errs.append(
                FieldError.invalid(
                    f"{path}.backoffLimitPerIndex",
                    spec.backoff_limit_per_index,
                    "requires indexed completion mode",
                )
            )
        if spec.max_failed_indexes is not None:
            errs.append(
                FieldError.invalid(
                    f"{path}.maxFailedIndexes", spec.max_failed_indexes, "requires indexed completion mode"
                )
            )
    return errs


def _validate_indexed_limits(spec: JobSpec, path: str) -> Errors:
    errs: Errors = []
    completions, parallelism, mfi = spec.completions, spec.parallelism, spec.max_failed_indexes
    if completions is None:
        errs.append(FieldError.required(f"{path}.completions", "when completion mode is Indexed"))
    if parallelism is not None and parallelism > bc.MAX_PARALLELISM_FOR_INDEXED_JOB:
        errs.append(
            FieldError.invalid(
                f"{path}.parallelism",
                parallelism,
                (
                    f"must be less than or equal to {bc.MAX_PARALLELISM_FOR_INDEXED_JOB} "
                    "when completion mode is Indexed"
                ),
            )
        )
    if completions is not None and mfi is not None and mfi > completions:
        errs.append(
            FieldError.invalid(f"{path}.maxFailedIndexes", mfi, "must be less than or equal to completions")
        )
    if mfi is not None and mfi > bc.MAX_FAILED_INDEXES_FOR_INDEXED_JOB:
        errs.append(
            FieldError.invalid(
                f"{path}.maxFailedIndexes",
                mfi,
                f"must be less than or equal to {bc.MAX_FAILED_INDEXES_FOR_INDEXED_JOB}",
            )
        )
    if (
        completions is not None
        and completions > bc.COMPLETIONS_SOFT_LIMIT
        and spec.backoff_limit_per_index is not None
    ):
        high = f"when completions are above {bc.COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
        if mfi is None:
            errs.append(
                FieldError.required(
                    f"{path}.maxFailedIndexes",
                    f"must be specified when completions is above {bc.COMPLETIONS_SOFT_LIMIT}",
                )
            )
        if parallelism is not None and parallelism > bc.PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS:
            errs.append(
                FieldError.invalid(
                    f"{path}.parallelism",
                    parallelism,
                    (f"must be less than or equal to {bc.PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {high}"),
                )
            )
        if mfi is not None and mfi > bc.MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS:
            errs.append(
                FieldError.invalid(
                    f"{path}.maxFailedIndexes",
                    mfi,
                    (
                        "must be less than or equal to "
                        f"{bc.MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {high}"
                    ),
                )
            )
    return errs


def _validate_pod_failure_policy(spec: JobSpec, path: str) -> Errors:
    assert spec.pod_failure_policy is not None
    rules = spec.pod_failure_policy.rules
    errs: Errors = []
    if len(rules) > bc.MAX_POD_FAILURE_POLICY_RULES:
        errs.append(FieldError.too_many(f"{path}.rules", len(rules), bc.MAX_POD_FAILURE_POLICY_RULES))
    names = _container_names(spec)
    for i, rule in enumerate(rules):
        errs += _validate_pfp_rule(spec, rule, f"{path}.rules[{i}]", names)
    return errs


def _validate_pfp_rule(spec: JobSpec, rule: PodFailurePolicyRule, path: str, names: set[str]) -> Errors:
    errs: Errors = []
    action_path = f"{path}.action"
    if not rule.action:
        errs.append(
            FieldError.required(action_path, f"valid values: {go_quote_list(bc.POD_FAILURE_ACTIONS)}")
        )
    elif rule.action == bc.POD_FAILURE_ACTION_FAIL_INDEX:
        if spec.backoff_limit_per_index is None:
            errs.append(
                FieldError.invalid(action_path, rule.action, "requires the backoffLimitPerIndex to be set")
            )
    elif rule.action not in bc.POD_FAILURE_ACTIONS:
        errs.append(FieldError.not_supported(action_path, rule.action, list(bc.POD_FAILURE_ACTIONS)))
    if rule.on_exit_codes is not None:
        errs += _validate_on_exit_codes(rule.on_exit_codes, f"{path}.onExitCodes", names)
    if rule.on_pod_conditions:
        errs += _validate_on_pod_conditions(rule.on_pod_conditions, f"{path}.onPodConditions")
    if rule.on_exit_codes is not None and rule.on_pod_conditions:
        errs.append(_omitted(path, "specifying both OnExitCodes and OnPodConditions is not supported"))
    if rule.on_exit_codes is None and not rule.on_pod_conditions:
        errs.append(_omitted(path, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _validate_on_pod_conditions(patterns: list[PodFailurePolicyOnPodConditionsPattern], path: str) -> Errors:
    errs: Errors = []
    if len(patterns) > bc.MAX_POD_FAILURE_POLICY_CONDITION_PATTERNS:
        errs.append(FieldError.too_many(path, len(patterns), bc.MAX_POD_FAILURE_POLICY_CONDITION_PATTERNS))
    for j, pattern in enumerate(patterns):
        errs += _qualified_name_errors(pattern.type or "", f"{path}[{j}].type")
        status_path = f"{path}[{j}].status"
        if not pattern.status:
            errs.append(
                FieldError.required(status_path, f"valid values: {go_quote_list(bc.CONDITION_STATUSES)}")
            )
        elif pattern.status not in bc.CONDITION_STATUSES:
            errs.append(FieldError.not_supported(status_path, pattern.status, list(bc.CONDITION_STATUSES)))
    return errs


def _validate_on_exit_codes(
    req: PodFailurePolicyOnExitCodesRequirement, path: str, names: set[str]
) -> Errors:
    errs: Errors = []
    if not req.operator:
        errs.append(
            FieldError.required(
                f"{path}.operator", f"valid values: {go_quote_list(bc.EXIT_CODES_OPERATORS)}"
            )
        )
    elif req.operator not in bc.EXIT_CODES_OPERATORS:
        errs.append(FieldError.not_supported(f"{path}.operator", req.operator, list(bc.EXIT_CODES_OPERATORS)))
    if req.container_name is not None and req.container_name not in names:
        errs.append(
            FieldError.invalid(
                f"{path}.containerName",
                req.container_name,
                "must be one of the container or initContainer names in the pod template",
            )
        )
    values = req.values or []
    if not values:
        errs.append(FieldError.invalid(f"{path}.values", values, "at least one value is required"))
    elif len(values) > bc.MAX_POD_FAILURE_POLICY_EXIT_CODES:
        errs.append(FieldError.too_many(f"{path}.values", len(values), bc.MAX_POD_FAILURE_POLICY_EXIT_CODES))
    seen: set[int] = set()
    for j, value in enumerate(values):
        if req.operator == bc.EXIT_CODES_OP_IN and value == 0:
            errs.append(FieldError.invalid(f"{path}.values[{j}]", value, "must not be 0 for the In operator"))
        if value in seen:
            errs.append(FieldError.duplicate(f"{path}.values[{j}]", value))
        seen.add(value)
    if any(a > b for a, b in itertools.pairwise(values)):
        errs.append(FieldError.invalid(f"{path}.values", values, "must be ordered"))
    return errs


def _validate_success_policy(spec: JobSpec, path: str) -> Errors:
    assert spec.success_policy is not None
    if spec.completion_mode != bc.COMPLETION_INDEXED:
        return [FieldError.invalid(path, spec.success_policy.to_dict(), "requires indexed completion mode")]
    rules = spec.success_policy.rules
    errs: Errors = []
    if not rules:
        errs.append(
            FieldError.required(
                f"{path}.rules", "at least one rules must be specified when the successPolicy is specified"
            )
        )
    if len(rules) > bc.MAX_SUCCESS_POLICY_RULES:
        errs.append(FieldError.too_many(f"{path}.rules", len(rules), bc.MAX_SUCCESS_POLICY_RULES))
    for i, rule in enumerate(rules):
        errs += _validate_success_rule(spec, rule, f"{path}.rules[{i}]")
    return errs


def _validate_success_rule(spec: JobSpec, rule: SuccessPolicyRule, path: str) -> Errors:
    errs: Errors = []
    completions = spec.completions if spec.completions is not None else 0  # nil is reported elsewhere
    if rule.succeeded_count is None and rule.succeeded_indexes is None:
        errs.append(
            FieldError.required(path, "at least one of succeededCount or succeededIndexes must be specified")
        )
    total = 0
    if rule.succeeded_indexes is not None:
        idx_path = f"{path}.succeededIndexes"
        if len(rule.succeeded_indexes) > bc.MAX_SUCCEEDED_INDEXES_LENGTH:
            errs.append(FieldError.too_long(idx_path, bc.MAX_SUCCEEDED_INDEXES_LENGTH))
        try:
            total = count_indexes(parse_indexes(rule.succeeded_indexes, completions))
        except IndexesError as err:
            errs.append(
                FieldError.invalid(idx_path, rule.succeeded_indexes, f"error parsing succeededIndexes: {err}")
            )
    if rule.succeeded_count is not None:
        count_path = f"{path}.succeededCount"
        errs += _non_negative(rule.succeeded_count, count_path)
        if rule.succeeded_count > completions:
            errs.append(
                FieldError.invalid(
                    count_path,
                    rule.succeeded_count,
                    (f"must be less than or equal to {completions} (the number of specified completions)"),
                )
            )
        if rule.succeeded_indexes is not None and rule.succeeded_count > total:
            errs.append(
                FieldError.invalid(
                    count_path,
                    rule.succeeded_count,
                    (
                        f"must be less than or equal to {total} "
                        "(the number of indexes in the specified succeededIndexes field)"
                    ),
                )
            )
    return errs


def _validate_pod_replacement_policy(spec: JobSpec, path: str) -> Errors:
    policy = spec.pod_replacement_policy
    if policy is None:
        return []
    if spec.pod_failure_policy is not None:
        if policy != bc.POD_REPLACEMENT_FAILED:
            return [FieldError.not_supported(path, policy, [bc.POD_REPLACEMENT_FAILED])]
        return []
    if policy not in bc.POD_REPLACEMENT_POLICIES:
        return [FieldError.not_supported(path, policy, list(bc.POD_REPLACEMENT_POLICIES))]
    return []


def _validate_restart_policy(spec: JobSpec, path: str) -> Errors:
    policy = _restart_policy(spec)
    rp_path = f"{path}.template.spec.restartPolicy"
    if policy in ("", bc.RESTART_POLICY_ALWAYS):
        return [FieldError.required(rp_path, 'valid values: "OnFailure", "Never"')]
    if policy not in (bc.RESTART_POLICY_ON_FAILURE, bc.RESTART_POLICY_NEVER):
        return [
            FieldError.not_supported(rp_path, policy, [bc.RESTART_POLICY_ON_FAILURE, bc.RESTART_POLICY_NEVER])
        ]
    if spec.pod_failure_policy is not None and policy != bc.RESTART_POLICY_NEVER:
        return [
            FieldError.invalid(
                rp_path, policy, 'only "Never" is supported when podFailurePolicy is specified'
            )
        ]
    return []


def _validate_job_spec_common(spec: JobSpec, path: str, old_template: PodTemplateSpec | None = None,
                              restart_all: bool = True) -> Errors:
    """Upstream's unexported ``validateJobSpec``: shared by Jobs and CronJob job templates."""
    errs = _validate_counts(spec, path) + _validate_indexed(spec, path)
    if spec.pod_failure_policy is not None:
        errs += _validate_pod_failure_policy(spec, f"{path}.podFailurePolicy")
    if spec.success_policy is not None:
        errs += _validate_success_policy(spec, f"{path}.successPolicy")
    errs += _validate_pod_replacement_policy(spec, f"{path}.podReplacementPolicy")
    errs += _pod_template_errors(spec, f"{path}.template", old_template, restart_all)
    errs += _validate_restart_policy(spec, path)
    return errs


def validate_job_spec(spec: JobSpec, path: str = "spec", old_template: PodTemplateSpec | None = None,
                      restart_all: bool = True) -> Errors:
    """``ValidateJobSpec``: the common rules plus a selector that matches the template labels;
    ``old_template`` is the stored Job's, on update; ``restart_all``: see :func:`_pod_template_errors`."""
    errs = _validate_job_spec_common(spec, path, old_template, restart_all)
    if spec.selector is None:
        errs.append(FieldError.required(f"{path}.selector"))
    else:
        errs += validate_label_selector(spec.selector, f"{path}.selector")
    labels = _template_labels(spec)
    if _selector_matches(spec.selector, labels) is False:
        errs.append(
            FieldError.invalid(
                f"{path}.template.metadata.labels",
                labels,  # upstream passes spec.Template.Labels: nil (absent) renders as null
                "`selector` does not match template `labels`",
            )
        )
    return errs


# =============================================================================================
# Job validation: create and update (ValidateJob, ValidateJobUpdate, ValidateJobSpecUpdate)
# =============================================================================================


def _has_label(meta: ObjectMeta | None, key: str, want: str) -> Errors:
    """``ValidateHasLabel`` on the template metadata."""
    labels = (meta.labels if meta is not None else None) or {}
    path = f"spec.template.metadata.labels[{key}]"
    if key not in labels:
        return [FieldError.required(path, f"must be '{want}'")]
    if labels[key] != want:
        return [FieldError.invalid(path, labels, f"must be '{want}'")]
    return []


def _validate_generated_selector(job: Job, require_prefixed: bool) -> Errors:
    """``validateGeneratedSelector``: the generated labels are on the template and selected."""
    spec = job.spec
    if spec.manual_selector or spec.selector is None:
        return []
    name, uid = job.metadata.name or "", job.metadata.uid or ""
    errs: Errors = [] if uid else [FieldError.required("metadata.uid")]
    meta = spec.template.metadata
    errs += _has_label(meta, bc.LEGACY_CONTROLLER_UID_LABEL, uid) + _has_label(
        meta, bc.LEGACY_JOB_NAME_LABEL, name
    )
    expected = {bc.LEGACY_CONTROLLER_UID_LABEL: uid, bc.LEGACY_JOB_NAME_LABEL: name}
    if require_prefixed:
        errs += _has_label(meta, bc.CONTROLLER_UID_LABEL, uid) + _has_label(meta, bc.JOB_NAME_LABEL, name)
        expected |= {bc.CONTROLLER_UID_LABEL: uid, bc.JOB_NAME_LABEL: name}
    if _selector_matches(spec.selector, expected) is False:
        errs.append(
            FieldError.invalid("spec.selector", spec.selector.to_dict(), "`selector` not auto-generated")
        )
    return errs


def validate_job(job: Job, opts: JobValidationOptions | None = None) -> Errors:
    """``ValidateJob`` (object metadata itself is checked by the API server)."""
    opts = opts or JobValidationOptions()
    errs = _validate_generated_selector(job, opts.require_prefixed_labels)
    errs += validate_job_spec(job.spec, old_template=opts.old_template,
                              restart_all=opts.allow_restart_all_containers)
    spec = job.spec
    if spec.scheduling is not None:
        errs += validate_job_scheduling(spec)
    if (
        spec.completion_mode == bc.COMPLETION_INDEXED
        and spec.completions is not None
        and spec.completions > 0
    ):
        # The controller names pod hostnames "<job>-<index>"; the largest must be a DNS label.
        hostname = f"{job.metadata.name or ''}-{spec.completions - 1}"
        if is_dns1123_label(hostname):
            errs.append(
                FieldError.invalid(
                    "metadata.name",
                    job.metadata.name or "",
                    f"will not able to create pod with invalid DNS label: {hostname}",
                )
            )
    return errs


def _relax_scheduling_directives(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """A copy of the old template whose mutable scheduling directives are taken from the new one:
    node affinity, nodeSelector, tolerations, schedulingGates, labels and annotations."""
    relaxed = {**old, "metadata": dict(old.get("metadata") or {}), "spec": dict(old.get("spec") or {})}
    new_meta, new_spec = new.get("metadata") or {}, new.get("spec") or {}
    for holder, source, keys in (
        (relaxed["metadata"], new_meta, ("labels", "annotations")),
        (relaxed["spec"], new_spec, ("nodeSelector", "tolerations", "schedulingGates")),
    ):
        for key in keys:
            holder.pop(key, None)
            if key in source:
                holder[key] = source[key]
    old_aff, new_aff = relaxed["spec"].pop("affinity", None), new_spec.get("affinity")
    if old_aff is not None or new_aff is not None:
        # Only nodeAffinity may change; the rest of the old affinity stays as it was.
        aff = {k: v for k, v in (old_aff or {}).items() if k != "nodeAffinity"}
        if new_aff is not None and "nodeAffinity" in new_aff:
            aff["nodeAffinity"] = new_aff["nodeAffinity"]
        relaxed["spec"]["affinity"] = aff
    return relaxed


def _relax_container_resources(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """A copy of the old template whose containers' and init containers' ``resources`` (requests,
    limits, claims) are the new one's, container by container (KEP-5440); the pod's
    ``resourceClaims`` and everything else stay as they were."""
    spec, new_spec = dict(old.get("spec") or {}), new.get("spec") or {}
    for key in ("containers", "initContainers"):
        olds, news = spec.get(key), new_spec.get(key) or []
        if not olds:
            continue
        relaxed = []
        for i, container in enumerate(olds):
            copy = {k: v for k, v in container.items() if k != "resources"}
            source = news[i] if i < len(news) else container
            if "resources" in source:
                copy["resources"] = source["resources"]
            relaxed.append(copy)
        spec[key] = relaxed
    return {**old, "spec": spec}


def _validate_template_update(new: JobSpec, old: JobSpec, opts: JobValidationOptions) -> Errors:
    """The template is immutable, except, while the Job is suspended, its scheduling directives
    and (KEP-5440) its containers' resources (``validatePodTemplateUpdate``)."""
    new_t, old_t = new.template.to_dict(), old.template.to_dict()
    if opts.allow_mutable_scheduling_directives:
        old_t = _relax_scheduling_directives(new_t, old_t)
    if opts.allow_mutable_pod_resources:
        old_t = _relax_container_resources(new_t, old_t)
    if _prune(new_t) == _prune(old_t):
        return []
    return [FieldError.invalid("spec.template", new_t, "field is immutable")]


def _validate_completions_update(new: JobSpec, old: JobSpec) -> Errors:
    """``validateCompletions``: Indexed Jobs may change completions together with parallelism."""
    if new.completion_mode != bc.COMPLETION_INDEXED:
        return _immutable(new.completions, old.completions, "spec.completions")
    if new.completions == old.completions or new.completions is None:
        return []
    if new.completions != new.parallelism:
        return [
            FieldError.invalid(
                "spec.completions", new.completions, "can only be modified in tandem with spec.parallelism"
            )
        ]
    return []


def validate_job_spec_update(new: JobSpec, old: JobSpec, opts: JobValidationOptions) -> Errors:
    """``ValidateJobSpecUpdate`` (which also re-validates the new spec)."""
    errs = validate_job_spec(new, old_template=opts.old_template,
                             restart_all=opts.allow_restart_all_containers)
    errs += _validate_completions_update(new, old)
    errs += _immutable(new.selector, old.selector, "spec.selector")
    errs += _validate_template_update(new, old, opts)
    errs += _immutable(new.completion_mode, old.completion_mode, "spec.completionMode")
    errs += _immutable(new.pod_failure_policy, old.pod_failure_policy, "spec.podFailurePolicy")
    errs += _immutable(new.backoff_limit_per_index, old.backoff_limit_per_index, "spec.backoffLimitPerIndex")
    errs += _immutable(new.managed_by, old.managed_by, "spec.managedBy")
    errs += _immutable(new.success_policy, old.success_policy, "spec.successPolicy")
    return errs


def _dedupe(errs: Errors) -> Errors:
    """Upstream runs the spec checks twice on update; its ``ToAggregate`` drops repeated messages."""
    seen: set[str] = set()
    return [e for e in errs if not (str(e) in seen or seen.add(str(e)))]  # type: ignore[func-returns-value]


def validate_job_update(new: Job, old: Job, gates: FeatureGates | None = None) -> Errors:
    """The strategy's ``ValidateUpdate``: ``ValidateJob`` plus ``ValidateJobUpdate``."""
    opts = job_validation_options(new, old, gates)
    errs = validate_job(new, opts) + validate_job_spec_update(new.spec, old.spec, opts)
    if new.spec.scheduling is not None or old.spec.scheduling is not None:
        errs += validate_job_scheduling_update(new.spec, old.spec)
    return _dedupe(errs)


def validate_job_template_spec(template: JobTemplateSpec, path: str, old: JobTemplateSpec | None = None,
                               restart_all: bool = True) -> Errors:
    """``ValidateJobTemplateSpec``: the common Job spec rules; the selector is always generated.
    ``old`` is the stored CronJob's job template, on update; ``restart_all``: see
    :func:`_pod_template_errors`."""
    spec = template.spec
    errs = _validate_job_spec_common(spec, f"{path}.spec", old.spec.template if old is not None else None,
                                     restart_all)
    if spec.selector is not None:
        errs.append(
            FieldError.invalid(
                f"{path}.spec.selector", spec.selector.to_dict(), "`selector` will be auto-generated"
            )
        )
    if spec.manual_selector:
        errs.append(FieldError.not_supported(f"{path}.spec.manualSelector", True, ["nil", "false"]))
    return errs
