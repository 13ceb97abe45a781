"""MultiKueue's elastic sync, row by row: upstream's unit-test tables translated.

kubernetes-sigs/kueue v0.19.2:

* ``pkg/workload/workload_test.go`` ``TestShouldSkipClusterNomination`` (every row) →
  :func:`~kbatch.controllers.kueue.multikueue.elastic.skip_nomination`;
* ``pkg/controller/jobs/job/job_multikueue_adapter_test.go`` ``TestMultiKueueAdapter_SyncJob`` (the
  ``ElasticJob_*`` rows) → :meth:`JobAdapter.sync_job` on fake clusters (dictionaries of Jobs, as
  upstream's fake clients are);
* ``pkg/controller/admissionchecks/multikueue/workload_test.go`` ``TestWlReconcile`` (the four
  "elastic job …" rows) → the decisions of ``reconcileGroup`` steps 1 and 5
  (:func:`~kbatch.controllers.kueue.multikueue.elastic.ignored`,
  :func:`~kbatch.controllers.kueue.multikueue.elastic.scaled_down_spec`); the whole flow through the
  workers is ``test_elastic_through_multikueue.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Conflict
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.model_copy import copy_model
from kbatch.controllers.kueue.multikueue import elastic
from kbatch.controllers.kueue.multikueue.adapters import JobAdapter

NS = "ns"
ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
ORIGIN = "kueue.x-k8s.io/multikueue-origin"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
RUNNING = {"type": "SuccessCriteriaMet", "status": "False"}
NOW = datetime(2026, 1, 1, tzinfo=UTC)


# --- ShouldSkipClusterNomination ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("state", "cluster", "is_elastic", "want"),
    [
        pytest.param(None, None, False, True, id="nil admission check state"),
        pytest.param("Pending", None, False, False, id="admission check Pending, no ClusterName"),
        pytest.param("Retry", None, False, True, id="admission check Retry"),
        pytest.param("Ready", None, False, True, id="admission check Ready"),
        pytest.param("Rejected", None, False, True, id="admission check Rejected"),
        pytest.param("Pending", "worker1", False, True, id="Pending, ClusterName set (eviction ongoing)"),
        pytest.param("Pending", "worker1", True, False, id="Pending, ClusterName set, elastic workload"),
        pytest.param("Retry", "worker1", False, True, id="Retry, ClusterName set (eviction ongoing)"),
        pytest.param("Retry", "worker1", True, True, id="Retry, ClusterName set, elastic workload"),
    ],
)
def test_should_skip_cluster_nomination(
    state: str | None, cluster: str | None, is_elastic: bool, want: bool
) -> None:
    assert elastic.skip_nomination(state, cluster, is_elastic) is want


# --- SyncJob, the elastic rows --------------------------------------------------------------------------
class Jobs:
    """One cluster's Jobs (upstream's fake client): a worker's ``RemoteCluster``, or the manager's
    getter and client; ``fail_updates`` makes every update fail (upstream's patch interceptor)."""

    def __init__(self, *jobs: Job, fail_updates: bool = False) -> None:
        self.jobs = {(j.metadata.namespace, j.metadata.name): copy_model(j) for j in jobs}
        self.fail_updates = fail_updates
        self.writes = 0

    def get(self, kind: type, name: str, namespace: str | None) -> Job | None:
        job = self.jobs.get((namespace, name))
        return copy_model(job) if job is not None else None

    def __call__(self, kind: type, name: str, namespace: str | None) -> Job | None:
        return self.get(kind, name, namespace)

    def create(self, obj: Job) -> Job:
        self.jobs[(obj.metadata.namespace, obj.metadata.name)] = copy_model(obj)
        return obj

    def update(self, obj: Job) -> Job:
        if self.fail_updates:
            raise Conflict("test-patch-error")
        self.writes += 1
        self.jobs[(obj.metadata.namespace, obj.metadata.name)] = copy_model(obj)
        return obj

    def update_status(self, obj: Job) -> Job:
        self.jobs[(obj.metadata.namespace, obj.metadata.name)].status = copy_model(obj.status)
        return obj


def job(
    parallelism: int | None = None,
    suspend: bool = True,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> Job:
    """``utiltestingjob.MakeJob("test", ns)``, annotated elastic, with a running condition."""
    spec: dict[str, Any] = {
        "suspend": suspend,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}},
    }
    if parallelism is not None:
        spec["parallelism"] = parallelism
    return Job.from_dict(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "test",
                "namespace": NS,
                "labels": labels,
                "annotations": {**ELASTIC, **(annotations or {})},
            },
            "spec": spec,
            "status": {"conditions": [RUNNING]},
        }
    )


def remote_job(
    parallelism: int | None = None,
    suspend: bool = True,
    prebuilt_label: str | None = None,
    prebuilt_annotation: str | None = None,
) -> Job:
    """The worker's copy: the origin label, and the prebuilt Workload as a label (upstream's
    ``PrebuiltWorkloadLabel``) or an annotation (``SetPrebuiltWorkloadName`` with
    ``WorkloadIdentifierAnnotations``)."""
    labels = {ORIGIN: "origin1"}
    if prebuilt_label is not None:
        labels[PREBUILT] = prebuilt_label
    annotations = {PREBUILT: prebuilt_annotation} if prebuilt_annotation is not None else None
    return job(parallelism, suspend, labels, annotations)


# GetWorkloadNameForOwnerWithGVKAndGeneration("test", "", batch/v1 Job, 0): the row's literal
CURRENT_SLICE = "job-test-f53b2"


def _sync(local: Jobs, remote: Jobs, workload: str) -> bool:
    adapter = JobAdapter(local, lambda: NOW, identifier_annotations=True, elastic=True)
    return adapter.sync_job(local, remote, NS, "test", workload, "origin1")


def test_the_slice_name_of_generation_zero_is_upstreams() -> None:
    assert elastic.current_slice_name(job(), short_names=False) == CURRENT_SLICE


def test_elastic_job_remote_in_sync() -> None:
    local, remote = Jobs(job()), Jobs(remote_job(prebuilt_label="test-workload"))
    assert _sync(local, remote, "test-workload") is False
    assert remote.writes == 0
    assert remote.get(Job, "test", NS) == remote_job(prebuilt_label="test-workload")


def test_elastic_job_local_is_stale() -> None:
    """The Job grew (2 > unset) but the slice is not the one its generation names: no sync."""
    local, remote = Jobs(job(parallelism=2)), Jobs(remote_job(prebuilt_label="test-workload"))
    assert _sync(local, remote, "test-workload") is False
    assert remote.writes == 0
    assert local.get(Job, "test", NS) == job(parallelism=2)


def test_elastic_job_workload_name_only_change_edge_case() -> None:
    local, remote = Jobs(job()), Jobs(remote_job())
    assert _sync(local, remote, "test-workload-new") is False
    assert remote.get(Job, "test", NS) == remote_job(prebuilt_annotation="test-workload-new")


def test_elastic_job_remote_out_of_sync() -> None:
    """Parallelism 22 locally, unset remotely, the current slice: both patched in place (the old
    label stays; the annotation, read first, names the new slice)."""
    local, remote = Jobs(job(parallelism=22)), Jobs(remote_job(prebuilt_label="test-workload"))
    assert _sync(local, remote, CURRENT_SLICE) is False
    assert remote.writes == 1
    want = remote_job(parallelism=22, prebuilt_label="test-workload", prebuilt_annotation=CURRENT_SLICE)
    assert remote.get(Job, "test", NS) == want
    assert local.get(Job, "test", NS) == job(parallelism=22)


def test_elastic_job_remote_out_of_sync_patch_failure() -> None:
    local = Jobs(job(parallelism=22))
    remote = Jobs(remote_job(prebuilt_label="test-workload"), fail_updates=True)
    with pytest.raises(Conflict, match="test-patch-error"):
        _sync(local, remote, CURRENT_SLICE)
    assert remote.get(Job, "test", NS) == remote_job(prebuilt_label="test-workload")


def test_elastic_job_deferred_when_local_suspended() -> None:
    """Regression row for kueue#11115: the elastic sync keeps the deferred flag."""
    local = Jobs(job(parallelism=22))
    remote = Jobs(remote_job(suspend=False, prebuilt_label="test-workload"))
    assert _sync(local, remote, CURRENT_SLICE) is True
    assert remote.get(Job, "test", NS).spec.parallelism == 22


def test_gate_off_no_elastic_sync() -> None:
    """``needElasticJobSync`` is false with ``ElasticJobsViaWorkloadSlices`` off."""
    local, remote = Jobs(job(parallelism=22)), Jobs(remote_job(prebuilt_label="test-workload"))
    adapter = JobAdapter(local, lambda: NOW, identifier_annotations=True, elastic=False)
    adapter.sync_job(local, remote, NS, "test", CURRENT_SLICE, "origin1")
    assert remote.writes == 0


# --- reconcileGroup steps 1 and 5 -----------------------------------------------------------------------
def workload(
    *,
    finished_reason: str | None = None,
    reserved: bool = True,
    replacement: bool = False,
    pod_set: str = "main",
    count: int = 1,
    annotated: bool = True,
) -> Workload:
    """``baseWorkloadBuilder`` with the elastic annotation, the MultiKueue check Ready on worker1."""
    annotations = dict(ELASTIC) if annotated else {}
    if replacement:
        annotations["kueue.x-k8s.io/workload-slice-replacement-for"] = "old-slice"
    conditions = []
    if reserved:
        conditions.append(
            {
                "type": "QuotaReserved",
                "status": "True",
                "reason": "QuotaReserved",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
                "message": "",
            }
        )
    if finished_reason is not None:
        conditions.append(
            {
                "type": "Finished",
                "status": "True",
                "reason": finished_reason,
                "lastTransitionTime": "2026-01-01T00:00:00Z",
                "message": "",
            }
        )
    return Workload.from_dict(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": "wl1", "namespace": NS, "annotations": annotations or None},
            "spec": {
                "queueName": "q",
                "podSets": [
                    {
                        "name": pod_set,
                        "count": count,
                        "template": {"spec": {"containers": [{"name": "c", "image": "pause"}]}},
                    }
                ],
            },
            "status": {
                "conditions": conditions or None,
                "clusterName": "worker1",
                "admissionChecks": [
                    {
                        "name": "ac1",
                        "state": "Ready",
                        "message": 'The workload was admitted on "worker1"',
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ],
            },
        }
    )


def _finished(wl: Workload) -> bool:
    return any(c.type == "Finished" and c.status == "True" for c in wl.status.conditions or ())


def test_elastic_job_finished_local_workload_via_replacement_is_ignored() -> None:
    wl = workload(finished_reason="WorkloadSliceReplaced")
    assert elastic.ignored(wl, True, _finished(wl)) is True  # the worker's objects stay
    assert elastic.ignored(wl, False, _finished(wl)) is False  # gate off: step 2 removes them


def test_elastic_job_finished_otherwise_is_not_ignored() -> None:
    wl = workload(finished_reason="Succeeded")
    assert elastic.ignored(wl, True, _finished(wl)) is False


def test_elastic_job_local_workload_without_quota_reservation() -> None:
    """Not a scale-up: step 2 removes the worker's objects."""
    wl = workload(reserved=False)
    assert elastic.ignored(wl, True, _finished(wl)) is False


def test_elastic_job_local_scaled_up_workload_slice_without_quota_reservation() -> None:
    wl = workload(reserved=False, replacement=True)
    assert elastic.ignored(wl, True, _finished(wl)) is True


def test_elastic_job_local_workload_out_of_sync_other_than_scaled_down() -> None:
    """A renamed pod set is no scale-down: the copy is removed (then "Admitting remote no longer
    exists"); a smaller count is one: the copy takes the manager's spec."""
    remote = workload(count=2)
    assert elastic.scaled_down_spec(workload(pod_set="different-name"), remote, True) is None
    assert elastic.scaled_down_spec(workload(count=3), remote, True) is None  # a scale-up
    shrunk = elastic.scaled_down_spec(workload(count=1), remote, True)
    assert shrunk is not None and shrunk.pod_sets[0].count == 1
    assert elastic.scaled_down_spec(workload(count=1), remote, False) is None


def test_out_of_sync_resets_only_when_not_elastic() -> None:
    assert elastic.resets_on_out_of_sync(False) is True
    assert elastic.resets_on_out_of_sync(True) is False


def test_nominated_is_the_slice_cluster_for_elastic_only() -> None:
    wl = workload()
    assert elastic.nominated(wl, True) == ["worker1"]
    assert elastic.nominated(wl, False) is None
    wl.status.cluster_name = None
    assert elastic.nominated(wl, True) is None
