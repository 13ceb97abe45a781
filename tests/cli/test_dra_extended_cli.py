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
