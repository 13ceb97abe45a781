"""An elastic Job scaled by kubectl over ``kbatch serve`` (kueue v0.19.2 ``ElasticJobsViaWorkloadSlices``,
``pkg/workloadslicing``): ``kubectl patch`` raises the Job's parallelism from 2 to 4, a second
Workload (the slice) is admitted and the first one finishes ``WorkloadSliceReplaced``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from tests.cli.conftest import EXAMPLES
from tests.cli.test_kueue_elastic_cli import JOB
from tests.server.test_kubectl_kueue_dra_extended import _advance, _kubectl

KUBECTL = shutil.which("kubectl")


def _conditions(wl: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in wl.get("status", {}).get("conditions", [])}


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_scales_an_elastic_job_through_a_workload_slice(tmp_path: Path) -> None:
    served: Any = ServeProcess(tmp_path / "state").start()
    try:
        nodes = f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add"
        reply = httpx.post(nodes, json={"count": 2}, timeout=30)
        assert reply.status_code == 200, reply.text
        _kubectl(served, "apply", "-f", str(EXAMPLES / "kueue" / "queues.yaml"))
        _kubectl(served, "apply", "-f", "-", stdin=JOB)
        _advance(served, "2s")
        _kubectl(served, "patch", "job", "elastic", "--type=merge", "-p", '{"spec":{"parallelism":4}}')
        _advance(served, "2s")
        items = json.loads(_kubectl(served, "get", "workloads", "-o", "json"))["items"]
        by_kind = {"kueue.x-k8s.io/workload-slice-replacement-for" in w["metadata"].get("annotations", {}): w
                   for w in items}
        assert len(items) == 2
        assert _conditions(by_kind[False])["Finished"] == ("True", "WorkloadSliceReplaced")
        assert _conditions(by_kind[True])["Admitted"] == ("True", "Admitted")
        pods = json.loads(_kubectl(served, "get", "pods", "-o", "json"))["items"]
        assert sum(p["status"].get("phase") == "Running" for p in pods) == 4
    finally:
        assert served.stop() == 0, "".join(served.output)
