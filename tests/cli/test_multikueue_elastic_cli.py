"""An elastic Job through MultiKueue as a user runs it: the manager is ``kbatch`` commands on a state
directory (each a separate process), the worker a ``kbatch serve`` reached over HTTP.

kubernetes-sigs/kueue v0.19.2 ``test/e2e/multikueue`` / ``test/integration/multikueue/elasticjob_test.go``:
the Job runs on the worker; ``kbatch patch`` scales it up on the manager; the new Workload slice is
admitted on the manager with the old slice's ``clusterName``, dispatched to that worker only, and the
worker's Job is patched in place (``parallelism``, prebuilt Workload): its first pods keep running,
two more start, and the Job completes with all four on the manager.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from kbatch.server.process import ServeProcess
from tests.cli.conftest import EXAMPLES
from tests.cli.multikueue_worker import set_up_worker, worker_secret
from tests.cli.processes import kbatch_ok as _run

SETUP = EXAMPLES / "multikueue" / "manager-setup.yaml"
WORKER = "multikueue-test-worker2"
REPLACEMENT_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: elastic-sample
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: [sleep, "16"]
        resources: {requests: {cpu: "1"}}
"""


def _worker_get(url: str, path: str) -> Any:
    reply = httpx.get(f"{url}{path}", timeout=60)
    assert reply.is_success, reply.text
    return reply.json()


def _worker_running(url: str) -> set[str]:
    pods = _worker_get(url, "/api/v1/namespaces/default/pods")["items"]
    return {
        p["metadata"]["name"]
        for p in pods
        if p.get("status", {}).get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")
    }


def _worker_job(url: str) -> dict[str, Any]:
    (job,) = _worker_get(url, "/apis/batch/v1/namespaces/default/jobs")["items"]
    return job  # type: ignore[no-any-return]


def _step(state: Path, url: str, seconds: int) -> None:
    _run(state, "advance", f"{seconds}s")
    reply = httpx.post(f"{url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": f"{seconds}s"}, timeout=60)
    assert reply.is_success, reply.text


def _until(state: Path, url: str, done: Any, what: str, seconds: int = 2) -> None:
    for _ in range(30):
        _step(state, url, seconds)
        if done():
            return
    raise AssertionError(f"never: {what}")


def test_an_elastic_job_scaled_up_keeps_its_pods_on_the_worker(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "worker") as worker:
        url = worker.url
        set_up_worker(url)
        state = tmp_path / "manager"
        _run(state, "apply", "-f", str(SETUP))
        _run(state, "apply", "-f", str(worker_secret(tmp_path / "secret.json", url)))
        job_file = tmp_path / "elastic.yaml"
        job_file.write_text(JOB)
        _run(state, "apply", "-f", str(job_file))
        _until(state, url, lambda: len(_worker_running(url)) == 2, "two pods running on the worker")
        first_pods, first_job = _worker_running(url), _worker_job(url)
        _run(state, "patch", "job", "elastic-sample", "-p", '{"spec": {"parallelism": 4}}')
        _until(state, url, lambda: len(_worker_running(url)) == 4, "four pods running on the worker")
        assert first_pods <= _worker_running(url)  # the first two kept running
        job = _worker_job(url)
        assert job["metadata"]["uid"] == first_job["metadata"]["uid"]  # patched, not re-created
        assert job["spec"]["parallelism"] == 4
        slices = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
        new = next(
            w
            for w in slices
            if "kueue.x-k8s.io/workload-slice-replacement-for" in w["metadata"]["annotations"]
        )
        old = next(w for w in slices if w is not new)
        assert new["status"]["clusterName"] == WORKER
        assert (
            job["metadata"]["annotations"]["kueue.x-k8s.io/prebuilt-workload-name"] == new["metadata"]["name"]
        )
        finished = [c for c in old["status"]["conditions"] if c["type"] == "Finished"]
        assert [(c["status"], c["reason"]) for c in finished] == [("True", "WorkloadSliceReplaced")]

        def complete() -> bool:
            status = json.loads(_run(state, "get", "job", "elastic-sample", "-o", "json"))["status"]
            return any(c["type"] == "Complete" for c in status.get("conditions", []))

        _until(state, url, complete, "the manager's Job completes", seconds=5)
        status = json.loads(_run(state, "get", "job", "elastic-sample", "-o", "json"))["status"]
        assert status["succeeded"] == 4
