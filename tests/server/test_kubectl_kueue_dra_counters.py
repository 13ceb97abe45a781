"""Counter-based DRA quota as a kubectl user sees it over ``kbatch serve`` (kueue v0.19.2
``KueueDRAIntegrationPartitionableDevices``, ``pkg/dra/counters.go``): kubectl applies a GPU's
counter set and MIG partitions as ResourceSlices, a MIG DeviceClass mapped to ``gpu.memory`` with a
``memory`` counter source, and Jobs of 1g.10gb and 3g.20gb pods; the Workloads reserve the
partitions' memory, not device counts, and the 3g.20gb pod waits for the quota the others hold."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from tests.cli import test_kueue_dra_counters_cli as cli

KUBECTL = shutil.which("kubectl")


def _kubectl(served: ServeProcess, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run([KUBECTL or "kubectl", *args], env=served.env(), capture_output=True, text=True,
                         timeout=30, input=stdin)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _advance(served: ServeProcess, duration: str) -> None:
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration}, timeout=60)
    assert reply.status_code == 200, reply.text


def _usage(served: ServeProcess) -> dict[str, Any]:
    items = json.loads(_kubectl(served, "get", "workloads", "-o", "json"))["items"]
    out = {}
    for wl in items:
        admission = wl["status"].get("admission")
        job = wl["metadata"]["ownerReferences"][0]["name"]
        out[job] = admission["podSetAssignments"][0]["resourceUsage"] if admission else None
    return out


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_sees_mig_partitions_reserve_their_memory(tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"
    config.write_text(cli.KUEUE_CONFIG)
    served: Any = ServeProcess(tmp_path / "state", "--kueue-config", str(config)).start()
    try:
        reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                           json={"count": 1}, timeout=30)
        assert reply.status_code == 200, reply.text
        _kubectl(served, "apply", "-f", "-", stdin=cli.SETUP)
        _kubectl(served, "apply", "-f", "-", stdin=cli.QUEUES)
        _kubectl(served, "apply", "-f", "-", stdin=cli.JOB.format(name="small", n=3, template="mig-1g"))
        _advance(served, "2s")
        _kubectl(served, "apply", "-f", "-", stdin=cli.JOB.format(name="big", n=1, template="mig-3g"))
        _advance(served, "2s")
        assert _usage(served) == {"small": {"cpu": "300m", "gpu.memory": "30Gi"}, "big": None}
        _advance(served, "20s")
        assert _usage(served)["big"] == {"cpu": "100m", "gpu.memory": "20Gi"}
        job = json.loads(_kubectl(served, "get", "job", "big", "-o", "json"))
        assert job["status"]["succeeded"] == 1
    finally:
        assert served.stop() == 0, "".join(served.output)
