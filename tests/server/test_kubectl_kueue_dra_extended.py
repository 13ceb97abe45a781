"""DRA-backed extended resources against Kueue quota as a kubectl user sees them over ``kbatch serve``
(kueue v0.19.2 ``KueueDRAIntegrationExtendedResource``, ``pkg/dra/extended_resources.go``): kubectl
applies a DeviceClass declaring ``extendedResourceName: nvidia.com/gpu``, mapped to ``gpus`` by the
Configuration, and a Job whose pods request ``nvidia.com/gpu: 1``; its Workload reserves ``gpus``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from tests.cli import test_kueue_dra_extended_cli as cli

KUBECTL = shutil.which("kubectl")


def _kubectl(served: ServeProcess, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run([KUBECTL or "kubectl", *args], env=served.env(), capture_output=True, text=True,
                         timeout=30, input=stdin)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _advance(served: ServeProcess, duration: str) -> None:
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration}, timeout=60)
    assert reply.status_code == 200, reply.text


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_sees_extended_resource_requests_reserve_the_mapped_quota(tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"
    config.write_text(cli.KUEUE_CONFIG)
    served: Any = ServeProcess(tmp_path / "state", "--kueue-config", str(config)).start()
    try:
        reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                           json={"count": 1, "gpu": 8}, timeout=30)
        assert reply.status_code == 200, reply.text
        _kubectl(served, "apply", "-f", "-", stdin=cli.SETUP)
        _kubectl(served, "apply", "-f", "-", stdin=cli.JOB.format(name="narrow", n=2))
        _advance(served, "3s")
        [wl] = json.loads(_kubectl(served, "get", "workloads", "-o", "json"))["items"]
        [assignment] = wl["status"]["admission"]["podSetAssignments"]
        assert assignment["resourceUsage"] == {"cpu": "200m", "gpus": "2"}
        _advance(served, "30s")
        job = json.loads(_kubectl(served, "get", "job", "narrow", "-o", "json"))
        assert job["status"]["succeeded"] == 2
    finally:
        assert served.stop() == 0, "".join(served.output)
