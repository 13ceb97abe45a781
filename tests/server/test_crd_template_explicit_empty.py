"""A JobSet (a custom resource, stored as written) whose pod template spells ``resources: {}``,
``ports: []`` and ``env: []``: its Job and pods, read and written back by clients against
``kbatch serve``, are the same objects they were. kube-apiserver's Go types cannot tell those
explicit empties from unset fields and compares specs with ``Semantic.DeepEqual`` (nil and empty
slices equal; k8s.io/apimachinery ``pkg/api/equality``), so upstream a PUT of the pod as read, a
JSON patch of a label and the official client's replace all succeed and leave ``generation`` alone
(kubernetes ``pkg/apis/core/validation`` ``ValidatePodUpdate``, ``pkg/api/pod`` generation bump,
``pkg/registry/batch/job/strategy.go`` ``PrepareForUpdate``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402

JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "empties"},
          "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {
              "parallelism": 1, "completions": 1, "completionMode": "Indexed",
              "template": {"spec": {"restartPolicy": "Never", "containers": [{
                  "name": "c", "image": "busybox", "command": ["sleep", "100"],
                  "resources": {}, "ports": [], "env": []}]}}}}}]}}


def _url(served: Any, path: str) -> str:
    return served.url + path


@pytest.fixture(scope="module")
def jobset_pod(served: Any) -> dict[str, Any]:
    created = httpx.post(_url(served, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets"),
                         json=JOBSET, timeout=30)
    assert created.status_code == 201, created.text
    moved = httpx.post(_url(served, "/apis/kbatch.dev/v1alpha1/clock"), json={"advance": "5s"}, timeout=60)
    assert moved.status_code == 200, moved.text
    pods = httpx.get(_url(served, "/api/v1/namespaces/default/pods?labelSelector=jobset.sigs.k8s.io"
                                  "%2Fjobset-name%3Dempties"), timeout=30).json()["items"]
    assert len(pods) == 1
    return pods[0]


def test_the_pod_put_back_as_read_is_unchanged(served: Any, jobset_pod: dict[str, Any]) -> None:
    name = jobset_pod["metadata"]["name"]
    path = f"/api/v1/namespaces/default/pods/{name}"
    current = httpx.get(_url(served, path), timeout=30).json()
    put = httpx.put(_url(served, path), json=current, timeout=30)
    assert put.status_code == 200, put.text
    label = [{"op": "add", "path": "/metadata/labels/seen", "value": "yes"}]
    patched = httpx.patch(_url(served, path), timeout=30, content=json.dumps(label),
                          headers={"content-type": "application/json-patch+json"})
    assert patched.status_code == 200, patched.text
    assert patched.json()["metadata"]["generation"] == current["metadata"]["generation"]


def test_the_official_client_replaces_the_pod_and_its_job(served: Any, jobset_pod: dict[str, Any]) -> None:
    api = config.new_client_from_config(config_file=str(served.kubeconfig))
    core, batch = client.CoreV1Api(api), client.BatchV1Api(api)
    name = jobset_pod["metadata"]["name"]
    pod = core.read_namespaced_pod(name, "default")
    pod.metadata.labels["relabelled"] = "1"
    replaced = core.replace_namespaced_pod(name, "default", pod)
    assert replaced.metadata.labels["relabelled"] == "1"
    assert replaced.metadata.generation == pod.metadata.generation
    job_name = jobset_pod["metadata"]["labels"]["job-name"]
    job = batch.read_namespaced_job(job_name, "default")
    job.metadata.labels["relabelled"] = "1"
    replaced_job = batch.replace_namespaced_job(job_name, "default", job)
    assert replaced_job.metadata.generation == job.metadata.generation
