"""The job webhooks' rules for elastic jobs (``ElasticJobsViaWorkloadSlices``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/validation.go``
(``ValidateElasticJobAnnotation``, ``validatedUpdateForEnabledWorkloadSlice``) and
``pkg/controller/jobs/job/job_webhook.go`` (``applyWorkloadSliceSchedulingGate``,
``validatePartialAdmissionCreate``, ``validateTopologyRequest``):

* the annotation only on the kinds that support slices: batch/v1 Job (upstream also lists Ray's
  RayCluster, RayJob and RayService, kinds kbatch does not serve): elsewhere ``Forbidden: elastic job
  is not supported for "<group>/<version>, Kind=<kind>"``;
* whether a job is elastic is immutable (``Invalid value: <new>: field is immutable``); its
  ``parallelism`` may change while it runs (no rule forbids it: the job reconciler resizes slices);
* not with partial admission (``kueue.x-k8s.io/job-min-parallelism``), nor with a required or
  preferred topology (with or without ``ElasticJobsViaWorkloadSlicesWithTAS``: only unconstrained
  topologies scale, :mod:`kbatch.controllers.kueue.tas.elastic`);
* on create a Job's template gets the ``kueue.x-k8s.io/elastic-job`` scheduling gate, so every pod
  waits for the ElasticJobUngater.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.core_v1 import PodSchedulingGate
from kbatch.api.errors import FieldError
from kbatch.api.kueue_v1beta2.constants import (
    ELASTIC_JOB_ANNOTATION,
    ELASTIC_JOB_SCHEDULING_GATE,
    JOB_MIN_PARALLELISM,
)
from kbatch.controllers.kueue.tas.request import PREFERRED, REQUIRED
from kbatch.controllers.kueue.workloadslicing import enabled

__all__ = [
    "GATE",
    "enabled",
    "gate_template",
    "partial_admission_errors",
    "toggle_errors",
    "topology_errors",
    "unsupported_errors",
]

GATE = "ElasticJobsViaWorkloadSlices"
SUPPORTED = frozenset({("batch", "v1", "Job")})  # supportedElasticJobGVKs, the kinds kbatch serves
_PATH = f"metadata.annotations[{ELASTIC_JOB_ANNOTATION}]"


def gvk_string(group: str, version: str, kind: str) -> str:
    """Go's ``schema.GroupVersionKind.String()``."""
    return f"{group}/{version}, Kind={kind}"


def unsupported_errors(api_info: Any) -> list[FieldError]:
    """``ValidateElasticJobAnnotation`` for an elastic object of ``api_info``'s kind."""
    gvk = (api_info.group or "", api_info.version, api_info.kind)
    if gvk in SUPPORTED:
        return []
    return [FieldError.forbidden(_PATH, f'elastic job is not supported for "{gvk_string(*gvk)}"')]


def toggle_errors(old_enabled: bool, new_enabled: bool) -> list[FieldError]:
    """``validatedUpdateForEnabledWorkloadSlice``."""
    if old_enabled == new_enabled:
        return []
    return [FieldError.invalid(_PATH, new_enabled, "field is immutable")]


def partial_admission_errors(job: Any, elastic: bool) -> list[FieldError]:
    """The elastic half of ``validatePartialAdmissionCreate``."""
    text = (job.metadata.annotations or {}).get(JOB_MIN_PARALLELISM)
    if text is None or not elastic:
        return []
    return [
        FieldError.invalid(
            f"metadata.annotations[{JOB_MIN_PARALLELISM}]",
            text,
            "partial admission and elastic job cannot be used together",
        )
    ]


def topology_errors(annotations: Mapping[str, str], elastic: bool) -> list[FieldError]:
    """``validateTopologyRequest``'s refusal of required and preferred topologies for elastic jobs."""
    if not elastic:
        return []
    for key, what in ((REQUIRED, "required"), (PREFERRED, "preferred")):
        if key in annotations:
            return [
                FieldError.forbidden(
                    f"spec.template.metadata.annotations[{key}]",
                    f"{what} topology is not supported with elastic jobs",
                )
            ]
    return []


def gate_template(template: Any) -> None:
    """``utilpod.GateTemplate``: the gate appended once."""
    gates = list(template.spec.scheduling_gates or ())
    if not any(g.name == ELASTIC_JOB_SCHEDULING_GATE for g in gates):
        template.spec.scheduling_gates = [*gates, PodSchedulingGate(name=ELASTIC_JOB_SCHEDULING_GATE)]
