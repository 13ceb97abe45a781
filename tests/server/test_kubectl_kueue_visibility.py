"""Kueue's visibility API against a real ``kbatch serve`` process, as upstream's docs use it
(site/content/en/docs/tasks/manage/monitor_pending_workloads/pending_workloads_on_demand.md, v0.19.2):
the single-ClusterQueue setup, four Jobs of 3 cpu for a 4-cpu queue (one admitted, three pending);
``kubectl get --raw`` of the ClusterQueue's and the LocalQueue's pending workloads, with
``limit``/``offset``; the official client's ``CustomObjectsApi`` reading the same subresources."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kueue"
GROUP = "visibility.kueue.x-k8s.io"
CQ_PATH = f"/apis/{GROUP}/v1beta2/clusterqueues/cluster-queue/pendingworkloads"
LQ_PATH = f"/apis/{GROUP}/v1beta2/namespaces/default/localqueues/user-queue/pendingworkloads"
JOBS = ("job-a", "job-b", "job-c", "job-d")


def _job(name: str) -> dict[str, Any]:
    container = {"name": "dummy-job", "image": "busybox", "command": ["sleep", "30"],
                 "resources": {"requests": {"cpu": "1", "memory": "200Mi"}}}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default",
                         "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
            "spec": {"parallelism": 3, "completions": 3,
                     "template": {"spec": {"containers": [container], "restartPolicy": "Never"}}}}


@pytest.fixture(scope="module")
def queued(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("kueue-visibility")).start()
    try:
        url = f"{server.url}/apis"
        nodes = httpx.post(f"{url}/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 2}, timeout=30)
        assert nodes.is_success, nodes.text
        _apply_queues(server)
        for name in JOBS:
            reply = httpx.post(f"{url}/batch/v1/namespaces/default/jobs", json=_job(name), timeout=30)
            assert reply.status_code == 201, reply.text
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _apply_queues(server: ServeProcess) -> None:
    plural = {"ResourceFlavor": "resourceflavors", "ClusterQueue": "clusterqueues",
              "LocalQueue": "localqueues"}
    for doc in yaml.safe_load_all((EXAMPLES / "queues.yaml").read_text()):
        ns = doc["metadata"].get("namespace")
        scope = f"namespaces/{ns}/" if ns else ""
        reply = httpx.post(f"{server.url}/apis/kueue.x-k8s.io/v1beta2/{scope}{plural[doc['kind']]}", json=doc,
                           timeout=30)
        assert reply.status_code == 201, reply.text


def _positions(summary: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(i["metadata"]["ownerReferences"][0]["name"], i["positionInClusterQueue"],
             i["positionInLocalQueue"]) for i in summary["items"]]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_get_raw_reads_pending_workloads(queued: ServeProcess) -> None:
    def raw(path: str) -> dict[str, Any]:
        out = subprocess.run([KUBECTL, "get", "--raw", path], env=queued.env(), capture_output=True,
                             text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    summary = raw(CQ_PATH)
    assert (summary["kind"], summary["apiVersion"]) == ("PendingWorkloadsSummary", f"{GROUP}/v1beta2")
    assert _positions(summary) == [("job-b", 0, 0), ("job-c", 1, 1), ("job-d", 2, 2)]
    first = summary["items"][0]
    assert first["localQueueName"] == "user-queue" and first["priority"] == 0
    assert first["metadata"]["ownerReferences"][0]["kind"] == "Job"
    assert set(first["metadata"]["ownerReferences"][0]) == {"apiVersion", "kind", "name", "uid"}
    assert _positions(raw(CQ_PATH + "?limit=1&offset=1")) == [("job-c", 1, 1)]
    assert _positions(raw(LQ_PATH + "?offset=2")) == [("job-d", 2, 2)]
    resources = subprocess.run([KUBECTL, "api-resources", "--api-group", GROUP], env=queued.env(),
                               capture_output=True, text=True, timeout=30)
    assert resources.returncode == 0, resources.stderr
    missing = subprocess.run([KUBECTL, "get", "--raw", CQ_PATH.replace("cluster-queue", "nope")],
                             env=queued.env(), capture_output=True, text=True, timeout=30)
    assert missing.returncode != 0 and "not found" in missing.stderr


def test_official_client_reads_pending_workloads(queued: ServeProcess) -> None:
    pytest.importorskip("kubernetes", reason="the official Python client")
    from kubernetes import client, config

    api = client.CustomObjectsApi(config.new_client_from_config(str(queued.kubeconfig)))
    cq = api.get_cluster_custom_object(GROUP, "v1beta2", "clusterqueues", "cluster-queue/pendingworkloads")
    assert _positions(cq) == [("job-b", 0, 0), ("job-c", 1, 1), ("job-d", 2, 2)]
    lq = api.get_namespaced_custom_object(GROUP, "v1beta1", "default", "localqueues",
                                          "user-queue/pendingworkloads")
    assert lq["apiVersion"] == f"{GROUP}/v1beta1" and _positions(lq) == _positions(cq)


def test_kbatch_get_raw_against_the_server(queued: ServeProcess) -> None:
    """``kbatch --server URL get --raw``: the HTTP GET's body as is; an error is the server's Status."""
    def kb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kbatch.cli", "--server", queued.url, *args],
                              capture_output=True, text=True, timeout=60)

    out = kb("get", "--raw", CQ_PATH + "?offset=2")
    assert out.returncode == 0, out.stderr
    assert _positions(json.loads(out.stdout)) == [("job-d", 2, 2)]
    missing = kb("get", "--raw", LQ_PATH.replace("user-queue", "nope"))
    assert missing.returncode == 1
    assert 'Error from server (NotFound): localqueue.visibility.kueue.x-k8s.io "nope" not found' \
        in missing.stderr
