"""The kubernetes.io DRA task pages, followed with kubectl against ``kbatch serve``.

"Set Up DRA in a Cluster" prints a ResourceSlice of ``driver.example.com`` with ``type: gpu`` and
``memory: 64Gi`` devices; "Allocate Devices to Workloads with DRA" then applies
``dra/deviceclass.yaml``, ``dra/resourceclaimtemplate.yaml``, ``dra/resourceclaim.yaml`` and
``dra/dra-example-job.yaml`` (kubernetes/website ``content/en/examples``; the DeviceClass in
``resource.k8s.io/v1``, which the page's 1.34 cluster serves, and the claim's ``expression``
indented under ``cel``, which the stored example has at ``cel``'s level). The shared claim asks
for ``allocationMode: All`` of the devices every pod's own claim also selects, so no pod can ever
have both: the pods stay Pending with the scheduler's reason, as upstream's allocator decides.
"Dynamic Resource Allocation", "Admin access": a request with ``adminAccess`` is refused outside a
namespace labelled ``resource.kubernetes.io/admin-access: "true"``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_workflows import kb

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

SLICE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-0-gpus"},
         "spec": {"driver": "driver.example.com", "nodeName": "node-0",
                  "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": f"gpu-{i}", "attributes": {"type": {"string": "gpu"}},
                               "capacity": {"memory": {"value": "64Gi"}}} for i in range(2)]}}

EXAMPLES = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: example-device-class
spec:
  selectors:
  - cel:
      expression: |-
        device.driver == "driver.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: example-resource-claim-template
spec:
  spec:
    devices:
      requests:
      - name: gpu-claim
        exactly:
          deviceClassName: example-device-class
          selectors:
            - cel:
                expression: |-
                  device.attributes["driver.example.com"].type == "gpu" &&
                  device.capacity["driver.example.com"].memory == quantity("64Gi")
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: example-resource-claim
spec:
  devices:
    requests:
    - name: single-gpu-claim
      exactly:
        deviceClassName: example-device-class
        allocationMode: All
        selectors:
        - cel:
            expression: |-
              device.attributes["driver.example.com"].type == "gpu" &&
              device.capacity["driver.example.com"].memory == quantity("64Gi")
---
apiVersion: batch/v1
kind: Job
metadata:
  name: example-dra-job
spec:
  completions: 10
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: container0
        image: ubuntu:24.04
        command: ["sleep", "9999"]
        resources:
          claims:
          - name: separate-gpu-claim
      - name: container1
        image: ubuntu:24.04
        command: ["sleep", "9999"]
        resources:
          claims:
          - name: shared-gpu-claim
      - name: container2
        image: ubuntu:24.04
        command: ["sleep", "9999"]
        resources:
          claims:
          - name: shared-gpu-claim
      resourceClaims:
      - name: separate-gpu-claim
        resourceClaimTemplateName: example-resource-claim-template
      - name: shared-gpu-claim
        resourceClaimName: example-resource-claim
"""

# kubernetes/website content/en/examples/dra/admin-access/ (concept page, "Admin access")
ADMIN_TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: large-black-cat-claim-template
spec:
  spec:
    devices:
      requests:
      - name: req-0
        exactly:
          deviceClassName: resource.example.com
          allocationMode: All
          adminAccess: true
"""


def test_allocate_devices_task_as_written_leaves_the_pods_pending(served: Any) -> None:
    kb(served, "nodes", "add", "--count", "2")
    assert kubectl(served, "get", "deviceclasses", check=False).stderr == "No resources found\n"
    kubectl(served, "apply", "-f", "-", input_=json.dumps(SLICE))
    applied = kubectl(served, "apply", "-f", "-", input_=EXAMPLES)
    assert applied.stdout.splitlines() == [
        "deviceclass.resource.k8s.io/example-device-class created",
        "resourceclaimtemplate.resource.k8s.io/example-resource-claim-template created",
        "resourceclaim.resource.k8s.io/example-resource-claim created", "job.batch/example-dra-job created"]
    classes = kubectl(served, "get", "deviceclasses").stdout
    assert classes.split()[:3] == ["NAME", "AGE", "example-device-class"]
    kb(served, "advance", "5s")
    listed = kubectl(served, "get", "pods", "-l", "job-name=example-dra-job", "-o", "json").stdout
    pods = json.loads(listed)["items"]
    assert len(pods) == 2 and {p["status"]["phase"] for p in pods} == {"Pending"}
    states = [line.split()[1] for line in kubectl(served, "get", "resourceclaims").stdout.splitlines()[1:]]
    assert states == ["pending"] * 3  # two generated from the template, the shared one
    described = kubectl(served, "describe", "pod", pods[0]["metadata"]["name"]).stdout
    assert "FailedScheduling" in described and "cannot allocate all claims" in described


def test_admin_access_needs_the_namespace_label(served: Any) -> None:
    refused = kubectl(served, "apply", "-f", "-", input_=ADMIN_TEMPLATE, check=False)
    assert refused.stderr == (
        'The ResourceClaimTemplate "large-black-cat-claim-template" is invalid: '
        "spec.spec.devices.requests[0].exactly.adminAccess: Forbidden: admin access to devices requires the "
        "`resource.kubernetes.io/admin-access: true` label on the containing namespace\n")
    kubectl(served, "create", "namespace", "admin")
    kubectl(served, "label", "namespace", "admin", "resource.kubernetes.io/admin-access=true")
    created = kubectl(served, "apply", "-n", "admin", "-f", "-", input_=ADMIN_TEMPLATE)
    assert created.stdout == "resourceclaimtemplate.resource.k8s.io/large-black-cat-claim-template created\n"
