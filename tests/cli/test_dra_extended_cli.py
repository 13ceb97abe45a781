"""DRA extended resources through the CLI, each command a separate process over one state
directory: a pod asking ``example.com/gpu: 2`` on nodes whose driver publishes devices of a class
mapping that name runs, ``get resourceclaims`` shows the scheduler's special claim, and the pod's
``status.extendedResourceClaimStatus`` names it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.runners import CliProcesses


def test_extended_resource_pod_gets_its_claim(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    added = cli.run("nodes", "add", "--count", "2", "--gpu", "4", "--gpu-driver", "gpu.example.com")
    assert added.code == 0, added.err
    applied = cli.run("apply", "-f", str(EXAMPLES / "dra" / "extended-resource-pod.yaml"))
    assert applied.code == 0, applied.err
    assert cli.run("advance", "2s").code == 0
    claims = cli.run("get", "resourceclaims")
    assert claims.code == 0, claims.err
    rows = claims.out.splitlines()
    assert rows[0].split() == ["NAME", "STATE", "AGE"]
    [row] = rows[1:]
    name, state = row.split()[:2]
    assert name.startswith("trainer-extended-resources-") and state == "allocated,reserved"
    got = cli.run("get", "pod", "trainer", "-o", "json")
    pod = json.loads(got.out)
    assert pod["status"]["phase"] == "Running"
    assert pod["status"]["extendedResourceClaimStatus"] == {
        "requestMappings": [
            {"containerName": "c", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}
        ],
        "resourceClaimName": name,
    }
    claim = json.loads(cli.run("get", "resourceclaim", name, "-o", "json").out)
    assert claim["metadata"]["annotations"] == {"resource.kubernetes.io/extended-resource-claim": "true"}
    assert claim["metadata"]["ownerReferences"][0]["name"] == "trainer"
    assert len(claim["status"]["allocation"]["devices"]["results"]) == 2


def test_a_tainted_device_evicts_the_pod_that_got_it_through_example_com_gpu(tmp_path: Path) -> None:
    """A NoExecute DeviceTaintRule on a device of the pod's special claim evicts the pod (the
    device-taint-eviction controller counts the claim ``status.extendedResourceClaimStatus`` names,
    kubernetes#141290); its claim goes with it."""
    cli = CliProcesses(tmp_path / "state")
    assert cli.run("nodes", "add", "--count", "1", "--gpu", "4", "--gpu-driver", "gpu.example.com").code == 0
    applied = cli.run("apply", "-f", str(EXAMPLES / "dra" / "extended-resource-pod.yaml"))
    assert applied.code == 0, applied.err
    assert cli.run("advance", "2s").code == 0
    pod = json.loads(cli.run("get", "pod", "trainer", "-o", "json").out)
    claim = json.loads(cli.run("get", "resourceclaim", pod["status"]["extendedResourceClaimStatus"]
                               ["resourceClaimName"], "-o", "json").out)
    device = claim["status"]["allocation"]["devices"]["results"][0]
    rule = tmp_path / "rule.yaml"
    rule.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: broken}\n"
        f"spec:\n  deviceSelector: {{driver: {device['driver']}, pool: {device['pool']}, "
        f"device: {device['device']}}}\n  taint: {{key: broken, effect: NoExecute}}\n"
    )
    created = cli.run("apply", "-f", str(rule))
    assert created.code == 0, created.err
    assert cli.run("advance", "1s").code == 0
    events = cli.run("get", "events", "--field-selector", "involvedObject.name=trainer")
    assert "DeviceTaintManagerEviction" in events.out and "Marking for deletion" in events.out
    assert cli.run("advance", "60s").code == 0
    gone = cli.run("get", "pod", "trainer")
    assert gone.code != 0 and 'pods "trainer" not found' in gone.err
    assert "No resources found" in cli.run("get", "resourceclaims").err
