"""Upstream's ``TestApplyDefaultWorkloadPriorityClass``, through the job and pod webhooks.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/defaults_test.go``
``TestApplyDefaultWorkloadPriorityClass`` (case names quoted per row) against ``defaults.go``
``ApplyDefaultWorkloadPriorityClass``, called by the Job, JobSet and Pod defaulting webhooks
(``job_webhook.go``, ``jobset_webhook.go``, ``pod_webhook.go``). Upstream defaults a Job object;
here the Job (and a plain Pod, through the pod webhook) is created through the API.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod

WPC = "kueue.x-k8s.io/priority-class"
DEFAULT_WPC = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
               "metadata": {"name": "default"}, "value": 100}
ON, OFF = {"WorkloadPriorityClassDefaulting": True}, {"WorkloadPriorityClassDefaulting": False}
CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "integrations": {"frameworks": ["batch/job", "pod"]}}
_POD = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}


def job(
    name: str, labels: dict[str, str] | None = None, owner: dict[str, Any] | None = None
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": dict(labels or {})}
    if owner:
        meta["ownerReferences"] = [owner]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"suspend": True, "template": {"spec": _POD}}}


ROWS = [
    ("feature gate enabled, no label, default WPC exists", ON, True, {}, "default"),
    ("feature gate disabled, no label, default WPC exists", OFF, True, {}, None),
    ("feature gate enabled, label already set", ON, True, {WPC: "high"}, "high"),
    ("feature gate enabled, no label, default WPC does not exist", ON, False, {}, None),
]


@pytest.mark.parametrize(("case", "gates", "wpc", "labels", "want"), ROWS, ids=[r[0] for r in ROWS])
def test_default_priority_class_of_a_job(
    case: str, gates: dict[str, bool], wpc: bool, labels: dict[str, str], want: str | None
) -> None:
    cp = ControlPlane(controllers="kueue", feature_gates=gates, kueue_config=CONFIG)
    if wpc:
        cp.apply([DEFAULT_WPC])
    cp.apply([job("test-job", labels)])
    assert (cp.client.get(Job, "test-job", "default").metadata.labels or {}).get(WPC) == want


def test_feature_gate_enabled_owner_managed_by_kueue() -> None:
    """"feature gate enabled, owner managed by kueue": a Job owned by a Job (batch/job enabled)."""
    cp = ControlPlane(controllers="kueue", feature_gates=ON, kueue_config=CONFIG)
    cp.apply([DEFAULT_WPC])
    cp.apply([job("parent", {"kueue.x-k8s.io/queue-name": "default"})])
    uid = cp.client.get(Job, "parent", "default").metadata.uid
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "parent", "uid": uid, "controller": True}
    cp.apply([job("test-job", owner=owner)])
    assert WPC in (cp.client.get(Job, "parent", "default").metadata.labels or {})  # the parent's own
    assert WPC not in (cp.client.get(Job, "test-job", "default").metadata.labels or {})


@pytest.mark.parametrize(("gates", "want"), [(ON, "default"), (OFF, None)])
def test_a_plain_pod_gets_the_default_priority_class_too(gates: dict[str, bool], want: str | None) -> None:
    """``pod_webhook.go`` ``Default`` applies the same defaulting after the queue defaulting, to any
    pod of a selected namespace without a managed ancestor."""
    cp = ControlPlane(controllers="kueue", feature_gates=gates, kueue_config=CONFIG)
    cp.apply([DEFAULT_WPC])
    cp.apply([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": _POD}])
    assert (cp.client.get(Pod, "p", "default").metadata.labels or {}).get(WPC) == want
