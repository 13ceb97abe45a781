"""jobset.x-k8s.io/v1alpha2 JobSet, every field of kubernetes-sigs/jobset v0.12.0
(``api/jobset/v1alpha2/jobset_types.go``).

A JobSet runs ``replicatedJobs[i].replicas`` batch/v1 Jobs from each replicated job's template, as
one workload: one success and one failure policy for all of them, restarts of the whole set (or of
one Job), ordered startup, a headless Service for pod DNS names. Upstream serves it from a
CustomResourceDefinition; kbatch serves it as a built-in kind with the CRD's schema rules
(:mod:`kbatch.api.strategies.jobset`).

As in the other kbatch models, enum-like fields are plain ``str`` (validation reports bad values with
the CRD's messages), optional scalars are ``None`` when absent, and the status counters Go always
serializes (``restarts``, the replicated jobs' counts) are plain ints. ``volumeClaimPolicies``
templates are whole PersistentVolumeClaims on the wire (``corev1.PersistentVolumeClaim``), kept here
as :class:`ClaimTemplate` so a manifest round-trips without a filled-in ``apiVersion``/``kind``.
Well-known names (labels, reasons, enums): :mod:`kbatch.api.jobset_constants`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.batch_v1 import JobTemplateSpec
from kbatch.api.core_v1.claim import PersistentVolumeClaimSpec, PersistentVolumeClaimStatus
from kbatch.api.crd_absent import reject_absent
from kbatch.api.gotypes import Bool, Int32, Int64  # Go's scalar types, decoded strictly
from kbatch.api.meta import Condition, ObjectMeta, Resource

__all__ = [
    "ClaimTemplate",
    "Coordinator",
    "DependsOn",
    "FailurePolicy",
    "FailurePolicyRule",
    "JobSet",
    "JobSetSpec",
    "JobSetStatus",
    "Network",
    "ReplicatedJob",
    "ReplicatedJobStatus",
    "StartupPolicy",
    "SuccessPolicy",
    "VolumeClaimPolicy",
    "VolumeRetentionPolicy",
]


class DependsOn(KubeModel):
    name: str | None = None
    status: str | None = None  # Ready | Complete


class ReplicatedJob(KubeModel):
    name: str | None = None
    group_name: str | None = None  # CRD default "default"
    template: JobTemplateSpec | None = None
    replicas: Int32 | None = None  # CRD default 1
    depends_on: list[DependsOn] | None = None


class Network(KubeModel):
    enable_dns_hostnames: Bool | None = Field(default=None, alias="enableDNSHostnames")
    subdomain: str | None = None
    publish_not_ready_addresses: Bool | None = None


class SuccessPolicy(KubeModel):
    operator: str | None = None  # All | Any
    target_replicated_jobs: list[str] | None = None


class FailurePolicyRule(KubeModel):
    name: str | None = None
    action: str | None = None
    on_job_failure_reasons: list[str] | None = None
    on_job_failure_message_patterns: list[str] | None = None
    target_replicated_jobs: list[str] | None = None


class FailurePolicy(KubeModel):
    max_restarts: Int32 | None = None
    restart_strategy: str | None = None  # CRD default Recreate
    rules: list[FailurePolicyRule] | None = None


class StartupPolicy(KubeModel):
    startup_policy_order: str | None = None  # AnyOrder | InOrder


class Coordinator(KubeModel):
    replicated_job: str | None = None
    job_index: Int64 | None = None
    pod_index: Int64 | None = None


class ClaimTemplate(KubeModel):
    """A ``corev1.PersistentVolumeClaim`` used as a template (its ``status`` is ignored)."""

    api_version: str | None = None
    kind: str | None = None
    metadata: ObjectMeta | None = None
    spec: PersistentVolumeClaimSpec | None = None
    status: PersistentVolumeClaimStatus | None = None


class VolumeRetentionPolicy(KubeModel):
    when_deleted: str | None = None  # Delete | Retain (CRD default Delete)


class VolumeClaimPolicy(KubeModel):
    templates: list[ClaimTemplate] | None = None
    retention_policy: VolumeRetentionPolicy | None = None


class JobSetSpec(KubeModel):
    replicated_jobs: list[ReplicatedJob] | None = None
    network: Network | None = None
    success_policy: SuccessPolicy | None = None
    failure_policy: FailurePolicy | None = None
    startup_policy: StartupPolicy | None = None
    suspend: Bool | None = None
    coordinator: Coordinator | None = None
    managed_by: str | None = None
    ttl_seconds_after_finished: Int32 | None = None
    volume_claim_policies: list[VolumeClaimPolicy] | None = None


class ReplicatedJobStatus(KubeModel):
    name: str = ""
    ready: Int32 = 0
    succeeded: Int32 = 0
    failed: Int32 = 0
    active: Int32 = 0
    suspended: Int32 = 0
    job_restarts: list[Int32] | None = None
    job_restarts_count_towards_max: list[Int32] | None = None


class JobSetStatus(KubeModel):
    conditions: list[Condition] | None = None
    restarts: Int32 = 0
    restarts_count_towards_max: Int32 | None = None
    terminal_state: str | None = None
    replicated_jobs_status: list[ReplicatedJobStatus] | None = None
    previous_in_place_restart_attempt: Int32 | None = None
    current_in_place_restart_attempt: Int32 | None = None

    def condition(self, type_: str) -> Condition | None:
        return next((c for c in self.conditions or () if c.type == type_), None)

    def is_true(self, type_: str) -> bool:
        cond = self.condition(type_)
        return cond is not None and cond.status == "True"


class JobSet(Resource):
    # The CRD (config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml) declares no short names
    # and no categories.
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="jobset.x-k8s.io", version="v1alpha2", kind="JobSet", plural="jobsets", namespaced=True,
        singular="jobset",
    )

    # Kubernetes 1.37's Job ``spec.scheduling`` is not in v0.12's CRD (its replicatedJobs[].template
    # is the JobSpec of the Kubernetes it was built with): a real API server refuses it (Strict) or
    # drops it (Warn, Ignore).
    # Its embedded metadata (the Job, pod and claim templates') keeps only name, namespace, labels,
    # annotations and finalizers.
    crd_absent: ClassVar[tuple[str, ...]] = (
        "spec.replicatedJobs[].template.spec.scheduling",
        "spec.replicatedJobs[].template.metadata.*",
        "spec.replicatedJobs[].template.spec.template.metadata.*",
        "spec.volumeClaimPolicies[].templates[].metadata.*",
    )

    spec: JobSetSpec = Field(default_factory=JobSetSpec)
    status: JobSetStatus | None = None

    @model_validator(mode="before")
    @classmethod
    def _not_in_the_crd(cls, data: Any) -> Any:
        return reject_absent(data, cls.__name__, cls.crd_absent)
