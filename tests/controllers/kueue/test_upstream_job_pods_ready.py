"""Upstream's batch/v1 Job ``TestPodsReady`` and the pre-v0.11 PodsReady rows of ``TestReconciler``.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/job/job_controller_test.go``:
``TestPodsReady`` (``Job.PodsReady``: ready plus succeeded pods reach ``min(parallelism,
completions)``) and the ``TestReconciler`` rows "PodsReady=False has the new Reason if there was the
old one before (pre v0.11.0)", "PodsReady=True has the new Reason ..." and "PodsReady is set to
False if there's an invalid Reason (pre v0.11.0)", against ``jobframework/reconciler.go``
``generatePodsReadyCondition``.

Upstream calls ``PodsReady`` on a Job value. Here the Job is created through the API with Kueue
alone running (no Job controller, so nothing else writes the Job's status): Kueue admits and
unsuspends it, the Job's status counts are written through the status subresource as the Job
controller would, and the answer is the Workload's PodsReady condition the job reconciler writes.
The pre-v0.11 rows write the old reason onto the Workload through its status subresource.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.controllers.kueue import workloads as W

from .helpers import World, cluster_queue, flavor, local_queue, quota
from .test_upstream_job_reconciler import make_job, workload_of

CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "waitForPodsReady": {"timeout": "10m", "blockAdmission": False}}
STARTED = ("True", "Started", "All pods reached readiness and the workload is running")
NOT_READY = ("False", "WaitForStart", "Not all pods are ready or succeeded")


def _admitted_job(parallelism: int, completions: int | None) -> World:
    w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "16")])])),
              local_queue("lq", "cq"), kueue_config=CONFIG)
    doc = make_job(parallelism=parallelism)
    if completions is None:
        del doc["spec"]["completions"]
    else:
        doc["spec"]["completions"] = completions
    w.apply(doc)
    w.cp.run_until_idle()
    assert w.cp.client.get(Job, "job", "default").spec.suspend is False
    return w


def _pods_ready(w: World) -> tuple[str, str, str]:
    c = w.cond(workload_of(w).metadata.name, "PodsReady")
    return (c.status, c.reason, c.message)


def _job_status(w: World, ready: int, succeeded: int) -> None:
    status: dict[str, Any] = {"ready": ready, "succeeded": succeeded, "active": ready,
                              "startTime": w.cp.now().isoformat()}
    w.cp.client.patch_status(Job, "job", {"status": status}, "default")
    w.cp.run_until_idle()


@pytest.mark.parametrize(
    ("case", "parallelism", "completions", "ready", "succeeded", "want"),
    [
        ("parallelism = completions; no progress", 3, 3, 0, 0, False),
        ("parallelism = completions; not enough progress", 3, 3, 1, 1, False),
        ("parallelism = completions; all ready", 3, 3, 3, 0, True),
        ("parallelism = completions; some ready, some succeeded", 3, 3, 2, 1, True),
        ("parallelism = completions; all succeeded", 3, 3, 0, 3, True),
        ("parallelism < completions; reaching parallelism is enough", 2, 3, 2, 0, True),
        ("parallelism > completions; reaching completions is enough", 3, 2, 2, 0, True),
        ("parallelism specified only; not enough progress", 3, None, 2, 0, False),
        ("parallelism specified only; all ready", 3, None, 3, 0, True),
    ],
)
def test_pods_ready(case: str, parallelism: int, completions: int | None, ready: int, succeeded: int,
                    want: bool) -> None:
    w = _admitted_job(parallelism, completions)
    assert _pods_ready(w) == NOT_READY
    _job_status(w, ready, succeeded)
    assert _pods_ready(w) == (STARTED if want else NOT_READY), case


def _write_old_condition(w: World, status: bool, reason: str, message: str) -> None:
    wl = edit(workload_of(w))
    W.set_condition(wl.status, "PodsReady", status, reason, message, wl.metadata.generation, w.cp.now())
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()


@pytest.mark.parametrize(
    ("case", "ready", "old", "want"),
    [
        ("PodsReady=False has the new Reason if there was the old one before (pre v0.11.0)", 0,
         ("False", "PodsReady", "Not all pods are ready or succeeded"), NOT_READY),
        ("PodsReady=True has the new Reason if there was the old one before (pre v0.11.0)", 10,
         ("True", "PodsReady", "All pods reached readiness and the workload is running"), STARTED),
        ("PodsReady is set to False if there's an invalid Reason (pre v0.11.0)", 0,
         ("False", "InvalidReason", "Not all pods are ready or succeeded"), NOT_READY),
    ],
)
def test_an_old_pods_ready_reason_is_rewritten(case: str, ready: int, old: tuple[str, str, str],
                                               want: tuple[str, str, str]) -> None:
    w = _admitted_job(10, 10)
    if ready:
        _job_status(w, ready, 0)
    _write_old_condition(w, old[0] == "True", old[1], old[2])
    assert _pods_ready(w) == want, case
