"""Counter-based DRA quota through separate ``python -m kbatch.cli`` processes (kueue v0.19.2
``KueueDRAIntegrationPartitionableDevices``, ``pkg/dra/counters.go``): a MIG DeviceClass mapped to
``gpu.memory`` with a ``memory`` counter source. The node's GPU publishes a 40Gi counter set and
MIG profiles consuming it (a pool of two ResourceSlices: the counters, the devices). Against
``gpu.memory: 30Gi``, three 1g.10gb pods are charged 30Gi and admitted; one 3g.20gb pod, a single
device, waits for 20Gi; once the first Job finishes it is admitted; both Jobs' pods get their
partitions from the scheduler and finish."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.processes import kbatch_ok as _run

KUEUE_CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - name: gpu.memory
    deviceClassNames: [mig.example.com]
    sources:
    - counter:
        name: memory
        driver: gpu.example.com
        deviceSelector: {cel: {expression: "device.driver == 'gpu.example.com'"}}
"""

SETUP = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: mig.example.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
  - cel: {expression: "device.attributes['gpu.example.com'].type == 'mig'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-0-gpu-counters}
spec:
  driver: gpu.example.com
  nodeName: node-0
  pool: {name: node-0, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counter-set
    counters: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-0-gpu-devices}
spec:
  driver: gpu.example.com
  nodeName: node-0
  pool: {name: node-0, generation: 1, resourceSliceCount: 2}
  devices:
  - name: mig-1g10gb-0
    attributes: {type: {string: mig}, profile: {string: 1g.10gb}}
    consumesCounters: [{counterSet: gpu-0-counter-set, counters: {memory: {value: 10Gi}}}]
  - name: mig-1g10gb-1
    attributes: {type: {string: mig}, profile: {string: 1g.10gb}}
    consumesCounters: [{counterSet: gpu-0-counter-set, counters: {memory: {value: 10Gi}}}]
  - name: mig-1g10gb-2
    attributes: {type: {string: mig}, profile: {string: 1g.10gb}}
    consumesCounters: [{counterSet: gpu-0-counter-set, counters: {memory: {value: 10Gi}}}]
  - name: mig-3g20gb-0
    attributes: {type: {string: mig}, profile: {string: 3g.20gb}}
    consumesCounters: [{counterSet: gpu-0-counter-set, counters: {memory: {value: 20Gi}}}]
"""

QUEUES = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: mig-1g, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: mig.example.com
          selectors: [{cel: {expression: "device.attributes['gpu.example.com'].profile == '1g.10gb'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: mig-3g, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: mig.example.com
          selectors: [{cel: {expression: "device.attributes['gpu.example.com'].profile == '3g.20gb'"}}]
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
  - coveredResources: [cpu, gpu.memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 8}
      - {name: gpu.memory, nominalQuota: 30Gi}
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
      resourceClaims: [{{name: gpu, resourceClaimTemplateName: {template}}}]
"""


def _apply(state: Path, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    _run(state, "apply", "-f", str(path))


def _workload_of(state: Path, job: str) -> dict[str, Any]:
    items = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
    [wl] = [w for w in items if w["metadata"]["ownerReferences"][0]["name"] == job]
    return wl


def _reserved(wl: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in wl["status"]["conditions"] if c["type"] == "QuotaReserved")


def test_mig_profiles_are_admitted_by_their_memory_counter(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = tmp_path / "kueue.yaml"
    config.write_text(KUEUE_CONFIG)
    _run(state, "--kueue-config", str(config), "nodes", "add", "--count", "1")
    _apply(state, tmp_path, "setup.yaml", SETUP)
    _apply(state, tmp_path, "queues.yaml", QUEUES)
    _apply(state, tmp_path, "small.yaml", JOB.format(name="small", n=3, template="mig-1g"))
    _run(state, "advance", "2s")
    _apply(state, tmp_path, "big.yaml", JOB.format(name="big", n=1, template="mig-3g"))
    _run(state, "advance", "2s")

    small = _workload_of(state, "small")
    assert _reserved(small)["status"] == "True"
    [assignment] = small["status"]["admission"]["podSetAssignments"]
    assert assignment["resourceUsage"] == {"cpu": "300m", "gpu.memory": "30Gi"}
    big = _workload_of(state, "big")
    assert _reserved(big)["message"] == (
        "couldn't assign flavors to pod set main: insufficient unused quota for gpu.memory in flavor "
        "default-flavor, 20Gi more needed"
    )
    assert big["status"]["resourceRequests"] == [
        {"name": "main", "resources": {"cpu": "100m", "gpu.memory": "20Gi"}}
    ]
    cq = json.loads(_run(state, "get", "clusterqueue", "cluster-queue", "-o", "json"))
    usage = {r["name"]: r["total"] for f in cq["status"]["flavorsUsage"] for r in f["resources"]}
    assert usage == {"cpu": "300m", "gpu.memory": "30Gi"}
    claims = json.loads(_run(state, "get", "resourceclaims", "-o", "json"))["items"]
    devices = sorted(r["device"] for c in claims for r in c["status"]["allocation"]["devices"]["results"])
    assert devices == ["mig-1g10gb-0", "mig-1g10gb-1", "mig-1g10gb-2"]  # 30Gi of the GPU's 40Gi

    _run(state, "advance", "20s")
    assert _reserved(_workload_of(state, "big"))["status"] == "True"
    jobs = json.loads(_run(state, "get", "jobs", "-o", "json"))["items"]
    assert {j["metadata"]["name"]: j["status"].get("succeeded") for j in jobs} == {"big": 1, "small": 3}


CAPACITY_CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
resources:
  deviceClassMappings:
  - name: gpu.memory
    deviceClassNames: [vgpu.example.com]
    sources:
    - capacity:
        name: memory
        driver: gpu.example.com
        deviceSelector: {cel: {expression: "device.driver == 'gpu.example.com'"}}
"""


def test_capacity_sources_need_the_alpha_gate_on_the_command_line(tmp_path: Path) -> None:
    """``KueueDRAIntegrationConsumableCapacity`` is alpha: refused without it, accepted with
    ``--feature-gates`` (Kueue validates its Configuration after applying the flag)."""
    config = tmp_path / "kueue.yaml"
    config.write_text(CAPACITY_CONFIG)
    state = str(tmp_path / "state")
    args = [sys.executable, "-m", "kbatch.cli", "--state", state, "--kueue-config", str(config)]
    refused = subprocess.run([*args, "nodes", "add"], capture_output=True, text=True, timeout=180)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled" in refused.stderr
    gate = "KueueDRAIntegrationConsumableCapacity=true"
    _run(tmp_path / "state", "--feature-gates", gate, "--kueue-config", str(config), "nodes", "add")
