"""ResourceQuota and LimitRange through the CLI, each command a separate process over one state
directory (tests/cli/runners.py ``CliProcesses``): the quota charged by one command is seen by the
next, a create past ``hard`` fails with kube-apiserver's Forbidden text, ``get``/``describe`` print
kubectl's columns and pages (pkg/printers ``printResourceQuota``; kubectl ``describeQuota``,
``describeLimitRange``)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.runners import CliProcesses

QUOTA = """apiVersion: v1
kind: ResourceQuota
metadata: {name: compute}
spec:
  hard: {pods: "2", requests.cpu: "1", limits.memory: 1Gi, count/jobs.batch: "3"}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 250m, memory: 128Mi}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: NAME}
spec:
  containers: [{name: c, image: busybox, command: [sleep, "100"]}]
"""


def test_a_quota_across_separate_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "q.yaml").write_text(QUOTA)
    for name in ("p1", "p2", "p3"):
        (tmp_path / f"{name}.yaml").write_text(POD.replace("NAME", name))
    assert cli.run("apply", "-f", str(tmp_path / "q.yaml")).code == 0
    assert cli.run("apply", "-f", str(tmp_path / "p1.yaml")).code == 0
    assert cli.run("apply", "-f", str(tmp_path / "p2.yaml")).code == 0
    third = cli.run("apply", "-f", str(tmp_path / "p3.yaml"))
    assert third.code != 0
    assert ('pods "p3" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, '
            'limited: pods=2') in third.err
    assert "Traceback" not in third.err
    got = cli.run("get", "quota")
    assert got.out.splitlines()[0].split() == ["NAME", "AGE", "REQUEST", "LIMIT"]
    assert got.out.splitlines()[1].endswith(
        "count/jobs.batch: 0/3, pods: 2/2, requests.cpu: 500m/1   limits.memory: 512Mi/1Gi")
    assert cli.run("describe", "quota", "compute").out == (
        "Name:             compute\n"
        "Namespace:        default\n"
        "Resource          Used   Hard\n"
        "--------          ----   ----\n"
        "count/jobs.batch  0      3\n"
        "limits.memory     512Mi  1Gi\n"
        "pods              2      2\n"
        "requests.cpu      500m   1\n")
    assert cli.run("describe", "limitrange", "defaults").out == (
        "Name:       defaults\n"
        "Namespace:  default\n"
        "Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n"
        "----        --------  ---  ---  ---------------  -------------  -----------------------\n"
        "Container   cpu       -    -    250m             500m           -\n"
        "Container   memory    -    -    128Mi            256Mi          -\n")
    annotation = cli.run("get", "pod", "p1", "-o", "jsonpath={.metadata.annotations}").out
    assert "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c" \
        in annotation
