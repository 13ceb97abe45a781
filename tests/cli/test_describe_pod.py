"""``kbatch describe pod`` as a user runs it, in separate commands: kubectl's page (docs/cli.md).

``tests/server/test_kubectl_describe_pod.py`` compares the whole page with the real kubectl's; these
examples run without kubectl: a crash loop through ``State``/``Last State``/``Restart Count`` and the
``BackOff`` event, and a gang member's ``SchedulingGroup`` (kubectl 1.37's). ``test_dra_cli.py`` checks
the Resource Claims block kbatch adds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.runners import CliInProcess

CRASH = """\
apiVersion: v1
kind: Pod
metadata: {name: crash, labels: {app: demo}}
spec:
  restartPolicy: OnFailure
  containers: [{name: main, image: busybox, command: [sh, -c, "sleep 2; exit 3"],
                resources: {requests: {cpu: 250m}, limits: {cpu: 500m}}}]
"""


def _describe(tmp_path: Path, manifest: str, advance: str, *setup: str) -> str:
    cli = CliInProcess(tmp_path / "state")
    path = tmp_path / "pod.yaml"
    path.write_text(manifest)
    assert cli.run(*setup, "nodes", "add", "--count", "1").code == 0
    assert cli.run("apply", "-f", str(path)).code == 0
    assert cli.run("advance", advance).code == 0
    described = cli.run("describe", "pod", "crash")
    assert described.code == 0, described.err
    return described.out


def test_with_node_ipam_a_pod_reads_its_addresses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KBATCH_CONTROLLERS", "*,node-ipam-controller")  # addresses are off by default
    page = _describe(tmp_path, CRASH, "1s")
    assert re.search(r"^Node:\s+node-0/172\.18\.0\.2$", page, re.M)  # describe.go: node/hostIP
    assert re.search(r"^IP:\s+10\.244\.0\.2\nIPs:\n  IP:\s+10\.244\.0\.2$", page, re.M)


def test_a_crash_loop_reads_as_on_a_cluster(tmp_path: Path) -> None:
    page = _describe(tmp_path, CRASH, "5s")  # exits at 2 (restart at once) and 4 (back-off 10 s)
    assert re.search(r"^Node:\s+node-0/$", page, re.M)  # node IPAM off (the default): no hostIP
    assert re.search(r"^IP:\s*\nIPs:\s+<none>$", page, re.M)
    assert re.search(r"^Labels:\s+app=demo$", page, re.M)
    assert re.search(r"^    State:\s+Waiting\n      Reason:\s+CrashLoopBackOff\n"
                     r"    Last State:\s+Terminated\n      Reason:\s+Error\n      Exit Code:\s+3\n"
                     r"      Started:\s+Wed, 01 Jan 2025 00:00:02 \+0000\n"
                     r"      Finished:\s+Wed, 01 Jan 2025 00:00:04 \+0000\n"
                     r"    Ready:\s+False\n    Restart Count:\s+1\n"
                     r"    Limits:\n      cpu:\s+500m\n    Requests:\n      cpu:\s+250m$", page, re.M)
    assert re.search(r"^QoS Class:\s+Burstable$", page, re.M)
    assert re.search(r"^  Warning\s+BackOff\s+\S+\s+kubelet\s+spec\.containers\{main\}: Back-off restarting "
                     r"failed container main in pod crash_default\(", page, re.M)


GANG_MEMBER = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: trio}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: crash}
spec:
  schedulingGroup: {podGroupName: trio}
  containers: [{name: c, image: busybox, command: [sleep, "30"]}]
"""


def test_a_gang_member_names_its_pod_group(tmp_path: Path) -> None:
    page = _describe(tmp_path, GANG_MEMBER, "1s", "--feature-gates", "GenericWorkload=true")
    assert re.search(r"^SchedulingGroup:\n  PodGroupName:\s+trio$", page, re.M)
    assert re.search(r"^    State:\s+Running\n      Started:\s+Wed, 01 Jan 2025 00:00:00 \+0000$", page, re.M)
