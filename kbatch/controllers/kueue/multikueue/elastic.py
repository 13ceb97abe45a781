"""MultiKueue's elastic sync: workload slices of an elastic batch/v1 Job kept on one worker.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/workload.go``
(``reconcileGroup`` steps 1, 3, 5 and 8, ``nominateAndSynchronizeWorkers``),
``pkg/workload/workload.go`` (``ShouldSkipClusterNomination``, table ``TestShouldSkipClusterNomination``)
and ``pkg/controller/jobs/job/job_multikueue_adapter.go`` (``needElasticJobSync``, ``syncElasticJob``,
table ``job_multikueue_adapter_test.go``). With ``ElasticJobsViaWorkloadSlices`` (beta, on) a Workload
annotated ``kueue.x-k8s.io/elastic-job: "true"`` is *elastic*:

* :func:`ignored`: a slice finished because another replaced it, or a scale-up's new slice still
  waiting for quota, leaves the workers alone (its remote Job is the one the chain keeps running);
* :func:`resets_on_out_of_sync`: a remote ``OutOfSync`` finish of an elastic copy is a finish like
  any other (slice replacement uses that reason), not a reset for re-dispatch;
* :func:`scaled_down_spec`: a copy whose pod sets are larger than the manager's takes the manager's
  spec in place (a scale-down) instead of being removed;
* :func:`skip_nomination` / :func:`nominated`: a new slice carries its predecessor's ``clusterName``
  (the scheduler copies it) and is dispatched to that worker only, while its check is Pending;
* :func:`need_job_sync` / :func:`synced_job`: the remote Job takes the manager Job's
  ``parallelism`` and names the current slice as its prebuilt Workload, patched in place, so its
  running pods stay; a stale slice (the Job grew, the slice is not the one its generation names)
  syncs nothing.
"""

from __future__ import annotations

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload, WorkloadSpec
from kbatch.controllers.kueue.jobframework.names import workload_name
from kbatch.controllers.kueue.jobframework.prebuilt import prebuilt_name, set_prebuilt_name
from kbatch.controllers.kueue.workloadslicing import (
    enabled,
    is_replaced,
    pod_set_counts,
    scaled_down,
    scaled_up,
)
from kbatch.controllers.kueue.workloadslicing.slices import reserved

__all__ = [
    "GATE",
    "ignored",
    "need_job_sync",
    "nominated",
    "resets_on_out_of_sync",
    "scaled_down_spec",
    "skip_nomination",
    "synced_job",
]

GATE = "ElasticJobsViaWorkloadSlices"


def ignored(local: Workload, elastic: bool, finished: bool) -> bool:
    """Step 1: an elastic Workload finished as ``WorkloadSliceReplaced``, or unfinished without a
    reservation while it scales up (``ScaledUp``): nothing is removed remotely."""
    if not elastic:
        return False
    if finished:
        return is_replaced(local.status)
    return not reserved(local) and scaled_up(local)


def resets_on_out_of_sync(elastic: bool) -> bool:
    """Step 3: only a non-elastic copy's ``OutOfSync`` finish resets the check for re-dispatch."""
    return not elastic


def scaled_down_spec(local: Workload, remote: Workload, elastic: bool) -> WorkloadSpec | None:
    """Step 5: the spec to write into an out-of-sync elastic copy the manager scaled down (some pod
    set smaller, none larger than the copy's); ``None``: not a scale-down."""
    if not elastic or local.spec is None:
        return None
    have = pod_set_counts(remote.spec.pod_sets if remote.spec else None)
    want = pod_set_counts(local.spec.pod_sets)
    if not scaled_down(have, want):
        return None
    return edit(local).spec


def skip_nomination(check_state: str | None, cluster_name: str | None, elastic: bool) -> bool:
    """``ShouldSkipClusterNomination``: a check that is not Pending; or, for a Workload that is not
    elastic, a ``clusterName`` still set (an eviction under way). An elastic slice's ``clusterName``
    is its predecessor's, set on purpose to reach the same worker."""
    if check_state != "Pending":
        return True
    if elastic:
        return False
    return bool(cluster_name)


def nominated(local: Workload, elastic: bool) -> list[str] | None:
    """``nominateAndSynchronizeWorkers``' elastic branch: the slice's ``clusterName`` is the only
    worker (``None``: the dispatcher decides)."""
    cluster = local.status.cluster_name if local.status is not None else None
    return [cluster] if elastic and cluster else None


def _parallelism(job: Job) -> int:
    return (job.spec.parallelism if job.spec is not None else None) or 0


def current_slice_name(job: Job, short_names: bool) -> str:
    """``GetWorkloadNameForOwnerWithGVKAndGeneration``: the slice the Job's generation names."""
    meta = job.metadata
    return workload_name(
        meta.name or "", meta.uid or "", "Job", "batch", short_names, str(meta.generation or 0)
    )


def need_job_sync(
    workload: str, local: Job, remote: Job, gate_on: bool, short_names: bool, ids: bool
) -> bool:
    """``needElasticJobSync``: the remote Job's parallelism or prebuilt Workload differs from the
    manager's; never for a stale slice (the Job grew and ``workload`` is not the slice its
    generation names: the new slice is still on its way)."""
    if not enabled(local, gate_on):
        return False
    old, new = _parallelism(remote), _parallelism(local)
    if old < new and workload != current_slice_name(local, short_names):
        return False
    return old != new or remote.metadata.labels is None or prebuilt_name(remote, ids) != workload


def synced_job(workload: str, local: Job, remote: Job, ids: bool) -> Job | None:
    """``syncElasticJob``: the remote Job with the manager's ``parallelism`` and ``workload`` as its
    prebuilt Workload; ``None`` when nothing changes."""
    changed = _parallelism(remote) != _parallelism(local)
    patched = edit(remote)
    assert patched.spec is not None and local.spec is not None
    patched.spec.parallelism = local.spec.parallelism
    current = prebuilt_name(remote, ids)
    if not current or current != workload:
        set_prebuilt_name(patched.metadata, workload, ids)
        changed = True
    return patched if changed else None
