"""DRA-backed extended resources as a kubectl user sees them over ``kbatch serve`` (KEP-5004):
kubectl applies a DeviceClass with ``extendedResourceName: example.com/gpu`` and a pod asking for
two; the pod runs, ``kubectl get resourceclaims`` lists the scheduler's claim, and the pod's
``status.extendedResourceClaimStatus`` names it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dra" / "extended-resource-pod.yaml"


def _kubectl(served: ServeProcess, *args: str) -> str:
    out = subprocess.run([KUBECTL or "kubectl", *args], env=served.env(), capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_sees_the_special_claim(tmp_path: Path) -> None:
    served: Any = ServeProcess(tmp_path / "state").start()
    try:
        body = {"count": 2, "dra": {"driver": "gpu.example.com", "count": 4}}
        reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json=body, timeout=30)
        assert reply.status_code == 200, reply.text
        _kubectl(served, "apply", "-f", str(EXAMPLE))
        reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "2s"}, timeout=60)
        assert reply.status_code == 200, reply.text
        pod = json.loads(_kubectl(served, "get", "pod", "trainer", "-o", "json"))
        assert pod["status"]["phase"] == "Running"
        name = pod["status"]["extendedResourceClaimStatus"]["resourceClaimName"]
        assert name.startswith("trainer-extended-resources-")
        listed = _kubectl(served, "get", "resourceclaims", "-o", "name")
        assert listed.split() == [f"resourceclaim.resource.k8s.io/{name}"]
        claim = json.loads(_kubectl(served, "get", "resourceclaim", name, "-o", "json"))
        assert len(claim["status"]["allocation"]["devices"]["results"]) == 2
        assert claim["status"]["reservedFor"][0]["name"] == "trainer"
    finally:
        assert served.stop() == 0, "".join(served.output)
