"""batch/v1: Job and CronJob with every field of the upstream API (k8s.io/api batch/v1 types.go).

Enum-like fields are plain ``str`` so that any value decodes and the strategy
(:mod:`kbatch.api.strategies.batch`) rejects bad ones with upstream's field errors; the allowed
values and the well-known label/annotation/condition names live in :mod:`kbatch.api.batch_constants`.
Optional scalars, and the enum-like strings Go serializes without ``omitempty``, are ``None`` when
absent, so a manifest round-trips unchanged (validation treats ``None`` like Go's empty value);
integers and booleans decode strictly, as Go's JSON decoder does; ``status`` is ``None`` when a
manifest has none (the API server stores ``status: {}`` for such objects, see
:mod:`kbatch.apiserver.empty_status`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1 import ObjectReference, PodTemplateSpec
from kbatch.api.gotypes import Bool, Int32, Int64  # Go's int32/int64/bool, decoded strictly
from kbatch.api.meta import LabelSelector, ObjectMeta, Resource
from kbatch.api.scheduling_v1beta1 import (
    DisruptionMode,
    PodGroupResourceClaim,
    PodGroupSchedulingConstraints,
    WorkloadPodGroupSchedulingPolicy,
)

if TYPE_CHECKING:
    pass

__all__ = [
    "CronJob",
    "CronJobSpec",
    "CronJobStatus",
    "Job",
    "JobCondition",
    "JobSchedulingConfiguration",
    "JobSpec",
    "JobStatus",
    "JobTemplateSpec",
    "PodFailurePolicy",
    "PodFailurePolicyOnExitCodesRequirement",
    "PodFailurePolicyOnPodConditionsPattern",
    "PodFailurePolicyRule",
    "SuccessPolicy",
    "SuccessPolicyRule",
    "UncountedTerminatedPods",
]



class PodFailurePolicyOnExitCodesRequirement(KubeModel):
    container_name: str | None = None
    operator: str | None = None  # In | NotIn
    values: list[Int32] | None = None


class PodFailurePolicyOnPodConditionsPattern(KubeModel):
    type: str | None = None
    status: str | None = None  # defaulted to "True"


class PodFailurePolicyRule(KubeModel):
    action: str | None = None  # FailJob | FailIndex | Ignore | Count
    on_exit_codes: PodFailurePolicyOnExitCodesRequirement | None = None
    on_pod_conditions: list[PodFailurePolicyOnPodConditionsPattern] | None = None


class PodFailurePolicy(KubeModel):
    rules: list[PodFailurePolicyRule] = Field(default_factory=list)


class SuccessPolicyRule(KubeModel):
    succeeded_indexes: str | None = None
    succeeded_count: Int32 | None = None


class SuccessPolicy(KubeModel):
    rules: list[SuccessPolicyRule] = Field(default_factory=list)


class JobSchedulingConfiguration(KubeModel):
    """``spec.scheduling`` (1.37, KEP-5547/KEP-6089, gate WorkloadWithJob): the Workload and PodGroup
    the Job controller compiles for the Job. Only ``schedulingPolicy.gang.minCount`` is mutable."""

    scheduling_policy: WorkloadPodGroupSchedulingPolicy | None = None
    scheduling_constraints: PodGroupSchedulingConstraints | None = None
    disruption_mode: DisruptionMode | None = None
    resource_claims: list[PodGroupResourceClaim] | None = None


class JobSpec(KubeModel):
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    active_deadline_seconds: Int64 | None = None
    pod_failure_policy: PodFailurePolicy | None = None
    success_policy: SuccessPolicy | None = None
    backoff_limit: Int32 | None = None
    backoff_limit_per_index: Int32 | None = None
    max_failed_indexes: Int32 | None = None
    selector: LabelSelector | None = None
    manual_selector: Bool | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    ttl_seconds_after_finished: Int32 | None = None
    completion_mode: str | None = None  # NonIndexed | Indexed
    suspend: Bool | None = None
    pod_replacement_policy: str | None = None  # TerminatingOrFailed | Failed
    managed_by: str | None = None
    scheduling: JobSchedulingConfiguration | None = None


class JobCondition(KubeModel):
    type: str
    status: str  # True | False | Unknown
    last_probe_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class UncountedTerminatedPods(KubeModel):
    succeeded: list[str] | None = None
    failed: list[str] | None = None


class JobStatus(KubeModel):
    conditions: list[JobCondition] | None = None
    start_time: Time | None = None
    completion_time: Time | None = None
    active: Int32 | None = None
    succeeded: Int32 | None = None
    failed: Int32 | None = None
    terminating: Int32 | None = None
    completed_indexes: str | None = None
    failed_indexes: str | None = None
    uncounted_terminated_pods: UncountedTerminatedPods | None = None
    ready: Int32 | None = None

    def condition(self, type_: str) -> JobCondition | None:
        """The condition of that type, if present."""
        return next((c for c in self.conditions or () if c.type == type_), None)

    def is_true(self, type_: str) -> bool:
        cond = self.condition(type_)
        return cond is not None and cond.status == "True"


class Job(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="batch", version="v1", kind="Job", plural="jobs", namespaced=True, singular="job",
        categories=("all",),
    )

    spec: JobSpec = Field(default_factory=JobSpec)
    status: JobStatus | None = None


class JobTemplateSpec(KubeModel):
    metadata: ObjectMeta | None = None
    spec: JobSpec = Field(default_factory=JobSpec)


class CronJobSpec(KubeModel):
    schedule: str = ""
    time_zone: str | None = None
    starting_deadline_seconds: Int64 | None = None
    concurrency_policy: str | None = None  # Allow | Forbid | Replace
    suspend: Bool | None = None
    job_template: JobTemplateSpec = Field(default_factory=JobTemplateSpec)
    successful_jobs_history_limit: Int32 | None = None
    failed_jobs_history_limit: Int32 | None = None


class CronJobStatus(KubeModel):
    active: list[ObjectReference] | None = None
    last_schedule_time: Time | None = None
    last_successful_time: Time | None = None


class CronJob(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="batch", version="v1", kind="CronJob", plural="cronjobs", namespaced=True,
        short_names=("cj",), singular="cronjob", categories=("all",),
    )

    spec: CronJobSpec = Field(default_factory=CronJobSpec)
    status: CronJobStatus | None = None
