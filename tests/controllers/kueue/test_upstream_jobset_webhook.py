"""Upstream's JobSet webhook tables, through kbatch's API server.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/jobset/jobset_webhook_test.go``
(``TestValidateCreate``, ``TestDefault``; case names quoted) against ``jobset_webhook.go`` and
``pkg/controller/jobframework``. Not translated (not modelled, ``docs/kueue.md``): the prebuilt
workload rows of ``TestValidateCreate`` (its TopologyAwareScheduling and PodSet-grouping rows are
in ``test_upstream_jobset_webhook_tas.py``), all of
``TestValidateUpdate`` (topology requests), and the MultiKueue ``managedBy`` rows of ``TestDefault``
("TestDefault_JobSetManagedBy_...", "..._WithQueueLabel", "..._QueueNotFound",
"..._AdmissionCheckNotFound", "..._MultiKueueFeatureDisabled", "..._UserSpecifiedManagedBy",
"..._ClusterQueueWithoutAdmissionCheck"), of which kbatch checks only that ``managedBy`` stays unset.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import FieldError, Forbidden
from kbatch.api.jobset_v1alpha2 import JobSet

from .helpers import local_queue
from .test_upstream_job_webhook import RFC1123

QUEUE = "kueue.x-k8s.io/queue-name"
CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}}
_POD = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}


def make_jobset(name: str = "job", queue: str | None = None) -> dict[str, Any]:
    """``testingjobs/jobset.MakeJobSet``: suspended, one replicated job."""
    labels = {QUEUE: queue} if queue else {}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default", "labels": labels},
            "spec": {"suspend": True, "replicatedJobs": [
                {"name": "r", "replicas": 1, "template": {"spec": {"template": {"spec": _POD}}}}]}}


def _plane() -> ControlPlane:
    return ControlPlane(controllers="kueue", kueue_config=CONFIG)


@pytest.mark.parametrize(
    ("case", "queue", "want"),
    [
        ("simple", "queue", None),
        ("invalid queue-name label", "queue_name",
         'admission webhook "vjobset.kb.io" denied the request: '
         + str(FieldError.invalid(f"metadata.labels[{QUEUE}]", "queue_name", RFC1123))),
    ],
)
def test_validate_create(case: str, queue: str, want: str | None) -> None:
    try:
        _plane().apply([make_jobset(queue=queue)])
        got = None
    except Forbidden as err:
        got = str(err.message)
    assert got == want


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
