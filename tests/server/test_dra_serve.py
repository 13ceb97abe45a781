"""DRA over ``kbatch serve``: the real kubectl and the official ``kubernetes`` Python client create,
list, get and describe the resource.k8s.io/v1 kinds; a pod with a claim template runs on a node whose
simulated driver publishes GPUs (nodes added with the ``nodes-add`` action's ``dra`` template)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

KUBECTL = shutil.which("kubectl")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dra" / "gpu-pod.yaml"


def _kubectl(served: Any, *args: str) -> str:
    out = subprocess.run([KUBECTL, *args], env=served.env(), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _add_gpu_nodes(served: Any) -> None:
    body = {"count": 1, "gpu": 2, "prefix": "dra", "dra": {"driver": "gpu.example.com", "count": 2}}
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json=body, timeout=30)
    assert reply.status_code == 200, reply.text


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_runs_a_pod_with_a_claim(served: Any) -> None:
    _add_gpu_nodes(served)
    assert "created" in _kubectl(served, "apply", "-f", str(EXAMPLE))
    slices = _kubectl(served, "get", "resourceslices").splitlines()
    assert slices[0].split() == ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    assert any("gpu.example.com" in line for line in slices[1:])

    def claims() -> list[dict]:
        return json.loads(_kubectl(served, "get", "resourceclaims", "-o", "json"))["items"]

    # the served clock is virtual: move it instead of waiting (the claim is generated, allocated and
    # reserved for the pod within the first seconds)
    moved = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"}, timeout=30)
    assert moved.status_code == 200, moved.text
    assert any((c.get("status") or {}).get("reservedFor") for c in claims())
    [claim] = claims()
    assert claim["metadata"]["name"].startswith("trainer-gpu-")
    table = _kubectl(served, "get", "resourceclaims").splitlines()
    assert table[0].split() == ["NAME", "STATE", "AGE"] and "allocated,reserved" in table[1]
    described = _kubectl(
        served, "describe", "resourceclaim", claim["metadata"]["name"]
    )  # kubectl's describer
    assert "gpu.example.com" in described and "trainer" in described


def test_python_client_reads_the_resource_api(served: Any) -> None:
    kubernetes = pytest.importorskip("kubernetes", reason="the official Python client")
    from kubernetes import client, config

    api = client.ResourceV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))
    api.create_device_class(
        client.V1DeviceClass(
            metadata=client.V1ObjectMeta(name="py-class"),
            spec=client.V1DeviceClassSpec(
                selectors=[
                    client.V1DeviceSelector(
                        cel=client.V1CELDeviceSelector(expression='device.driver == "x.example.com"')
                    )
                ]
            ),
        )
    )
    names = [c.metadata.name for c in api.list_device_class().items]
    assert "py-class" in names
    with pytest.raises(kubernetes.client.rest.ApiException) as err:
        api.create_device_class(
            client.V1DeviceClass(
                metadata=client.V1ObjectMeta(name="py-bad"),
                spec=client.V1DeviceClassSpec(
                    selectors=[client.V1DeviceSelector(cel=client.V1CELDeviceSelector(expression="nope"))]
                ),
            )
        )
    assert err.value.status == 422 and "undeclared reference to 'nope'" in err.value.body
    api.delete_device_class("py-class")


NIC_EXAMPLE = EXAMPLE.parent / "network-device-pod.yaml"


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_shows_the_device_status_a_driver_wrote(served: Any) -> None:
    """A node whose simulated driver reports device status (KEP-4817): ``kubectl get -o yaml`` shows
    the claim's ``status.devices`` entry with its Ready condition, data and networkData."""
    dra = {"driver": "nic.example.com", "count": 2, "deviceStatus": True, "network": True}
    body = {"count": 1, "prefix": "net", "dra": dra}
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json=body, timeout=30)
    assert reply.status_code == 200, reply.text
    assert "created" in _kubectl(served, "apply", "-f", str(NIC_EXAMPLE))
    moved = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"}, timeout=30)
    assert moved.status_code == 200, moved.text
    claims = json.loads(_kubectl(served, "get", "resourceclaims", "-o", "json"))["items"]
    [name] = [c["metadata"]["name"] for c in claims if c["metadata"]["name"].startswith("router-nic-")]
    text = _kubectl(served, "get", "resourceclaim", name, "-o", "yaml")
    for line in ("devices:", "driver: nic.example.com", "device: nic-0", "type: Ready",
                 "reason: DevicePrepared", "interfaceName: net1", "hardwareAddress: 02:", "- 10.200.0."):
        assert line in text, text
    described = _kubectl(served, "describe", "resourceclaim", name)
    assert "Network Data" in described and "Ready" in described, described


FABRIC_EXAMPLE = EXAMPLE.parent / "fabric-gpu-pod.yaml"


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_shows_the_binding_conditions_a_driver_set(served: Any) -> None:
    """A node whose simulated driver attaches its devices (KEP-5007 binding conditions): the pod waits
    while the claim is reserved; once the attach delay has passed, ``kubectl get -o yaml`` shows the
    device's ``attached`` condition and the pod runs."""
    dra = {"driver": "fabric.example.com", "count": 2, "bindingConditions": ["attached"],
           "attachDelay": 12}
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                       json={"count": 1, "prefix": "fabric", "dra": dra}, timeout=30)
    assert reply.status_code == 200, reply.text
    assert "created" in _kubectl(served, "apply", "-f", str(FABRIC_EXAMPLE))

    def advance(seconds: str) -> None:
        moved = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": seconds},
                           timeout=30)
        assert moved.status_code == 200, moved.text

    advance("8s")
    pod = json.loads(_kubectl(served, "get", "pod", "attached-trainer", "-o", "json"))
    assert not pod["spec"].get("nodeName")
    events = _kubectl(served, "get", "events", "--field-selector", "involvedObject.name=attached-trainer")
    assert "BindingConditionsPending" in events, events
    advance("10s")
    claims = json.loads(_kubectl(served, "get", "resourceclaims", "-o", "json"))["items"]
    [name] = [c["metadata"]["name"] for c in claims if c["metadata"]["name"].startswith("attached-trainer-")]
    text = _kubectl(served, "get", "resourceclaim", name, "-o", "yaml")
    for line in ("bindingConditions:", "- attached", "bindingFailureConditions:", "- attach-failed",
                 "type: attached", "reason: Attached", "message: device attached to node fabric-0"):
        assert line in text, text
    phase = _kubectl(served, "get", "pod", "attached-trainer", "-o", "jsonpath={.status.phase}")
    assert phase == "Running"


FLAKY = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: flaky-gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "flaky.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-flaky-gpus, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: flaky-gpu, count: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: flaky-trainer, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: [sleep, "3600"], resources: {claims: [{name: gpu}]}}
  resourceClaims: [{name: gpu, resourceClaimTemplateName: two-flaky-gpus}]
"""


def test_kubectl_reads_each_devices_attachment_outcome(served: Any, tmp_path: Path) -> None:
    """A driver whose gpu-0 attachments fail (``attachFailDevices``): a claim holding gpu-0 and gpu-1
    shows, per device, gpu-0's failure condition and gpu-1's binding condition (jsonpath over
    ``status.devices``), and the pod, whose binding failed, is not bound."""
    dra = {"driver": "flaky.example.com", "count": 2, "bindingConditions": ["attached"],
           "attachDelay": 3, "attachFailDevices": ["gpu-0"]}
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                       json={"count": 1, "prefix": "flaky", "dra": dra}, timeout=30)
    assert reply.status_code == 200, reply.text
    manifest = tmp_path / "flaky.yaml"
    manifest.write_text(FLAKY)
    assert "created" in _kubectl(served, "apply", "-f", str(manifest))
    moved = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "4s"}, timeout=30)
    assert moved.status_code == 200, moved.text
    claims = json.loads(_kubectl(served, "get", "resourceclaims", "-o", "json"))["items"]
    [name] = [c["metadata"]["name"] for c in claims if c["metadata"]["name"].startswith("flaky-trainer-")]
    path = "jsonpath={range .status.devices[*]}{.device}:{.conditions[0].type}={.conditions[0].reason} {end}"
    assert _kubectl(served, "get", "resourceclaim", name, "-o", path).split() == [
        "gpu-0:attach-failed=AttachFailed", "gpu-1:attached=Attached"]
    assert _kubectl(served, "get", "pod", "flaky-trainer", "-o", "jsonpath={.spec.nodeName}") == ""
