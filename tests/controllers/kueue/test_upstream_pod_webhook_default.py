"""Upstream's pod webhook ``TestDefault`` rows about the pod's owner, through the API.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_webhook_test.go`` ``TestDefault``
(case names quoted) against ``pod_webhook.go`` ``Default`` and ``jobframework``'s
``FindAncestorJobManagedByKueue``. The other rows are in ``test_pods.py`` / ``test_pod_groups.py``
(queue, namespace selector, groups, default LocalQueue), ``test_upstream_default_priority_class.py``
(WorkloadPriorityClass defaulting), or not modelled: the owners of kinds kbatch does not have
(RayCluster, MPIJob, PyTorchJob, TFJob, XGBoostJob, PaddleJob), TAS, and the deprecated
``podOptions`` selectors.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden

QUEUE = "kueue.x-k8s.io/queue-name"
_SPEC = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}


def _plane(frameworks: list[str]) -> ControlPlane:
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "integrations": {"frameworks": frameworks}}
    return ControlPlane(controllers="kueue", kueue_config=config)


def _pod(owner: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "test-pod", "namespace": "default", "labels": {QUEUE: "test-queue"},
                         "ownerReferences": [owner]},
            "spec": _SPEC}


def _parent(cp: ControlPlane) -> dict[str, Any]:
    cp.apply([{"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "parent-job", "namespace": "default", "labels": {QUEUE: "test-queue"}},
               "spec": {"template": {"spec": _SPEC}}}])
    uid = cp.client.get(Job, "parent-job", "default").metadata.uid
    return {"apiVersion": "batch/v1", "kind": "Job", "name": "parent-job", "uid": uid, "controller": True}


@pytest.mark.parametrize(
    ("case", "frameworks", "managed"),
    [
        ("pod with owner managed by kueue (Job) while not enabled", ["pod"], True),
        ("pod with owner managed by kueue (Job)", ["batch/job", "pod"], False),
    ],
)
def test_pod_with_owner_managed_by_kueue(case: str, frameworks: list[str], managed: bool) -> None:
    """Not enabled: the pod is Kueue's (managed label, admission gate, finalizer); enabled: the
    pod is left to its Job."""
    cp = _plane(frameworks)
    cp.apply([_pod(_parent(cp))])
    pod = cp.client.get(Pod, "test-pod", "default")
    gated = any(g.name == "kueue.x-k8s.io/admission" for g in pod.spec.scheduling_gates or ())
    labelled = (pod.metadata.labels or {}).get("kueue.x-k8s.io/managed") == "true"
    finalized = "kueue.x-k8s.io/managed" in (pod.metadata.finalizers or ())
    assert (gated, labelled, finalized) == (managed, managed, managed)


def test_pod_with_owner_reference_to_a_missing_parent_while_not_terminating() -> None:
    """"pod with ownerReference to a missing parent while not terminating (cache lag, should
    error)": ErrWorkloadOwnerNotFound denies the pod."""
    cp = _plane(["batch/job", "pod"])
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "deleted-parent-job", "uid": "x",
             "controller": True}
    with pytest.raises(Forbidden) as err:
        cp.apply([_pod(owner)])
    assert str(err.value.message) == (
        'admission webhook "mpod.kb.io" denied the request: workload owner not found\n'
        'jobs.batch "deleted-parent-job" not found'
    )
