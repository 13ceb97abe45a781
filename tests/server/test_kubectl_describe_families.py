"""``kbatch describe`` of the non-core families and the real kubectl against one ``kbatch serve``: one page.

kubectl has no describer for any of these kinds (k8s.io/kubectl ``pkg/describe/describe.go``,
``describerMap`` at v0.32.4 and v0.36.3: none for jobset.x-k8s.io, kueue.x-k8s.io, scheduling.x-k8s.io,
resource.k8s.io or scheduling.k8s.io Workload/PodGroup), so it prints ``genericDescriber``'s page.
The pages are compared byte for byte but for what cannot match: the events' Age column (kubectl's
ages come from the wall clock, kbatch's from the virtual one) and the labels kubectl 1.32 on this
machine makes of fields with a run of capitals (``Enable DNS Hostnames``), which kbatch writes as
kubectl 1.36's ``smartLabelFor`` does (``Enable DNSHostnames``, kubernetes#135683).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbatch.cli import main
from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_parity import kbatch

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MANIFESTS = ["jobset.yaml", "kueue/queues.yaml", "kueue/job.yaml", "dra/gpu-pod.yaml",
             "gang/coscheduling-podgroup.yaml", "gang/native-podgroup.yaml"]
OTHERS = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: org, labels: {team: ml}}
spec: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
description: important
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: kueue.x-k8s.io/provisioning-request}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: default}
spec:
  levels: [{nodeLabel: cloud.provider.com/topology-block}, {nodeLabel: kubernetes.io/hostname}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: bad-gpu, annotations: {note: "replaced on Monday"}}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: broken, effect: NoSchedule}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: solo}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
"""
# kubectl 1.32's smartLabelFor splits a run of capitals from the word after it; 1.36's keeps them
KUBECTL_132_LABELS = {"Enable DNS Hostnames: ": "Enable DNSHostnames:  "}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("families-serve"), "--feature-gates",
                          "GenericWorkload=true").start()
    try:
        for manifest in MANIFESTS:
            kubectl(server, "apply", "-f", str(EXAMPLES / manifest))
        kubectl(server, "apply", "-f", "-", input_=OTHERS)
        for args in (["nodes", "add", "--count", "1", "--gpu", "2", "--gpu-driver", "gpu.example.com"],
                     ["advance", "10s"]):
            try:
                main(["--server", server.url, *args])
            except SystemExit as exit_:
                assert not exit_.code
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _comparable(page: str, *, kubectl_132: bool = False) -> str:
    """The page with each event's Age cell cut out (and, for kubectl 1.32's page, 1.36's labels)."""
    if kubectl_132:
        for old, new in KUBECTL_132_LABELS.items():
            page = page.replace(old, new)
    lines = page.split("\n")
    out, in_events = [], False
    for line in lines:
        if line == "Events:":
            in_events = True
        elif in_events and line.startswith("  ") and not line.startswith("  ----"):
            cells = re.split(r"\s{2,}", line.strip())
            line = "|".join(cells[:2] + cells[3:]) if cells[0] != "Type" else line
        out.append(line)
    return "\n".join(out)


def _first(served: Any, resource: str) -> str:
    return kubectl(served, "get", resource, "-A", "-o", "jsonpath={.items[0].metadata.name}").stdout


@pytest.mark.parametrize("resource", [
    "jobsets.jobset.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io",
    "cohorts.kueue.x-k8s.io", "workloads.kueue.x-k8s.io", "workloadpriorityclasses.kueue.x-k8s.io",
    "admissionchecks.kueue.x-k8s.io", "topologies.kueue.x-k8s.io", "clusterqueues.v1beta1.kueue.x-k8s.io",
    "podgroups.scheduling.x-k8s.io",
    "workloads.scheduling.k8s.io", "podgroups.scheduling.k8s.io",
    "deviceclasses.resource.k8s.io", "resourceslices.resource.k8s.io", "resourceclaims.resource.k8s.io",
    "resourceclaimtemplates.resource.k8s.io", "devicetaintrules.resource.k8s.io",
])
def test_describe_prints_kubectls_generic_page(cluster: Any, capsys: pytest.CaptureFixture[str],
                                               resource: str) -> None:
    name = _first(cluster, resource.replace(".v1beta1", ""))
    assert name, f"the fixture made no {resource}"
    theirs = kubectl(cluster, "describe", resource, name).stdout
    ours = kbatch(cluster, capsys, "describe", resource, name)
    assert _comparable(ours) == _comparable(theirs, kubectl_132=True)


@pytest.mark.parametrize("args", [
    ("describe", "resourceclaims"),  # two pages
    ("describe", "localqueues", "-A"),
    ("describe", "workloads.kueue.x-k8s.io", "--all-namespaces"),
])
def test_describe_of_every_object_of_a_kind_separates_pages_as_kubectl(
        cluster: Any, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    # k8s.io/kubectl pkg/cmd/describe/describe.go Run: each page, then "\n\n" before the next
    theirs = kubectl(cluster, *args).stdout
    assert _comparable(kbatch(cluster, capsys, *args)) == _comparable(theirs, kubectl_132=True)


@pytest.mark.parametrize("args", [("describe", "jobsets", "-n", "empty"), ("describe", "cohorts", "-n", "x")])
def test_describe_of_nothing_says_so_as_kubectl(cluster: Any, capsys: pytest.CaptureFixture[str],
                                                args: tuple[str, ...]) -> None:
    # kubectl names the namespace it asked; for a cluster-scoped kind -n is ignored (one cohort here)
    theirs = kubectl(cluster, *args)
    capsys.readouterr()
    try:
        main(["--server", cluster.url, *args])
    except SystemExit as exit_:
        assert not exit_.code
    ours = capsys.readouterr()
    assert (ours.out, ours.err) == (theirs.stdout, theirs.stderr)


@pytest.mark.parametrize("args", [
    ("get", "resourceslices", "-l", "none=here"),  # cluster-scoped: no namespace named
    ("get", "jobsets", "-A", "-l", "none=here"),
    ("get", "jobsets", "-l", "none=here"),
    ("get", "jobsets,devicetaintrules", "-l", "none=here"),
])
def test_get_of_nothing_says_so_as_kubectl(cluster: Any, capsys: pytest.CaptureFixture[str],
                                           args: tuple[str, ...]) -> None:
    # kubectl get (pkg/cmd/get/get.go): "No resources found in NS namespace." only when every kind is
    # namespaced and -A is not given, else "No resources found" (no full stop)
    theirs = kubectl(cluster, *args)
    capsys.readouterr()
    try:
        main(["--server", cluster.url, *args])
    except SystemExit as exit_:
        assert not exit_.code
    ours = capsys.readouterr()
    assert (ours.out, ours.err) == (theirs.stdout, theirs.stderr)


def test_a_page_without_events_aligns_its_events_line_with_the_lines_above(
        cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # DescribeEvents (pkg/describe/describe.go) writes "Events:\t<none>" into the page's tabwriter and
    # flushes only before a table; a CronJob's page (its own describer) before its first schedule
    kubectl(cluster, "create", "cronjob", "quiet", "--image=busybox", "--schedule=0 0 1 1 *", "--", "true")
    theirs = kubectl(cluster, "describe", "cronjob", "quiet").stdout.splitlines()[-1]
    ours = kbatch(cluster, capsys, "describe", "cronjob", "quiet").splitlines()[-1]
    assert theirs.split() == ["Events:", "<none>"] and ours == theirs
