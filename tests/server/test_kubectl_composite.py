"""CompositePodGroup over ``kbatch serve --feature-gates GenericWorkload=true,CompositePodGroup=true``
with the real kubectl (docs/gang.md "CompositePodGroup"): ``api-resources`` lists the v1alpha3 kind,
kubectl creates a composite tree, gets and describes it, ``explain`` reads its schema, and
``podgroups.v1alpha3.scheduling.k8s.io`` reads the v1beta1-stored PodGroup in v1alpha3; ``kbatch
describe`` prints kubectl's page (its generic one: kubectl has no describer for the kind)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_describe_families import _comparable
from tests.server.test_kubectl_parity import kbatch

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

TREE = """\
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata: {name: train}
spec:
  compositePodGroupTemplates:
  - name: job
    schedulingPolicy: {gang: {minGroupCount: 2}}
    podGroupTemplates:
    - {name: workers, schedulingPolicy: {gang: {minCount: 1}}}
    - {name: servers, schedulingPolicy: {gang: {minCount: 1}}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job}
spec:
  workloadRef: {workloadName: train, templateName: job}
  schedulingPolicy: {gang: {minGroupCount: 2}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: workers}
spec:
  parentCompositePodGroupName: job
  workloadRef: {workloadName: train, templateName: workers}
  schedulingPolicy: {gang: {minCount: 1}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: servers}
spec:
  parentCompositePodGroupName: job
  workloadRef: {workloadName: train, templateName: servers}
  schedulingPolicy: {gang: {minCount: 1}}
"""


def _pod(name: str, group: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  restartPolicy: Never\n"
            f"  schedulingGroup: {{podGroupName: {group}}}\n"
            "  containers: [{name: c, image: busybox, command: [sh, -c, 'sleep 600'],"
            " resources: {limits: {nvidia.com/gpu: '4'}}}]\n")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("composite-serve"), "--feature-gates",
                          "GenericWorkload=true,CompositePodGroup=true").start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _kubectl(served: Any, *args: str, input_: str | None = None) -> str:
    return kubectl(served, *args, input_=input_).stdout


def test_api_resources_lists_the_v1alpha3_kind(served: Any) -> None:
    rows = [line.split() for line in _kubectl(served, "api-resources", "--api-group",
                                              "scheduling.k8s.io").splitlines()[1:]]
    assert ["compositepodgroups", "scheduling.k8s.io/v1alpha3", "true", "CompositePodGroup"] in rows
    assert ["podgroups", "scheduling.k8s.io/v1beta1", "true", "PodGroup"] in rows  # preferred version


def test_kubectl_creates_gets_and_describes_a_tree(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                       json={"count": 1, "gpu": 8, "prefix": "cpg"}, timeout=30)
    assert reply.status_code == 200, reply.text
    _kubectl(served, "apply", "-f", "-", input_=TREE)
    _kubectl(served, "apply", "-f", "-", input_=_pod("w0", "workers") + "---\n" + _pod("s0", "servers"))
    moved = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "5s"}, timeout=30)
    assert moved.status_code == 200, moved.text
    pods = json.loads(_kubectl(served, "get", "pods", "-o", "json"))["items"]
    assert {p["metadata"]["name"]: bool(p["spec"].get("nodeName")) for p in pods} == {"w0": True, "s0": True}
    listed = _kubectl(served, "get", "compositepodgroups")
    assert listed.split()[:3] == ["NAME", "AGE", "job"], listed
    got = json.loads(_kubectl(served, "get", "compositepodgroup", "job", "-o", "json"))
    assert got["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    assert [(c["type"], c["status"], c["reason"]) for c in got["status"]["conditions"]] == [
        ("CompositePodGroupInitiallyScheduled", "True", "Scheduled")]
    page = _kubectl(served, "describe", "compositepodgroup", "job")
    assert "Min Group Count:  2" in page and "CompositePodGroupInitiallyScheduled" in page, page
    assert _comparable(kbatch(served, capsys, "describe", "compositepodgroup", "job")) == _comparable(page)
    alpha = json.loads(_kubectl(served, "get", "podgroups.v1alpha3.scheduling.k8s.io", "workers",
                                "-o", "json"))
    assert alpha["apiVersion"] == "scheduling.k8s.io/v1alpha3"
    assert alpha["spec"]["parentCompositePodGroupName"] == "job"
    kubectl(served, "patch", "podgroups.v1alpha3.scheduling.k8s.io", "workers", "--type", "strategic",
            "-p", '{"metadata": {"labels": {"tier": "a"}}}')
    kubectl(served, "patch", "compositepodgroup", "job", "--type", "strategic",
            "-p", '{"metadata": {"labels": {"tier": "a"}}}')
    for resource in ("podgroup/workers", "compositepodgroup/job"):
        labels = json.loads(_kubectl(served, "get", resource, "-o", "json"))["metadata"]["labels"]
        assert labels == {"tier": "a"}, resource


def test_kubectl_explains_the_kind(served: Any) -> None:
    text = _kubectl(served, "explain", "compositepodgroups.spec.schedulingPolicy.gang")
    assert "minGroupCount" in text and "<integer>" in text, text
