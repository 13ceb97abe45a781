"""batch/v1 Job as a :class:`~kbatch.api.jobframework.GenericJob` (Kueue's ``batch/job`` integration).

Semantics of kubernetes-sigs/kueue ``pkg/controller/jobs/job/job_controller.go`` (v0.19.2):

* one pod set named ``main`` of ``min(parallelism, completions)`` pods, its template without the
  Job controller's legacy labels (``job-name``, ``controller-uid``, ``batch.kubernetes.io/controller-uid``);
  partial admission through the ``kueue.x-k8s.io/job-min-parallelism`` annotation (the pod set's
  ``minCount``);
* suspended while ``spec.suspend`` is true and the ``kueue.x-k8s.io/stopping`` annotation is absent;
* run: unsuspend, with partial admission set ``parallelism`` to the admitted count (and
  ``completions`` too when ``kueue.x-k8s.io/job-completions-equal-parallelism`` is true), merge the
  admission's node selector, tolerations, labels and annotations into the template;
* stop (``JobWithCustomStop``): suspend and mark ``stopping``, clear ``status.startTime``, then
  restore the template (and ``parallelism``) from the Workload's pod sets and drop the mark;
* reclaimable pods: of a Job with ``parallelism > 1``, the pods no longer needed once fewer than
  ``parallelism`` completions remain (succeeded pods; completed and failed indexes for an Indexed Job);
* finished when Complete or Failed; active while pods run; pods ready when succeeded + ready + uncounted
  succeeded pods reach the pod set's count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from kbatch.api.batch_v1 import Job
from kbatch.api.go_bool import parse_bool
from kbatch.api.go_int import int32, parse_int
from kbatch.api.jobframework import PodSet, PodSetInfo, PodSetInfoError, merge_info, restore_template
from kbatch.api.model_copy import copy_model

__all__ = ["COMPLETIONS_EQUAL_PARALLELISM", "MIN_PARALLELISM", "STOPPING", "BatchJob"]

MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
COMPLETIONS_EQUAL_PARALLELISM = "kueue.x-k8s.io/job-completions-equal-parallelism"
STOPPING = "kueue.x-k8s.io/stopping"
_MANAGED_LABELS = (
    "job-name",
    "controller-uid",
    "batch.kubernetes.io/job-name",
    "batch.kubernetes.io/controller-uid",
)


@dataclass(slots=True)
class BatchJob:
    job: Job
    # the label whose value is a pod's rank for the TopologyUngater (job_controller.go ``PodSets``)
    tas_pod_index_label: ClassVar[str] = "batch.kubernetes.io/job-completion-index"

    @property
    def object(self) -> Job:
        return self.job

    def _pods_count(self) -> int:
        spec = self.job.spec
        count = spec.parallelism if spec.parallelism is not None else 1
        if spec.completions is not None and spec.completions < count:
            count = spec.completions
        return count

    def _min_count(self) -> int | None:
        # upstream strconv.Atoi then int32() (pkg/controller/jobs/job/job_controller.go minPodsCount)
        text = (self.job.metadata.annotations or {}).get(MIN_PARALLELISM)
        value = parse_int(text) if text is not None else None
        return int32(value) if value is not None else None

    def _sync_completions(self) -> bool:
        return bool(parse_bool((self.job.metadata.annotations or {}).get(COMPLETIONS_EQUAL_PARALLELISM)))

    def is_suspended(self) -> bool:
        return bool(self.job.spec.suspend) and (self.job.metadata.annotations or {}).get(STOPPING) != "true"

    def suspend(self) -> None:
        self.job.spec.suspend = True

    def run_with_pod_sets_info(self, infos: list[PodSetInfo]) -> None:
        spec = self.job.spec
        spec.suspend = False
        if len(infos) != 1:
            raise PodSetInfoError(f"invalid podset infos: expecting 1 podset, got {len(infos)}")
        info = infos[0]
        if self._min_count() is not None:
            spec.parallelism = info.count
            if self._sync_completions():
                spec.completions = spec.parallelism
        merge_info(spec.template, info)

    def restore_pod_sets_info(self, infos: list[PodSetInfo]) -> bool:
        if not infos:
            return False
        spec = self.job.spec
        changed = False
        info = infos[0]
        if self._min_count() is not None and (spec.parallelism or 0) != info.count:
            spec.parallelism = info.count
            if self._sync_completions():
                spec.completions = spec.parallelism
            changed = True
        labels = dict(info.labels)
        have = (spec.template.metadata.labels if spec.template.metadata else None) or {}
        for key in _MANAGED_LABELS:
            if key in have:
                labels[key] = have[key]
        restored = PodSetInfo(
            info.name,
            info.count,
            info.node_selector,
            info.tolerations,
            labels,
            info.annotations,
            info.scheduling_gates,
        )
        return restore_template(spec.template, restored) or changed

    def stop(self, client: Any, infos: list[PodSetInfo]) -> bool:
        """``Job.Stop``: three writes, as upstream, so the Job controller sees a suspended Job with
        ``startTime`` reset before the template changes (it refuses template changes otherwise)."""
        job = self.job
        stopped_now = False
        if not self.is_suspended():
            job.spec.suspend = True
            job.metadata.annotations = {**(job.metadata.annotations or {}), STOPPING: "true"}
            job = client.update(job)
            stopped_now = True
        if job.status is not None and job.status.start_time is not None:
            job = client.update_status(
                job.model_copy(update={"status": job.status.model_copy(update={"start_time": None})})
            )
        job = copy_model(job)
        self.job = job
        self.restore_pod_sets_info(infos)
        annotations = dict(job.metadata.annotations or {})
        annotations.pop(STOPPING, None)
        job.metadata.annotations = annotations or None
        self.job = client.update(job)
        return stopped_now

    def finished(self) -> tuple[str, bool, bool]:
        for condition in (self.job.status.conditions if self.job.status else None) or ():
            if condition.type in ("Complete", "Failed") and condition.status == "True":
                return condition.message or "", condition.type != "Failed", True
        return "", True, False

    def pod_sets(self) -> list[PodSet]:
        template = copy_model(self.job.spec.template)
        meta = template.metadata
        if meta is not None and meta.labels:
            labels = {
                k: v
                for k, v in meta.labels.items()
                if k == "batch.kubernetes.io/job-name" or k not in _MANAGED_LABELS
            }
            meta.labels = labels or None
        return [PodSet("main", self._pods_count(), template, self._min_count())]

    def is_active(self) -> bool:
        return bool(self.job.status and self.job.status.active)

    def pods_ready(self) -> bool:
        status = self.job.status
        if status is None:
            return self._pods_count() <= 0
        uncounted = (
            len(status.uncounted_terminated_pods.succeeded or ())
            if status.uncounted_terminated_pods is not None
            else 0
        )
        return (status.succeeded or 0) + (status.ready or 0) + uncounted >= self._pods_count()

    def reclaimable_pods(self) -> list[tuple[str, int]]:
        spec, status = self.job.spec, self.job.status
        parallelism = spec.parallelism if spec.parallelism is not None else 1
        completions = spec.completions if spec.completions is not None else parallelism
        terminal = (status.succeeded or 0) if status else 0
        if spec.completion_mode == "Indexed":
            terminal = _terminal_indexes(
                status.completed_indexes if status else None,
                status.failed_indexes if status else None,
                completions,
            )
        reclaimable = 0
        if parallelism > 1 and terminal > 0:
            remaining = max(completions - terminal, 0)
            if remaining < parallelism:
                reclaimable = parallelism - remaining
        return [("main", reclaimable)] if reclaimable else []

    def priority_class(self) -> str:
        return self.job.spec.template.spec.priority_class_name or ""

    def managed_by(self) -> str | None:
        return self.job.spec.managed_by

    def set_managed_by(self, value: str | None) -> None:
        self.job.spec.managed_by = value


def _terminal_indexes(completed: str | None, failed: str | None, completions: int) -> int:
    """``terminalIndexesCount``: the distinct indexes below ``completions`` in both lists."""
    if completions <= 0:
        return 0
    seen: set[int] = set()
    for text in (completed, failed):
        for part in (text or "").split(","):
            if not part:
                continue
            first_s, _, last_s = part.partition("-")
            try:
                first = int(first_s)
                last = int(last_s) if last_s else first
            except ValueError:
                continue
            if last < first:
                continue
            seen.update(range(first, min(last, completions - 1) + 1))
    return len(seen)
