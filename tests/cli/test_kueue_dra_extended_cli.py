"""DRA-backed extended resources against Kueue quota through separate ``python -m kbatch.cli``
processes (kueue v0.19.2 ``KueueDRAIntegrationExtendedResource``, ``pkg/dra/extended_resources.go``):
the DeviceClass ``gpu.example.com`` declares ``extendedResourceName: nvidia.com/gpu`` and is mapped
to the quota resource ``gpus``, so a container's ``nvidia.com/gpu: 1`` counts as one ``gpus``.

A Job of 4 such pods against ``gpus: 2`` stays pending with upstream's message; one of 2 pods is
admitted and finishes (kbatch's kube-scheduler does not model the extended-resource DRA mapping,
docs/dra.md, so the node advertises ``nvidia.com/gpu`` itself). A ResourceClaimTemplate whose
selector no published device satisfies is refused with upstream's internal error."""

from __future__ import annotations

import json
from pathlib import Path

from .test_kueue_dra_cli import KUEUE_CONFIG, _cond, _run, _workload_of, _write

SETUP = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: nvidia.com/gpu
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: big-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors: [{cel: {expression: 'device.driver == "tpu.example.com"'}}]
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
        resources: {{requests: {{cpu: 100m, nvidia.com/gpu: 1}}, limits: {{nvidia.com/gpu: 1}}}}
"""

CLAIM_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: claim
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {requests: {cpu: 100m}, claims: [{name: gpu}]}
      resourceClaims: [{name: gpu, resourceClaimTemplateName: big-gpu}]
"""


def test_extended_resource_requests_count_as_the_mapped_quota(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = _write(tmp_path, "kueue.yaml", KUEUE_CONFIG)
    _run(state, "--kueue-config", config, "nodes", "add", "--count", "1", "--gpu", "8")
    _run(state, "apply", "-f", _write(tmp_path, "setup.yaml", SETUP))
    _run(state, "apply", "-f", _write(tmp_path, "wide.yaml", JOB.format(name="wide", n=4)))
    _run(state, "advance", "2s")

    wide = _workload_of(state, "wide")
    assert _cond(wide, "QuotaReserved")["message"] == (
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

    _run(state, "advance", "30s")
    job = json.loads(_run(state, "get", "jobs", "narrow", "-o", "json"))
    assert job["status"].get("succeeded") == 2

    _run(state, "apply", "-f", _write(tmp_path, "claim.yaml", CLAIM_JOB))
    _run(state, "advance", "2s")
    reserved = _cond(_workload_of(state, "claim"), "QuotaReserved")
    assert (reserved["status"], reserved["reason"]) == ("False", "Inadmissible")
    assert reserved["message"] == (
        "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: "
        "Internal error: "
        "ResourceClaimTemplate big-gpu: insufficient matching devices for CEL selector in DeviceClass "
        "gpu.example.com: 0 device(s) match in the cluster but 1 requested"
    )
