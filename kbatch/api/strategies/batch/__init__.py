"""batch/v1 strategies: Job and CronJob defaulting, preparation and validation hooks.

Upstream sources (semantics only; the code is kbatch's own):

- defaulting: pkg/apis/batch/v1/defaults.go (``SetDefaults_Job``, ``SetDefaults_CronJob``,
  ``SetDefaults_PodFailurePolicyOnPodConditionsPattern``) plus the core pod defaults that upstream's
  generated defaulters apply to the pod template;
- preparation: pkg/registry/batch/job/strategy.go (``PrepareForCreate``, ``generateSelector``) and
  pkg/registry/batch/cronjob/strategy.go;
- validation: :mod:`.validation` (Job spec), :mod:`.status_validation` (Job status),
  :mod:`.cronjob_validation` (CronJob).

The API server runs ``default`` -> ``prepare_for_create`` (``metadata.uid`` already assigned) ->
``validate`` on create, and ``default`` -> ``prepare_for_update`` -> ``validate_update`` alone on
update (``update_revalidates`` is off: upstream's ``ValidateUpdate`` is a whole validation against
the old object); status writes go through ``validate_status_update``.
"""

from __future__ import annotations

from kbatch.api import batch_constants as bc
from kbatch.api.batch_v1 import CronJob, Job, JobSpec
from kbatch.api.errors import FieldError
from kbatch.api.gates import drop_disabled_job_fields, restart_all_allowed
from kbatch.api.meta import LabelSelector, ObjectMeta
from kbatch.api.strategies.batch.cronjob_validation import validate_cronjob, validate_cronjob_update
from kbatch.api.strategies.batch.status_validation import validate_job_status_update
from kbatch.api.strategies.batch.validation import (
    _template_labels,
    job_validation_options,
    validate_job,
    validate_job_update,
)
from kbatch.api.strategies.batch.warnings import (
    cronjob_warnings_on_create,
    cronjob_warnings_on_update,
    job_warnings_on_create,
    job_warnings_on_update,
)
from kbatch.api.strategies.core import default_pod_spec
from kbatch.api.strategy import DefaultStrategy, GateBound

__all__ = [
    "CronJobStrategy",
    "JobStrategy",
    "default_cronjob",
    "default_job",
    "generate_selector",
]


def _default_pod_template(job_spec: JobSpec) -> None:
    """Core pod defaults on the template (upstream's generated defaulters do this for Jobs too)."""
    if job_spec.template.spec is not None:
        default_pod_spec(job_spec.template.spec)


# =============================================================================================
# Defaulting (pkg/apis/batch/v1/defaults.go)
# =============================================================================================


def _default_pod_failure_patterns(spec: JobSpec) -> None:
    """``SetDefaults_PodFailurePolicyOnPodConditionsPattern``: status defaults to "True"."""
    for rule in spec.pod_failure_policy.rules if spec.pod_failure_policy else ():
        for pattern in rule.on_pod_conditions or ():
            if not pattern.status:
                pattern.status = bc.CONDITION_TRUE


def default_job(job: Job) -> None:
    """``SetDefaults_Job`` (modern gates), in place."""
    spec = job.spec
    if spec.completions is None and spec.parallelism is None:
        spec.completions = 1
        spec.parallelism = 1
    if spec.parallelism is None:
        spec.parallelism = 1
    if spec.backoff_limit is None:
        spec.backoff_limit = (
            bc.MAX_INT32 if spec.backoff_limit_per_index is not None else bc.DEFAULT_BACKOFF_LIMIT
        )
    template_labels = _template_labels(spec)
    if template_labels and not job.metadata.labels:  # an empty map is omitted on the wire anyway
        job.metadata.labels = dict(template_labels)
    if spec.completion_mode is None:
        spec.completion_mode = bc.COMPLETION_NON_INDEXED
    if spec.suspend is None:
        spec.suspend = False
    if spec.pod_replacement_policy is None:
        spec.pod_replacement_policy = (
            bc.POD_REPLACEMENT_FAILED
            if spec.pod_failure_policy is not None
            else bc.POD_REPLACEMENT_TERMINATING_OR_FAILED
        )
    if spec.manual_selector is None:
        spec.manual_selector = False
    _default_pod_failure_patterns(spec)
    _default_pod_template(spec)


def default_cronjob(cronjob: CronJob) -> None:
    """``SetDefaults_CronJob``; the job template gets only the nested-type defaults (pod spec and
    podFailurePolicy patterns), not ``SetDefaults_Job``, exactly as upstream's generated defaulter."""
    spec = cronjob.spec
    if not spec.concurrency_policy:
        spec.concurrency_policy = bc.CONCURRENCY_ALLOW
    if spec.suspend is None:
        spec.suspend = False
    if spec.successful_jobs_history_limit is None:
        spec.successful_jobs_history_limit = bc.DEFAULT_SUCCESSFUL_JOBS_HISTORY_LIMIT
    if spec.failed_jobs_history_limit is None:
        spec.failed_jobs_history_limit = bc.DEFAULT_FAILED_JOBS_HISTORY_LIMIT
    _default_pod_failure_patterns(spec.job_template.spec)
    _default_pod_template(spec.job_template.spec)


# =============================================================================================
# Selector generation (pkg/registry/batch/job/strategy.go generateSelector)
# =============================================================================================


def generate_selector(job: Job) -> None:
    """Add the job-name/controller-uid labels to the template (only those absent) and select on
    ``batch.kubernetes.io/controller-uid``. Conflicting user values are left for validation.

    Upstream's defaulter aliases the Job's (empty) labels to the template's label map, and re-runs
    on every read, so such a Job ends up carrying the generated labels too; kbatch copies them
    once here. (Difference: a Job whose labels were set explicitly equal to the template's also
    receives the generated labels.)
    """
    template = job.spec.template
    if template.metadata is None:
        template.metadata = ObjectMeta()
    before = dict(template.metadata.labels or {})
    labels = dict(before)
    name, uid = job.metadata.name or "", job.metadata.uid or ""
    for key in (bc.LEGACY_JOB_NAME_LABEL, bc.JOB_NAME_LABEL):
        labels.setdefault(key, name)
    for key in (bc.LEGACY_CONTROLLER_UID_LABEL, bc.CONTROLLER_UID_LABEL):
        labels.setdefault(key, uid)
    template.metadata.labels = labels
    if job.spec.selector is None:
        job.spec.selector = LabelSelector()
    match = dict(job.spec.selector.match_labels or {})
    match.setdefault(bc.CONTROLLER_UID_LABEL, uid)
    job.spec.selector.match_labels = match
    if not job.metadata.labels or job.metadata.labels == before:
        job.metadata.labels = dict(labels)


# =============================================================================================
# Strategies
# =============================================================================================


class JobStrategy(GateBound, DefaultStrategy):
    """pkg/registry/batch/job/strategy.go: the Job's create/update/status hooks. ``ValidateUpdate``
    is ``ValidateJob`` with the options derived from the old Job plus ``ValidateJobUpdate``
    (:func:`validate_job_update`), not the create options."""

    update_revalidates = False

    def default(self, obj: Job) -> None:  # type: ignore[override]
        default_job(obj)

    def prepare_for_create(self, obj: Job) -> None:  # type: ignore[override]
        """Clears status, sets generation 1 and, unless ``manualSelector``, generates the selector
        and template labels from ``metadata.uid`` (assigned by the API server beforehand); drops the
        fields of disabled features (``spec.scheduling``, the template's ``schedulingGroup``)."""
        if not obj.spec.manual_selector:
            generate_selector(obj)
        obj.status = None
        obj.metadata.generation = 1
        drop_disabled_job_fields(obj.spec, None, self.gates)

    def prepare_for_update(self, new: Job, old: Job) -> None:  # type: ignore[override]
        super().prepare_for_update(new, old)
        drop_disabled_job_fields(new.spec, old.spec, self.gates)

    def validate(self, obj: Job) -> list[FieldError]:  # type: ignore[override]
        return validate_job(obj, job_validation_options(obj, None, self.gates))

    def validate_update(self, new: Job, old: Job) -> list[FieldError]:  # type: ignore[override]
        return validate_job_update(new, old, self.gates)

    def validate_status_update(self, new: Job, old: Job) -> list[FieldError]:  # type: ignore[override]
        return validate_job_status_update(new, old)

    def warnings_on_create(self, obj: Job) -> list[str]:  # type: ignore[override]
        return job_warnings_on_create(obj)

    def warnings_on_update(self, new: Job, old: Job) -> list[str]:  # type: ignore[override]
        return job_warnings_on_update(new, old)


class CronJobStrategy(GateBound, DefaultStrategy):
    """pkg/registry/batch/cronjob/strategy.go. ``ValidateUpdate`` is ``ValidateCronJobUpdate``
    alone: the create rules (name length, no ``TZ=`` schedule, a known time zone) do not bind an
    object an older server stored unless the update changes what they check."""

    update_revalidates = False

    def default(self, obj: CronJob) -> None:  # type: ignore[override]
        default_cronjob(obj)

    def prepare_for_create(self, obj: CronJob) -> None:  # type: ignore[override]
        obj.status = None
        obj.metadata.generation = 1

    def validate(self, obj: CronJob) -> list[FieldError]:  # type: ignore[override]
        return validate_cronjob(obj, restart_all_allowed(self.gates, None))

    def validate_update(self, new: CronJob, old: CronJob) -> list[FieldError]:  # type: ignore[override]
        stored = old.spec.job_template.spec.template.spec
        return validate_cronjob_update(new, old, restart_all_allowed(self.gates, stored))

    def warnings_on_create(self, obj: CronJob) -> list[str]:  # type: ignore[override]
        return cronjob_warnings_on_create(obj)

    def warnings_on_update(self, new: CronJob, old: CronJob) -> list[str]:  # type: ignore[override]
        return cronjob_warnings_on_update(new, old)
