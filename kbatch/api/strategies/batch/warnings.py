"""The ``Warning:`` texts kube-apiserver returns for a Job or CronJob write (it sends each as a
``Warning: 299`` header; kubectl prints them on stderr).

Upstream: pkg/registry/batch/job/strategy.go and pkg/registry/batch/cronjob/strategy.go
``WarningsOnCreate``/``WarningsOnUpdate``, pkg/api/job/warnings.go ``WarningsForJobSpec``. Run after
validation passed (k8s.io/apiserver ``rest.BeforeCreate``/``BeforeUpdate``). The pod template's
warnings ``WarningsForJobSpec`` delegates to (pkg/api/pod/warnings.go ``GetWarningsForPodTemplate``)
are :func:`kbatch.api.strategies.core.pod_warnings.pod_spec_warnings`.
"""

from __future__ import annotations

from kbatch.api import batch_constants as bc
from kbatch.api.batch_v1 import CronJob, Job, JobSpec
from kbatch.api.strategies.core.pod_warnings import pod_spec_warnings
from kbatch.api.validation import is_dns1123_label

__all__ = ["cronjob_warnings_on_create", "cronjob_warnings_on_update", "job_spec_warnings",
           "job_warnings_on_create", "job_warnings_on_update"]

# pkg/api/job/warnings.go: past these, an Indexed Job's completedIndexes may not be trackable
_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_SOFT_LIMIT = 10_000
_INDEXED_LIMITS = ("In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher "
                   "than 10^4, Kubernetes might not be able to track completedIndexes when a big number of "
                   "indexes fail")
_CRONJOB_DOCS = "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/"
_TZ_PATH = "spec.spec.schedule"  # sic: upstream's field.NewPath("spec", "spec", "schedule")


def _name_warnings(name: str) -> list[str]:
    """A name that is no DNS-1123 label ends up in Pod names and hostnames (the Go ``%v`` of the
    messages: ``[a b]``)."""
    msgs = is_dns1123_label(name)
    if not msgs:
        return []
    return ["metadata.name: this is used in Pod names and hostnames, which can result in surprising "
            f"behavior; a DNS label is recommended: [{' '.join(msgs)}]"]


def job_spec_warnings(spec: JobSpec, path: str) -> list[str]:
    """``WarningsForJobSpec``: the Indexed Job limits, then the pod template's warnings."""
    warnings = []
    if spec.completion_mode == bc.COMPLETION_INDEXED:
        completions, parallelism = spec.completions or 0, spec.parallelism or 0
        if completions > _COMPLETIONS_SOFT_LIMIT and parallelism > _PARALLELISM_SOFT_LIMIT:
            warnings.append(f"{path}: {_INDEXED_LIMITS}")
    template = spec.template
    meta = template.metadata
    return warnings + pod_spec_warnings(template.spec, meta.annotations if meta is not None else None,
                                        f"{path}.template")


def job_warnings_on_create(job: Job) -> list[str]:
    return _name_warnings(job.metadata.name or "") + job_spec_warnings(job.spec, "spec")


def job_warnings_on_update(new: Job, old: Job) -> list[str]:
    """Only a write that changed the spec (a new generation) is warned about."""
    if new.metadata.generation == old.metadata.generation:
        return []
    return job_spec_warnings(new.spec, "spec")


def cronjob_warnings_on_create(cronjob: CronJob) -> list[str]:
    return (_name_warnings(cronjob.metadata.name or "")
            + job_spec_warnings(cronjob.spec.job_template.spec, "spec.jobTemplate.spec"))


def cronjob_warnings_on_update(new: CronJob, old: CronJob) -> list[str]:
    """The spec warnings for a new generation, and ``TZ`` in the schedule (allowed on update only when
    the stored schedule has it already; a create with it is refused)."""
    warnings = []
    if new.metadata.generation != old.metadata.generation:
        warnings += job_spec_warnings(new.spec.job_template.spec, "spec.jobTemplate.spec")
    if "TZ" in (new.spec.schedule or ""):
        warnings.append(f"cannot use TZ or CRON_TZ in {_TZ_PATH}, use timeZone instead, see "
                        f"{_CRONJOB_DOCS} for more details")
    return warnings
