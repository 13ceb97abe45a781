"""Kubernetes' own gang scheduling examples, run as a new user runs them: kubectl against
``kbatch serve`` and the ``kbatch`` CLI in separate processes (docs/gang.md, "Upstream's examples").

The manifests are the kubernetes.io pages' (kubernetes/website
``content/en/docs/concepts/workloads/podgroup-api/_index.md`` "How it fits together" and "Creating a
PodGroup", ``.../pods/scheduling-group.md``, ``.../scheduling-eviction/gang-scheduling.md``). The
English pages still spell them ``scheduling.k8s.io/v1alpha2`` with ``podGroupTemplateRef``, which
1.37 removed without conversion (KEP-4671 "Upgrade / Downgrade Strategy"): a 1.37 cluster refuses
them as kbatch does, and the same example in 1.37's spelling (``v1beta1``, ``workloadRef``
``{workloadName, templateName}``, the translated 1.37 pages) reaches the documented outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

ROOT = Path(__file__).resolve().parents[2]

FITS_TOGETHER_1_36 = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata:
  name: training-policy
spec:
  podGroupTemplates:
  - name: worker
    schedulingPolicy:
      gang:
        minCount: 4
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: training-worker-0
spec:
  podGroupTemplateRef:
    workload:
      workloadName: training-policy
      podGroupTemplateName: worker
  schedulingPolicy:
    gang:
      minCount: 4
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  schedulingGroup:
    podGroupName: training-worker-0
  containers:
  - name: ml-worker
    image: training:v1
"""

FITS_TOGETHER_1_37 = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training-policy
spec:
  podGroupTemplates:
  - name: worker
    schedulingPolicy:
      gang:
        minCount: 4
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-worker-0
spec:
  workloadRef:
    workloadName: training-policy
    templateName: worker
  schedulingPolicy:
    gang:
      minCount: 4
"""


def _worker(name: str, cpu: str = "1") -> str:
    """The pages' Pod (``scheduling-group.md``), with a CPU request so that four do not fit on three."""
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  schedulingGroup:\n"
            f"    podGroupName: training-worker-0\n  containers:\n  - name: ml-worker\n"
            f"    image: training:v1\n    resources:\n      requests:\n        cpu: \"{cpu}\"\n")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("gang-docs"), "--feature-gates",
                          "GenericWorkload=true").start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _kubectl(served: Any, *args: str, input_: str | None = None,
             ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([KUBECTL or "kubectl", *args], env=served.env(), capture_output=True, text=True,
                          timeout=60, input=input_)
    assert (done.returncode == 0) == ok, done.stderr
    return done


def _kbatch(tmp: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "kbatch", *args], capture_output=True, text=True, env=env,
                          cwd=tmp, timeout=120)
    assert (done.returncode == 0) == ok, done.stderr + done.stdout
    return done


def _advance(served: Any, duration: str) -> None:
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration}, timeout=30)
    assert reply.status_code == 200, reply.text


def test_the_pages_1_36_example_is_refused_as_a_1_37_cluster_refuses_it(served: Any, tmp_path: Path) -> None:
    """kubectl maps every document first and applies what it can: the Pod is created, the two
    removed kinds are reported together, one line each without ``error:`` (kubectl's
    ``MultipleErrors``), exit 1; kbatch's CLI, local and over HTTP, prints the same."""
    example = tmp_path / "fits.yaml"
    example.write_text(FITS_TOGETHER_1_36)
    remote = _kubectl(served, "apply", "-f", str(example), ok=False)
    assert remote.stdout == "pod/worker-0 created\n"
    assert remote.stderr.count("ensure CRDs are installed first") == 2
    assert 'no matches for kind "Workload" in version "scheduling.k8s.io/v1alpha2"' in remote.stderr
    assert "error:" not in remote.stderr
    state = ["--state", str(tmp_path / "state"), "--feature-gates", "GenericWorkload=true"]
    local = _kbatch(tmp_path, *state, "apply", "-f", "fits.yaml", ok=False)
    assert (local.stdout, local.stderr) == (remote.stdout, remote.stderr.replace(str(example), "fits.yaml"))
    _kubectl(served, "delete", "pod", "worker-0", "--wait=false")
    over_http = _kbatch(tmp_path, "--server", served.url, "apply", "-f", "fits.yaml", ok=False)
    assert (over_http.stdout, over_http.stderr) == (local.stdout, local.stderr)
    _kubectl(served, "delete", "pod", "worker-0", "--wait=false")
    _advance(served, "1m")


def test_the_1_37_example_gangs_as_the_pages_describe(served: Any) -> None:
    """``gang-scheduling.md``: pods wait until ``minCount`` exist; a group the cluster cannot hold
    binds none (``PodGroupInitiallyScheduled`` False/Unschedulable, ``FailedScheduling`` on the
    pods); room for all four binds all four and the condition turns True."""
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                       json={"count": 1, "cpu": "3", "prefix": "small"}, timeout=30)
    assert reply.status_code == 200, reply.text
    _kubectl(served, "apply", "-f", "-", input_=FITS_TOGETHER_1_37 + "---\n" + _worker("worker-0"))
    _advance(served, "10s")
    group = json.loads(_kubectl(served, "get", "podgroup", "training-worker-0", "-o", "json").stdout)
    assert group["status"] == {} or "conditions" not in group["status"]  # held at PreEnqueue: no cycle yet
    for i in (1, 2, 3):
        _kubectl(served, "apply", "-f", "-", input_=_worker(f"worker-{i}"))
    _advance(served, "10s")
    pods = json.loads(_kubectl(served, "get", "pods", "-o", "json").stdout)["items"]
    workers = [p for p in pods if p["metadata"]["name"].startswith("worker-")]
    assert [p["spec"].get("nodeName") for p in workers] == [None] * 4
    group = json.loads(_kubectl(served, "get", "podgroup", "training-worker-0", "-o", "json").stdout)
    [condition] = group["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == \
        ("PodGroupInitiallyScheduled", "False", "Unschedulable")
    assert "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining" in condition["message"]
    events = _kubectl(served, "get", "events", "--field-selector", "involvedObject.name=worker-0").stdout
    assert "FailedScheduling" in events
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                       json={"count": 1, "cpu": "3", "prefix": "more"}, timeout=30)
    assert reply.status_code == 200, reply.text
    _advance(served, "5m")
    pods = json.loads(_kubectl(served, "get", "pods", "-o", "json").stdout)["items"]
    assert all(p["spec"].get("nodeName") for p in pods if p["metadata"]["name"].startswith("worker-"))
    described = _kubectl(served, "describe", "podgroup", "training-worker-0").stdout
    assert "PodGroupInitiallyScheduled" in described and "Reason:                Scheduled" in described
