"""JobSet as a :class:`~kbatch.api.jobframework.GenericJob` (Kueue's ``jobset.x-k8s.io/jobset``
integration).

Semantics of kubernetes-sigs/kueue ``pkg/controller/jobs/jobset/jobset_controller.go``:

* one pod set per replicated job, named after it, of ``replicas x min(parallelism, completions)``
  pods (parallelism defaulting to 1), with a copy of its pod template; no partial admission;
* suspended / suspend: ``spec.suspend`` (the JobSet controller suspends and resumes the child Jobs,
  and merges the admitted pod template fields into them on resume);
* run: ``suspend: false`` and each pod set's info merged into its replicated job's pod template (node
  selector, labels, annotations, tolerations, scheduling gates; ``podset.Merge``,
  :func:`~kbatch.api.jobframework.merge_info`, refusing a conflicting key); the infos must be one
  per replicated job, in order;
* restore: each replicated job's pod template labels, annotations, node selector, tolerations and
  scheduling gates set back to its info's (``podset.RestorePodSpec``): the infos are the original pod
  sets' (Kueue's ``podset.FromPodSet``);
* finished: ``Completed`` (success) or ``Failed`` True, with the condition's message;
* active: a replicated job has an active Job; pods ready: every Job ready or succeeded
  (``replicatedJobsStatus``);
* priority class: the first replicated job's pod template that names one; ``spec.managedBy`` for
  MultiKueue; reclaimable pods: the pods of succeeded Jobs, per replicated job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kbatch.api import jobset_constants as c
from kbatch.api.core_v1 import PodTemplateSpec
from kbatch.api.jobframework import PodSet, PodSetInfo, TopologySource, merge_info, restore_template
from kbatch.api.jobset_v1alpha2 import JobSet, ReplicatedJob
from kbatch.api.model_copy import copy_model

__all__ = ["JobSetIntegration", "ReclaimablePod"]

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"  # batchv1.JobCompletionIndexAnnotation


class ReclaimablePod(NamedTuple):
    """Kueue ``ReclaimablePod``: ``count`` pods of pod set ``name`` that finished and free quota (a
    ``(name, count)`` pair, as the job framework's ``JobWithReclaimablePods`` reads it)."""

    name: str
    count: int  # type: ignore[assignment]  # Kueue's field name; it shadows tuple.count


def _per_replica(rjob: ReplicatedJob) -> int:
    spec = rjob.template.spec if rjob.template else None
    count = spec.parallelism if spec is not None and spec.parallelism is not None else 1
    completions = spec.completions if spec is not None and spec.completions is not None else count
    return min(count, completions)


def _replicas(rjob: ReplicatedJob) -> int:
    return rjob.replicas if rjob.replicas is not None else 1


def _pod_template(rjob: ReplicatedJob) -> PodTemplateSpec:
    assert rjob.template is not None  # the CRD requires it
    return rjob.template.spec.template


@dataclass(slots=True)
class JobSetIntegration:
    js: JobSet

    @property
    def object(self) -> JobSet:
        return self.js

    def _rjobs(self) -> list[ReplicatedJob]:
        return self.js.spec.replicated_jobs or []

    def is_suspended(self) -> bool:
        return bool(self.js.spec.suspend)

    def suspend(self) -> None:
        self.js.spec.suspend = True

    def pod_sets(self) -> list[PodSet]:
        """With TopologyAwareScheduling each pod set's topology request is read from its template's
        annotations, ranked by the completion index within the child Job
        (``batch.kubernetes.io/job-completion-index``) and the Job's index
        (``jobset.sigs.k8s.io/job-index``) among the replicated job's replicas (Kueue's
        ``JobSet.PodSets``: ``PodIndexLabel(..).SubGroup(JobIndexKey, replicas)``)."""
        return [
            PodSet(
                r.name or "",
                _replicas(r) * _per_replica(r),
                copy_model(_pod_template(r)),
                topology=TopologySource(
                    pod_index_label=COMPLETION_INDEX,
                    sub_group_index_label=c.JOB_INDEX_KEY,
                    sub_group_count=_replicas(r),
                ),
            )
            for r in self._rjobs()
        ]

    def run_with_pod_sets_info(self, infos: list[PodSetInfo]) -> None:
        rjobs = self._rjobs()
        self.js.spec.suspend = False
        if len(infos) != len(rjobs):
            raise ValueError(f"invalid podset infos: expecting {len(rjobs)} podset, got {len(infos)}")
        for rjob, info in zip(rjobs, infos, strict=True):
            merge_info(_pod_template(rjob), info)

    def restore_pod_sets_info(self, infos: list[PodSetInfo]) -> bool:
        if not infos:
            return False
        changed = False
        for rjob, info in zip(self._rjobs(), infos, strict=False):
            changed = restore_template(_pod_template(rjob), info) or changed
        return changed

    def finished(self) -> tuple[str, bool, bool]:
        status = self.js.status
        for type_, success in ((c.COMPLETED, True), (c.FAILED, False)):
            cond = status.condition(type_) if status else None
            if cond is not None and cond.status == "True":
                return cond.message or "", success, True
        return "", False, False

    def is_active(self) -> bool:
        status = self.js.status
        return any(s.active > 0 for s in (status.replicated_jobs_status if status else None) or ())

    def pods_ready(self) -> bool:
        status = self.js.status
        ready = sum(s.ready + s.succeeded for s in (status.replicated_jobs_status if status else None) or ())
        return sum(_replicas(r) for r in self._rjobs()) == ready

    def priority_class(self) -> str:
        for rjob in self._rjobs():
            name = _pod_template(rjob).spec.priority_class_name
            if name:
                return name
        return ""

    def managed_by(self) -> str | None:
        return self.js.spec.managed_by

    def set_managed_by(self, value: str | None) -> None:
        self.js.spec.managed_by = value

    def reclaimable_pods(self) -> list[ReclaimablePod]:
        """Kueue's ``JobWithReclaimablePods``: per replicated job with succeeded Jobs (no more than its
        replicas), the pods of those Jobs."""
        status = self.js.status
        succeeded = {s.name: s.succeeded for s in (status.replicated_jobs_status if status else None) or ()}
        out = []
        for rjob in self._rjobs():
            done = succeeded.get(rjob.name or "", 0)
            if 0 < done <= _replicas(rjob):
                out.append(ReclaimablePod(rjob.name or "", done * _per_replica(rjob)))
        return out

