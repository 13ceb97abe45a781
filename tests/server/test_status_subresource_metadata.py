"""What ``kubectl patch --subresource=status`` may change besides status, per kind, on ``kbatch serve``.

Upstream: a custom resource's status strategy (apiextensions-apiserver
``pkg/registry/customresource/status_strategy.go`` PrepareForUpdate) copies the stored object over
the written one and keeps only its status (and managedFields), so labels, annotations, finalizers
and spec sent to ``/status`` are dropped; a built-in Job's (``pkg/registry/batch/job/strategy.go``
jobStatusStrategy) resets only the spec, so metadata written there is kept.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
          "spec": {"suspend": True, "replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
              "template": {"spec": {"restartPolicy": "Never",
                                    "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}
POD_GROUP = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "pg"},
             "spec": {"minMember": 2}}
CLUSTER_QUEUE = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
                 "spec": {}}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job"},
       "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                       "containers": [{"name": "c", "image": "busybox"}]}}}}
STATUS_WITH_METADATA = {"metadata": {"labels": {"via": "status"}, "annotations": {"via": "status"},
                                     "finalizers": ["example.com/via-status"]}}


def kubectl(server: ServeProcess, *args: str, stdin: str | None = None) -> str:
    assert KUBECTL is not None
    out = subprocess.run([KUBECTL, *args], env=server.env(), input=stdin, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _write_status(served: Any, manifest: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    kubectl(served, "apply", "-f", "-", stdin=json.dumps(manifest))
    ref = f"{manifest['kind'].lower()}.{manifest['apiVersion'].split('/')[0]}/{manifest['metadata']['name']}"
    if "/" not in manifest["apiVersion"]:
        ref = f"{manifest['kind'].lower()}/{manifest['metadata']['name']}"
    written: dict[str, Any] = json.loads(kubectl(served, "patch", ref, "--subresource=status", "--type=merge",
                                                 "-p", json.dumps(STATUS_WITH_METADATA | {"status": status}),
                                                 "-o", "json"))
    return written  # the object as the write stored it (controllers may rewrite the status later)


@pytest.mark.parametrize(("manifest", "status", "field"), [
    (JOBSET, {"restarts": 2}, "restarts"),
    (POD_GROUP, {"phase": "Scheduling"}, "phase"),
    (CLUSTER_QUEUE, {"pendingWorkloads": 3}, "pendingWorkloads"),
], ids=["JobSet", "PodGroup", "ClusterQueue"])
def test_a_custom_resources_status_write_keeps_the_stored_metadata(
        served: Any, manifest: dict[str, Any], status: dict[str, Any], field: str) -> None:
    stored = _write_status(served, manifest, status)
    assert stored["status"][field] == status[field]  # the status is written ...
    meta = stored["metadata"]
    assert "via" not in (meta.get("labels") or {})  # ... the metadata sent with it is not
    assert "via" not in (meta.get("annotations") or {})
    assert "example.com/via-status" not in (meta.get("finalizers") or [])


def test_a_jobs_status_write_keeps_the_metadata_it_sends(served: Any) -> None:
    stored = _write_status(served, JOB, {})
    meta = stored["metadata"]
    assert meta["labels"]["via"] == "status" and meta["annotations"]["via"] == "status"
    assert "example.com/via-status" in meta["finalizers"]
    kubectl(served, "patch", "job/job", "--type=json", "-p",
            json.dumps([{"op": "remove", "path": "/metadata/finalizers"}]))
