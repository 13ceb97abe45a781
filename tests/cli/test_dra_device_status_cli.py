"""A simulated DRA driver reporting device status (KEP-4817) through the CLI, each command a separate
process over one state directory: ``kbatch nodes add --gpu-driver D --device-status`` makes the
node's driver write the claim's ``status.devices`` once the kubelet prepared the pod's claim;
``kbatch describe resourceclaim`` and ``get -o json`` show it. The flags without ``--gpu-driver``
are a user error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.runners import CliProcesses


def test_the_driver_reports_the_pods_gpu(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    added = cli.run("nodes", "add", "--count", "1", "--gpu", "2", "--gpu-driver", "gpu.example.com",
                    "--device-status")
    assert added.code == 0, added.err
    applied = cli.run("apply", "-f", str(EXAMPLES / "dra" / "gpu-pod.yaml"))
    assert applied.code == 0, applied.err
    assert cli.run("advance", "2s").code == 0
    [name] = [line.split()[0] for line in cli.run("get", "resourceclaims").out.splitlines()[1:]]
    claim = json.loads(cli.run("get", "resourceclaim", name, "-o", "json").out)
    [entry] = claim["status"]["devices"]
    result = claim["status"]["allocation"]["devices"]["results"][0]
    assert (entry["driver"], entry["pool"], entry["device"]) == (result["driver"], result["pool"],
                                                                 result["device"])
    assert [(c["type"], c["status"], c["reason"]) for c in entry["conditions"]] == [
        ("Ready", "True", "DevicePrepared")]
    assert entry["data"]["model"] == "A100"
    described = cli.run("describe", "resourceclaim", name)
    assert described.code == 0, described.err
    for text in ("Devices:", "Conditions:", "DevicePrepared", "gpu.example.com", "A100"):
        assert text in described.out, described.out


def test_device_status_needs_a_driver(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    refused = cli.run("nodes", "add", "--device-status")
    assert refused.code != 0
    wanted = "--device-status, --device-network, --binding-conditions and --binds-to-node need --gpu-driver"
    assert wanted in refused.err, refused.err
    assert "Traceback" not in refused.err
