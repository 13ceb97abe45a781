"""batch/v1 Job as a :class:`~kbatch.api.jobframework.GenericJob` (Kueue's ``batch/job`` integration).

Semantics of kubernetes-sigs/kueue ``pkg/controller/jobs/job/job_controller.go``: one pod set named
``main`` of ``parallelism`` pods (at most ``completions``); partial admission through the
``kueue.x-k8s.io/job-min-parallelism`` annotation (the pod set's ``min_count``) admits fewer pods by
lowering ``parallelism``; finished when Complete or Failed; active while any pod is; pods ready when
succeeded + ready pods reach the pod set's count.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.batch_v1 import Job
from kbatch.api.jobframework import PodSet, PodSetInfo, inject
from kbatch.api.model_copy import copy_model

__all__ = ["MIN_PARALLELISM", "ORIGINAL_PARALLELISM", "BatchJob"]

MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
# kbatch keeps a partially admitted Job's own parallelism here, to restore it on eviction (Kueue keeps
# it in the Workload's pod set count; the Job adapter alone has only the Job)
ORIGINAL_PARALLELISM = "kbatch.x-k8s.io/original-parallelism"


@dataclass(slots=True)
class BatchJob:
    job: Job

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
        text = (self.job.metadata.annotations or {}).get(MIN_PARALLELISM)
        try:
            value = int(text) if text is not None else None
        except ValueError:
            return None
        return value if value is not None and 0 < value < self._pods_count() else None

    def is_suspended(self) -> bool:
        return bool(self.job.spec.suspend)

    def suspend(self) -> None:
        self.job.spec.suspend = True

    def run_with_pod_sets_info(self, infos: list[PodSetInfo]) -> None:
        if len(infos) != 1:
            raise ValueError(f"a Job has one pod set, got {len(infos)} pod set infos")
        info = infos[0]
        spec = self.job.spec
        spec.suspend = False
        if self._min_count() is not None and info.count != self._pods_count():
            annotations = dict(self.job.metadata.annotations or {})
            annotations[ORIGINAL_PARALLELISM] = str(spec.parallelism if spec.parallelism is not None else 1)
            self.job.metadata.annotations = annotations
            spec.parallelism = info.count
        inject(spec.template, info)

    def restore_pod_sets_info(self, infos: list[PodSetInfo]) -> bool:
        """Restore ``parallelism`` after a partial admission; the template's injected node selector and
        tolerations are removed by restoring the template from ``infos`` (the original pod set)."""
        changed = False
        annotations = dict(self.job.metadata.annotations or {})
        original = annotations.pop(ORIGINAL_PARALLELISM, None)
        if original is not None:
            self.job.spec.parallelism = int(original)
            self.job.metadata.annotations = annotations or None
            changed = True
        if len(infos) == 1:
            before = copy_model(self.job.spec.template)
            spec = self.job.spec.template.spec
            spec.node_selector = dict(infos[0].node_selector) or None
            spec.tolerations = list(infos[0].tolerations) or None
            changed = changed or before != self.job.spec.template
        return changed

    def finished(self) -> tuple[str, bool, bool]:
        for condition in (self.job.status.conditions if self.job.status else None) or ():
            if condition.status != "True":
                continue
            if condition.type == "Complete":
                return condition.message or "Job finished successfully", True, True
            if condition.type == "Failed":
                return condition.message or "Job failed", False, True
        return "", False, False

    def pod_sets(self) -> list[PodSet]:
        return [PodSet("main", self._pods_count(), copy_model(self.job.spec.template), self._min_count())]

    def is_active(self) -> bool:
        return bool(self.job.status and self.job.status.active)

    def pods_ready(self) -> bool:
        status = self.job.status
        ready = (status.ready or 0) + (status.succeeded or 0) if status else 0
        return ready >= self._pods_count()

    def priority_class(self) -> str:
        return self.job.spec.template.spec.priority_class_name or ""

    def managed_by(self) -> str | None:
        return self.job.spec.managed_by

    def set_managed_by(self, value: str | None) -> None:
        self.job.spec.managed_by = value
