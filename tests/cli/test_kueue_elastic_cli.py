"""An elastic Job scaled with separate ``kbatch`` processes over one state directory (Kueue's
``ElasticJobsViaWorkloadSlices``, v0.19.2 ``pkg/workloadslicing``): admitted at parallelism 2,
patched to 4 → a second Workload (the slice) admitted, the first finished ``WorkloadSliceReplaced``,
4 pods running; patched to 1 → the slice shrinks in place and the ClusterQueue's usage drops."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: elastic
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sleep, "600"]
        resources: {requests: {cpu: "1"}}
"""


def _workloads(state: Path) -> list[dict]:
    items = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
    return sorted(items, key=lambda w: "kueue.x-k8s.io/workload-slice-replacement-for"
                  in w["metadata"].get("annotations", {}))


def _cond(obj: dict, kind: str) -> tuple[str, str] | None:
    found = [c for c in obj.get("status", {}).get("conditions", []) if c["type"] == kind]
    return (found[0]["status"], found[0]["reason"]) if found else None


def _running(state: Path) -> list[str]:
    pods = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
    return [p["metadata"]["name"] for p in pods
            if p["status"].get("phase") == "Running" and "deletionTimestamp" not in p["metadata"]]


def _cpu(state: Path) -> str:
    cq = json.loads(_run(state, "get", "clusterqueue", "cluster-queue", "-o", "json"))
    usage = cq["status"]["flavorsUsage"][0]["resources"]
    return next(r["total"] for r in usage if r["name"] == "cpu")


def test_an_elastic_job_scales_up_through_a_slice_and_down_in_place(tmp_path: Path) -> None:
    state = tmp_path / "state"
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    _run(state, "nodes", "add", "--count", "2")
    _run(state, "apply", "-f", str(EXAMPLES / "kueue" / "queues.yaml"))
    _run(state, "apply", "-f", str(job))
    _run(state, "advance", "2s")
    (first,) = _workloads(state)
    assert _cond(first, "Admitted") == ("True", "Admitted")
    assert len(_running(state)) == 2

    _run(state, "patch", "job", "elastic", "-p", '{"spec": {"parallelism": 4}}')
    _run(state, "advance", "2s")
    old, new = _workloads(state)
    assert old["metadata"]["name"] == first["metadata"]["name"]
    assert _cond(old, "Finished") == ("True", "WorkloadSliceReplaced")
    assert _cond(new, "Admitted") == ("True", "Admitted")
    annotations = new["metadata"]["annotations"]
    replaces = annotations["kueue.x-k8s.io/workload-slice-replacement-for"]
    assert replaces == f"default/{old['metadata']['name']}"
    assert annotations["kueue.x-k8s.io/workload-slice-name"] == old["metadata"]["name"]
    assert len(_running(state)) == 4
    assert _cpu(state) == "4"
    described = _run(state, "describe", "workload", old["metadata"]["name"])
    assert "WorkloadSliceReplaced" in described

    _run(state, "patch", "job", "elastic", "-p", '{"spec": {"parallelism": 1}}')
    _run(state, "advance", "2s")
    _, shrunk = _workloads(state)
    assert [ps["count"] for ps in shrunk["spec"]["podSets"]] == [1]
    assert _cpu(state) == "1"
