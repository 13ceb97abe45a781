"""The Pod models a Job creates, built by copying its first one (the controller's edge).

Upstream ``GetPodFromTemplate`` (pkg/controller/controller_utils.go) deep-copies ``spec.template``
for every pod; the Indexed Job then sets the index in the pod (indexed_job_utils.go
``addCompletionIndexAnnotation``/``addCompletionIndexLabel``, ``podGenerateNameWithIndex``, the
hostname). :func:`kbatch.controllers.job.pod_template.build_pod` does the same in wire form, and
validating that dict into a ``Pod`` is most of the cost of a pod the controller creates.

All pods of one Job generation differ only in those index fields, so :class:`PodFactory` validates
the first pod built from the template and makes every further one as a deep copy of it
(:func:`~kbatch.api.model_copy.copy_model`) with the index fields set: the very model validating
``build_pod``'s dict gives (tests/controllers/job/test_pod_factory.py checks this against the
general path). Pods carrying per-index failure counts (backoffLimitPerIndex) take the general path.
"""

from __future__ import annotations

from kbatch.api.batch_constants import JOB_COMPLETION_INDEX_ANNOTATION, JOB_COMPLETION_INDEX_LABEL
from kbatch.api.core_v1 import Pod
from kbatch.api.model_copy import copy_model
from kbatch.controllers.job.actions import PodCreate
from kbatch.controllers.job.pod_template import indexed_generate_name

__all__ = ["PodFactory"]


class PodFactory:
    """Pod models for one Job: keeps the first pod validated per template (a Job's template dict is
    one object per generation, see ``JobReconciler._template``; Indexed pods use a copy carrying the
    index env var, made once per sync)."""

    __slots__ = ("_first", "_indexed", "_template")

    def __init__(self) -> None:
        self._template: object = None
        self._indexed = False
        self._first: Pod | None = None

    def pod(self, create: PodCreate) -> Pod:
        if create.failure_counts is not None:
            return Pod.model_validate(create.pod)
        indexed = create.index is not None
        first = self._first
        if first is None or create.template is not self._template or indexed != self._indexed:
            # held here, so a new template dict can never take the old one's identity
            first = self._first = Pod.model_validate(create.pod)
            self._template, self._indexed = create.template, indexed
            return copy_model(first)
        pod = copy_model(first)
        if create.index is not None:
            _set_index(pod, create.job.name, create.index)
        return pod


def _set_index(pod: Pod, job_name: str, index: int) -> None:
    """What ``build_pod`` sets per index, on a copy of another index's pod (field values only: the
    fields are already set, so ``model_fields_set`` stays that of a validated pod)."""
    meta, value = pod.metadata, str(index)
    meta.__dict__["generate_name"] = indexed_generate_name(job_name, index)
    assert meta.labels is not None and meta.annotations is not None
    meta.labels[JOB_COMPLETION_INDEX_LABEL] = value
    meta.annotations[JOB_COMPLETION_INDEX_ANNOTATION] = value
    pod.spec.__dict__["hostname"] = f"{job_name}-{index}"
