"""``kbatch describe podgroup`` (scheduling.k8s.io/v1beta1) as a user runs it (docs/gang.md): kubectl
has no describer for the kind, so the page is its generic one (k8s.io/kubectl ``pkg/describe/describe.go``,
``genericDescriber``): the conditions once, as fields under ``Status:``, then the events."""

from __future__ import annotations

from pathlib import Path

from cli.runners import CliInProcess

GROUP = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: trio}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  schedulingGroup: {podGroupName: trio}
  containers: [{name: c, image: busybox, command: [sleep, "30"], resources: {limits: {nvidia.com/gpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  schedulingGroup: {podGroupName: trio}
  containers: [{name: c, image: busybox, command: [sleep, "30"], resources: {limits: {nvidia.com/gpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec:
  schedulingGroup: {podGroupName: trio}
  containers: [{name: c, image: busybox, command: [sleep, "30"], resources: {limits: {nvidia.com/gpu: "2"}}}]
"""


def test_describe_podgroup_prints_its_conditions_once(tmp_path: Path) -> None:
    cli = CliInProcess(tmp_path / "state")
    manifest = tmp_path / "trio.yaml"
    manifest.write_text(GROUP)
    gates = ("--feature-gates", "GenericWorkload=true")
    assert cli.run(*gates, "nodes", "add", "--count", "1", "--gpu", "4").code == 0
    assert cli.run("apply", "-f", str(manifest)).code == 0  # 2 of 3 fit: PodGroupInitiallyScheduled=False
    described = cli.run("describe", "podgroup", "trio")
    assert described.code == 0
    lines = described.out.splitlines()
    assert [line for line in lines if line.strip() == "Conditions:"] == ["  Conditions:"]
    assert sum("PodGroupInitiallyScheduled" in line for line in lines) == 1
    condition = lines[lines.index("  Conditions:") + 1:]
    # no Observed Generation line: a scheduling.k8s.io PodGroup has no metadata.generation upstream
    assert [line.split()[:2] for line in condition[2:5]] == [
        ["Reason:", "Unschedulable"], ["Status:", "False"], ["Type:", "PodGroupInitiallyScheduled"]]
