"""Upstream's JobSet webhook tables, through kbatch's API server.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/jobset/jobset_webhook_test.go``
(``TestValidateCreate``, ``TestDefault``; case names quoted) against ``jobset_webhook.go`` and
``pkg/controller/jobframework``, with the prebuilt-workload rows of ``TestValidateCreate`` and
kbatch's own for a refused name and an update (its TopologyAwareScheduling and PodSet-grouping rows are
in ``test_upstream_jobset_webhook_tas.py``). Not translated (not modelled, ``docs/kueue.md``): all of
``TestValidateUpdate`` (topology requests), and the MultiKueue ``managedBy`` rows of ``TestDefault``
("TestDefault_JobSetManagedBy_...", "..._WithQueueLabel", "..._QueueNotFound",
"..._AdmissionCheckNotFound", "..._MultiKueueFeatureDisabled", "..._UserSpecifiedManagedBy",
"..._ClusterQueueWithoutAdmissionCheck"), of which kbatch checks only that ``managedBy`` stays unset.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.errors import FieldError, Forbidden
from kbatch.api.jobset_v1alpha2 import JobSet

from .helpers import local_queue
from .test_upstream_job_webhook import RFC1123

QUEUE = "kueue.x-k8s.io/queue-name"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}}
_POD = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}


def make_jobset(name: str = "job", queue: str | None = None, labels: dict[str, str] | None = None,
                annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """``testingjobs/jobset.MakeJobSet``: suspended, one replicated job."""
    labels = {**({QUEUE: queue} if queue else {}), **(labels or {})}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default", "labels": labels,
                         "annotations": dict(annotations or {})},
            "spec": {"suspend": True, "replicatedJobs": [
                {"name": "r", "replicas": 1, "template": {"spec": {"template": {"spec": _POD}}}}]}}


def _denial(err: FieldError) -> str:
    return f'admission webhook "vjobset.kb.io" denied the request: {err}'


def _plane() -> ControlPlane:
    return ControlPlane(controllers="kueue", kueue_config=CONFIG)


@pytest.mark.parametrize(
    ("case", "jobset", "want"),
    [
        ("simple", make_jobset(queue="queue"), None),
        ("invalid queue-name label", make_jobset(queue="queue_name"),
         _denial(FieldError.invalid(f"metadata.labels[{QUEUE}]", "queue_name", RFC1123))),
        ("with prebuilt workload", make_jobset(queue="queue", labels={PREBUILT: "prebuilt-workload"}), None),
        ("valid prebuilt workload annotation, WorkloadIdentifierAnnotations enabled",
         make_jobset(queue="queue", annotations={PREBUILT: "prebuilt-workload"}), None),
        ("different prebuilt workload label and annotation, label ignored, "
         "WorkloadIdentifierAnnotations enabled",
         make_jobset(queue="queue", labels={PREBUILT: "prebuilt-workload-label"},
                     annotations={PREBUILT: "prebuilt-workload-annotation"}), None),
        # kbatch's row: the job framework's name check (ValidatePrebuiltWorkloadName) on a JobSet
        ("invalid prebuilt workload annotation", make_jobset(queue="queue", annotations={PREBUILT: "a b"}),
         _denial(FieldError.invalid(f"metadata.annotations[{PREBUILT}]", "a b", RFC1123))),
    ],
)
def test_validate_create(case: str, jobset: dict[str, Any], want: str | None) -> None:
    try:
        _plane().apply([jobset])
        got = None
    except Forbidden as err:
        got = str(err.message)
    assert got == want


def test_a_running_jobset_keeps_its_prebuilt_workload() -> None:
    """``validateUpdateForPrebuiltWorkload`` through the JobSet webhook: unsuspended, the name is
    immutable."""
    cp = _plane()
    cp.apply([make_jobset(annotations={PREBUILT: "old-workload"})])
    stored = edit(cp.client.get(JobSet, "job", "default"))
    stored.spec.suspend = False
    stored.metadata.annotations = {PREBUILT: "new-workload"}
    with pytest.raises(Forbidden) as err:
        cp.client.update(stored)
    assert str(err.value.message) == _denial(
        FieldError.invalid(f"metadata.annotations[{PREBUILT}]", "new-workload", "field is immutable"))


@pytest.mark.parametrize(
    ("case", "default_lq", "queue", "want_queue"),
    [
        ("default lq is created, job doesn't have queue label", True, None, "default"),
        ("default lq is created, job has queue label", True, "queue", "queue"),
        ("default lq isn't created, job doesn't have queue label", False, None, None),
        ("TestDefault_WithoutQueueLabel", False, None, None),
        ("TestDefault_InvalidQueueName", False, "invalid-queue", "invalid-queue"),
    ],
)
def test_default(case: str, default_lq: bool, queue: str | None, want_queue: str | None) -> None:
    cp = _plane()
    if default_lq:
        cp.apply([local_queue("default", "cluster-queue")])
    doc = make_jobset("test-js", queue)
    doc["spec"]["suspend"] = False  # the webhook suspends a queued JobSet
    cp.apply([doc])
    created = [r for r in cp.trace.records if r.kind.startswith("JobSet") and r.verb == "create"]
    got = cp.client.get(JobSet, "test-js", "default")
    assert (got.metadata.labels or {}).get(QUEUE) == want_queue
    assert created[0].diff["spec"]["suspend"] is (want_queue is not None)
    assert got.spec.managed_by is None
