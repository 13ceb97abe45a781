"""DRA through the CLI, as separate commands over one state directory (the control plane is saved and
loaded between them): ``nodes add --gpu-driver`` publishes slices, a pod with a claim template runs,
``get``/``describe`` show claims, a bad driver template is a one-line error; a pod waits for its
device's binding conditions across commands."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import EXAMPLES, Kbatch


def test_gpu_driver_nodes_and_a_claim(kb: Kbatch) -> None:
    assert kb.ok(
        "nodes",
        "add",
        "--count",
        "2",
        "--gpu",
        "4",
        "--gpu-driver",
        "gpu.example.com",
        "--gpu-partitions",
        "1",
    ).splitlines() == ["node/node-0 created", "node/node-1 created"]
    slices = kb.ok("get", "resourceslices").splitlines()
    assert slices[0].split() == ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    assert [line.split()[0] for line in slices[1:]] == [
        "node-0-gpu-example-com",
        "node-0-gpu-example-com-counters",
        "node-1-gpu-example-com",
        "node-1-gpu-example-com-counters",
    ]
    kb.ok("apply", "-f", str(EXAMPLES / "dra" / "gpu-pod.yaml"))
    kb.ok("advance", "2s")
    claims = kb.ok("get", "resourceclaims").splitlines()
    assert claims[0].split() == ["NAME", "STATE", "AGE"]
    assert claims[1].split()[1] == "allocated,reserved" and claims[1].startswith("trainer-gpu-")
    assert "Running" in kb.ok("get", "pods")
    described = kb.ok("describe", "pod", "trainer")
    assert "Resource Claims:" in described and "template one-gpu -> trainer-gpu-" in described
    claim = kb.ok("describe", "resourceclaims")
    # kubectl's generic page (no describer for the kind): the allocation and reservation as fields
    # the allocation records when the scheduler wrote it (bindClaim, DRADeviceBindingConditions on)
    assert "  Allocation:\n    Allocation Timestamp:  2025-01-01T00:00:" in claim
    assert "    Devices:\n      Results:\n" in claim
    assert "        Driver:   gpu.example.com\n" in claim
    assert "  Reserved For:\n    Name:      trainer\n    Resource:  pods\n" in claim


def test_a_bad_device_template_is_a_one_line_error(kb: Kbatch) -> None:
    res = kb("nodes", "add", "--gpu", "100", "--gpu-driver", "gpu.example.com")
    assert res.code != 0 and "--gpu must be 1..64" in res.err
    assert "Traceback" not in res.err


_BINDING_OBJECTS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: fabric}
spec:
  selectors:
  - cel: {expression: device.driver == "fabric.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-0-fabric}
spec:
  driver: fabric.example.com
  nodeName: node-0
  pool: {name: node-0, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, bindingConditions: [Attached], bindingFailureConditions: [AttachFailed]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: fabric}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: c, image: busybox, command: [sleep, "1000"], resources: {claims: [{name: gpu}]}}
  resourceClaims:
  - {name: gpu, resourceClaimName: c}
"""

_ATTACHED = (
    '{"status":{"devices":[{"driver":"fabric.example.com","pool":"node-0","device":"gpu-0",'
    '"conditions":[{"type":"Attached","status":"True","reason":"Attached","message":"",'
    '"lastTransitionTime":"2025-01-01T00:00:31Z"}]}]}}'
)


def test_a_pod_waits_for_device_binding_conditions_across_commands(kb: Kbatch, tmp_path: Path) -> None:
    """KEP-5007 (DRADeviceBindingConditions, on by default in 1.37): the scheduler's PreBind waits
    until the device's binding condition is True in the claim's status (here patched by the user, as
    a driver would), across separately saved and loaded commands; then the pod is bound and runs."""
    manifest = tmp_path / "binding.yaml"
    manifest.write_text(_BINDING_OBJECTS)
    kb.ok("nodes", "add", "--count", "1", "--prefix", "node")
    kb.ok("apply", "-f", str(manifest))
    kb.ok("advance", "1s")
    assert kb.ok("get", "resourceclaims").splitlines()[1].split()[1] == "allocated,reserved"
    assert "waiting for binding conditions for device on node node-0" in kb.ok("get", "events")
    kb.ok("advance", "30s")
    assert kb.ok("get", "pod", "p").splitlines()[1].split()[2] == "Pending"
    kb.ok("patch", "resourceclaim", "c", "--subresource", "status", "--type", "merge", "-p", _ATTACHED)
    kb.ok("advance", "5s")
    row = kb.ok("get", "pod", "p", "-o", "wide").splitlines()[1].split()
    assert row[2] == "Running" and row[6] == "node-0"
