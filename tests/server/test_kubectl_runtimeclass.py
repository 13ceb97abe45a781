"""The real kubectl against ``kbatch serve``: node.k8s.io/v1 RuntimeClass is served (docs/runtimeclass.md),
``kubectl get runtimeclass`` prints printers.go ``printRuntimeClass``'s columns (NAME HANDLER AGE),
kubectl's generic describer reads one, and the RuntimeClass admission plugin sets a pod's overhead,
node selector and tolerations, refuses an unknown class, and an invalid class is refused with
kube-apiserver's 422 text."""

from __future__ import annotations

import json
from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

CLASS = """apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata-qemu
overhead:
  podFixed: {cpu: 250m, memory: 160Mi}
scheduling:
  nodeSelector: {sandbox: kata}
  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  runtimeClassName: {rc}
  containers: [{{name: c, image: registry.k8s.io/pause:3.10}}]
"""
BAD = """apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: bad}
handler: Not_A_Label
"""


def test_kubectl_serves_runtime_classes_and_their_admission(served: Any) -> None:
    created = kubectl(served, "apply", "-f", "-", input_=CLASS).stdout
    assert created == "runtimeclass.node.k8s.io/kata created\n"
    lines = kubectl(served, "get", "runtimeclass").stdout.splitlines()
    assert lines[0].split() == ["NAME", "HANDLER", "AGE"]
    assert lines[1].split()[:2] == ["kata", "kata-qemu"]
    described = kubectl(served, "describe", "runtimeclass", "kata").stdout
    assert described.startswith("Name:         kata\n")
    assert "Handler:      kata-qemu" in described and "Pod Fixed:" in described
    kubectl(served, "apply", "-f", "-", input_=POD.format(name="sandboxed", rc="kata"))
    spec = json.loads(kubectl(served, "get", "pod", "sandboxed", "-o", "json").stdout)["spec"]
    assert spec["overhead"] == {"cpu": "250m", "memory": "160Mi"}
    assert spec["nodeSelector"] == {"sandbox": "kata"}
    assert {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    refused = kubectl(served, "apply", "-f", "-", input_=POD.format(name="orphan", rc="nope"), check=False)
    assert refused.returncode != 0
    assert ('pods "orphan" is forbidden: pod rejected: RuntimeClass "nope" not found') in refused.stderr
    invalid = kubectl(served, "apply", "-f", "-", input_=BAD, check=False)
    assert invalid.returncode != 0
    assert 'The RuntimeClass "bad" is invalid: handler: Invalid value: "Not_A_Label"' in invalid.stderr
