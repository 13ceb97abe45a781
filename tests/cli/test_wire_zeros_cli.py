"""The CLI without ``--server``, one process a command (tests/cli/runners.py ``CliProcesses``), with
Go's unset fields (kbatch.api.wire_zeros): ``get -o yaml`` prints them, and what it printed can be
applied again, patched with ``resources: {}`` or addressed by a JSON patch, as against a server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runners import CliProcesses

POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: busybox
    command: [sleep, "3600"]
    env:
    - name: CPU
      valueFrom: {resourceFieldRef: {resource: limits.cpu}}
"""
CRON = """apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: m, image: busybox}]
"""


def test_printed_zeros_go_back_in(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    assert cli.run("nodes", "add", "--count", "1").code == 0
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "cron.yaml").write_text(CRON)
    assert cli.run("apply", "-f", str(tmp_path / "pod.yaml")).code == 0
    assert cli.run("apply", "-f", str(tmp_path / "cron.yaml")).code == 0
    assert cli.run("advance", "5s").code == 0
    printed = cli.run("get", "pod", "web", "-o", "yaml").out
    assert 'divisor: "0"' in printed and "resources: {}" in printed and "restartCount: 0" in printed
    (tmp_path / "printed.yaml").write_text(printed)
    # client-side apply reads the live pod as served: nothing in the file is a change to its spec
    again = cli.run("apply", "-f", str(tmp_path / "printed.yaml"))
    assert again.code == 0, again.err
    # kubectl debug's `resources: {}`, as a strategic merge patch: no change to the pod's spec
    empty = json.dumps({"spec": {"containers": [{"name": "web", "resources": {}}]}})
    patched = cli.run("patch", "pod", "web", "-p", empty)
    assert patched.code == 0, patched.err
    pod = json.loads(cli.run("get", "pod", "web", "-o", "json").out)
    assert pod["metadata"]["generation"] == 1 and pod["spec"]["containers"][0]["resources"] == {}
    # a JSON patch under the `resources: {}` the template shows
    limits = "/spec/jobTemplate/spec/template/spec/containers/0/resources/limits"
    add = json.dumps([{"op": "add", "path": limits, "value": {"cpu": "1"}}])
    added = cli.run("patch", "cronjob", "nightly", "--type", "json", "-p", add)
    assert added.code == 0, added.err
    cron = json.loads(cli.run("get", "cronjob", "nightly", "-o", "json").out)
    assert cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "1"}}
