"""RuntimeClass through the CLI, each command a separate process over one state directory
(tests/cli/runners.py ``CliProcesses``; docs/runtimeclass.md): a class applied by one command sets the
overhead and node selector of a pod the next one applies (RuntimeClass admission); on a node labelled
for the class with 1 cpu, a pod of 900m stays Pending with the scheduler's ``Insufficient cpu`` once
its 250m overhead counts, and ``kbatch describe node`` counts the overhead of the one that runs.
``kbatch serve`` and kubectl: tests/server/test_kubectl_runtimeclass.py."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Kbatch
from tests.cli.runners import CliProcesses

CLASS = """apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead: {podFixed: {cpu: 250m}}
scheduling: {nodeSelector: {sandbox: gvisor}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  runtimeClassName: gvisor
  containers:
  - {{name: c, image: registry.k8s.io/pause:3.10, resources: {{requests: {{cpu: {cpu}}}}}}}
"""


def test_a_runtime_class_across_separate_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    for name, text in (("class.yaml", CLASS), ("big.yaml", POD.format(name="big", cpu="900m")),
                       ("small.yaml", POD.format(name="small", cpu="500m"))):
        (tmp_path / name).write_text(text)
    assert cli.run("nodes", "add", "--cpu", "1", "--label", "sandbox=gvisor").code == 0
    assert cli.run("nodes", "add", "--cpu", "8", "--prefix", "plain").code == 0  # no label: not a candidate
    assert cli.run("apply", "-f", str(tmp_path / "class.yaml")).code == 0
    listed = cli.run("get", "runtimeclass").out.splitlines()
    assert listed[0].split() == ["NAME", "HANDLER", "AGE"] and listed[1].split()[:2] == ["gvisor", "runsc"]
    assert cli.run("apply", "-f", str(tmp_path / "big.yaml")).code == 0
    assert cli.run("advance", "2s").code == 0
    big = json.loads(cli.run("get", "pod", "big", "-o", "json").out)
    assert big["spec"]["overhead"] == {"cpu": "250m"}
    assert big["spec"]["nodeSelector"] == {"sandbox": "gvisor"}
    assert "nodeName" not in big["spec"]
    scheduled = next(c for c in big["status"]["conditions"] if c["type"] == "PodScheduled")
    assert scheduled["message"].startswith("0/2 nodes are available: 1 Insufficient cpu, "
                                           "1 node(s) didn't match Pod's node affinity/selector.")
    assert cli.run("apply", "-f", str(tmp_path / "small.yaml")).code == 0
    assert cli.run("advance", "2s").code == 0
    assert json.loads(cli.run("get", "pod", "small", "-o", "json").out)["spec"]["nodeName"] == "node-0"
    described = cli.run("describe", "node", "node-0").out
    assert any(line.split()[:3] == ["cpu", "750m", "(75%)"] for line in described.splitlines())


def test_nodes_add_reports_runtime_handlers(kb: Kbatch) -> None:
    kb.ok("nodes", "add", "--runtime-handler", "", "--runtime-handler", "runc")
    node = json.loads(kb.ok("get", "node", "node-0", "-o", "json"))
    assert node["status"]["runtimeHandlers"] == [{"name": ""}, {"name": "runc"}]
    refused = kb("nodes", "add", "--runtime-handler", "Not_A_Label")
    assert refused.code != 0 and '--runtime-handler "Not_A_Label": a lowercase RFC 1123 label' in refused.err
    assert len(json.loads(kb.ok("get", "nodes", "-o", "json"))["items"]) == 1  # the refusal added none
