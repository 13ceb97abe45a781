"""Elastic jobs via workload slices (``ElasticJobsViaWorkloadSlices``, beta, on).

Upstream: kubernetes-sigs/kueue ``pkg/workloadslicing/workloadslicing.go`` (v0.19.2), KEP-77
"dynamically sized jobs". A batch/v1 Job annotated ``kueue.x-k8s.io/elastic-job: "true"`` may change
its ``parallelism`` while admitted. Scaling down shrinks the admitted Workload in place (its usage
drops at once); scaling up creates a new Workload, a *slice*, named with the Job's generation and
annotated ``kueue.x-k8s.io/workload-slice-replacement-for: <ns>/<old>``, which the scheduler admits
for the delta only and which, once admitted, finishes the old slice (``Finished`` reason
``WorkloadSliceReplaced``). The Job keeps running throughout: its new pods wait behind the
``kueue.x-k8s.io/elastic-job`` scheduling gate until the ElasticJobUngater lets as many run as the
active slice admits.

* :mod:`.slices`: the pure rules (which slices are live, scale up or down, what to finish);
* :mod:`.ungater`: the ElasticJobUngater controller.
"""

from kbatch.controllers.kueue.workloadslicing.slices import (
    SliceDecision,
    decide_slices,
    enabled,
    find_latest_active,
    find_replaced_slice_target,
    is_replaced,
    normalize_active_slices,
    not_finished,
    pod_set_counts,
    replaced_workload_slice,
    replacement_for_key,
    scaled_down,
    scaled_up,
    slice_name,
)

__all__ = [
    "SliceDecision",
    "decide_slices",
    "enabled",
    "find_latest_active",
    "find_replaced_slice_target",
    "is_replaced",
    "normalize_active_slices",
    "not_finished",
    "pod_set_counts",
    "replaced_workload_slice",
    "replacement_for_key",
    "scaled_down",
    "scaled_up",
    "slice_name",
]
