"""DRA devices against Kueue quota through separate ``python -m kbatch.cli`` processes (kueue
v0.19.2 ``KueueDRAIntegration``: ``resources.deviceClassMappings`` maps the DeviceClass
``gpu.example.com`` to the quota resource ``gpus``; ``pkg/dra/claims.go`` counts each pod's
ResourceClaimTemplate devices).

A ClusterQueue with ``gpus: 2``; a Job of 4 pods each claiming one GPU needs 4 and stays pending
with upstream's message (a Workload is admitted whole, or partially only with
``kueue.x-k8s.io/job-min-parallelism``); a Job of 2 such pods is admitted, its pods get their GPUs
and finish."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.processes import kbatch_ok as _run

KUEUE_CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - name: gpus
    deviceClassNames: [gpu.example.com]
"""

SETUP = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, gpus]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 8}
      - {name: gpus, nominalQuota: 2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: user-queue}
spec: {clusterQueue: cluster-queue}
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: default
  labels: {{kueue.x-k8s.io/queue-name: user-queue}}
spec:
  parallelism: {n}
  completions: {n}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sleep, "5"]
        resources: {{requests: {{cpu: 100m}}, claims: [{{name: gpu}}]}}
      resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _workload_of(state: Path, job: str) -> dict[str, Any]:
    items = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
    [wl] = [w for w in items if w["metadata"]["ownerReferences"][0]["name"] == job]
    return wl


def _cond(wl: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in wl["status"]["conditions"] if c["type"] == kind)


def test_gpu_claims_count_against_the_cluster_queues_gpus(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = _write(tmp_path, "kueue.yaml", KUEUE_CONFIG)
    _run(state, "--kueue-config", config, "nodes", "add", "--count", "1", "--gpu", "8",
         "--gpu-driver", "gpu.example.com")
    _run(state, "apply", "-f", _write(tmp_path, "setup.yaml", SETUP))
    _run(state, "apply", "-f", _write(tmp_path, "wide.yaml", JOB.format(name="wide", n=4)))
    _run(state, "advance", "2s")

    wide = _workload_of(state, "wide")
    reserved = _cond(wide, "QuotaReserved")
    assert reserved["status"] == "False"
    assert reserved["message"] == (
        "couldn't assign flavors to pod set main: insufficient quota for gpus in flavor default-flavor, "
        "previously considered podsets requests (0) + current podset request (4) > maximum capacity (2)"
    )
    assert wide["status"]["resourceRequests"] == [{"name": "main", "resources": {"cpu": "400m", "gpus": "4"}}]

    _run(state, "apply", "-f", _write(tmp_path, "narrow.yaml", JOB.format(name="narrow", n=2)))
    _run(state, "advance", "3s")
    narrow = _workload_of(state, "narrow")
    assert _cond(narrow, "Admitted")["status"] == "True"
    [assignment] = narrow["status"]["admission"]["podSetAssignments"]
    assert assignment["resourceUsage"] == {"cpu": "200m", "gpus": "2"}
    cq = json.loads(_run(state, "get", "clusterqueue", "cluster-queue", "-o", "json"))
    usage = {r["name"]: r["total"] for f in cq["status"]["flavorsUsage"] for r in f["resources"]}
    assert usage == {"cpu": "200m", "gpus": "2"}

    claims = json.loads(_run(state, "get", "resourceclaims", "-o", "json"))["items"]
    assert len(claims) == 2  # one per pod from the template, allocated by the scheduler
    assert all(c["status"]["allocation"]["devices"]["results"] for c in claims)

    _run(state, "advance", "30s")
    job = json.loads(_run(state, "get", "jobs", "narrow", "-o", "json"))
    assert job["status"].get("succeeded") == 2
    assert _cond(_workload_of(state, "wide"), "QuotaReserved")["status"] == "False"
