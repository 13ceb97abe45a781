"""Simulated DRA drivers with binding conditions (KEP-5007) through the CLI, each command a separate
process over one state directory: ``kbatch nodes add --gpu-driver D --binding-conditions attached``
publishes devices the driver attaches after ``--attach-delay``; the pod waits
(``BindingConditionsPending``) and runs once the driver set the condition; with ``--attach-fail`` the
binding fails and the claim is deallocated for the next attempt. Bad flags are user errors, nothing
created."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.runners import CliProcesses

FABRIC = str(EXAMPLES / "dra" / "fabric-gpu-pod.yaml")


def _nodes(cli: CliProcesses, *flags: str) -> None:
    added = cli.run("nodes", "add", "--gpu", "2", "--gpu-driver", "fabric.example.com",
                    "--binding-conditions", "attached", *flags)
    assert added.code == 0, added.err


def _claim(cli: CliProcesses) -> dict:
    [name] = [line.split()[0] for line in cli.run("get", "resourceclaims").out.splitlines()[1:]]
    return json.loads(cli.run("get", "resourceclaim", name, "-o", "json").out)


def test_a_pod_waits_for_the_attachment_then_runs(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    _nodes(cli, "--attach-delay", "12s", "--device-status")
    assert cli.run("apply", "-f", FABRIC).code == 0
    assert cli.run("advance", "10s").code == 0
    assert "Pending" in cli.run("get", "pod", "attached-trainer").out
    events = cli.run("get", "events").out
    assert "BindingConditionsPending" in events, events
    assert "waiting for binding conditions for device on node node-0" in events, events
    assert "devices" not in _claim(cli)["status"]  # neither attached nor prepared yet
    assert cli.run("advance", "6s").code == 0
    assert "Running" in cli.run("get", "pod", "attached-trainer").out
    [entry] = _claim(cli)["status"]["devices"]
    assert [(c["type"], c["status"], c["reason"]) for c in entry["conditions"]] == [
        ("attached", "True", "Attached"), ("Ready", "True", "DevicePrepared")]


def test_a_failed_attachment_deallocates_the_claim(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    _nodes(cli, "--attach-delay", "5s", "--attach-fail")
    assert cli.run("apply", "-f", FABRIC).code == 0
    assert cli.run("advance", "14s").code == 0
    events = cli.run("get", "events").out
    assert 'binding failed: reason=AttachFailed, message="simulated attachment of the device to node ' \
        'node-0 failed"' in events, events
    assert "deallocation of ResourceClaim completed" in events, events
    assert "Pending" in cli.run("get", "pod", "attached-trainer").out
    # rescheduled: the next attempt allocated anew and waits again for the (again failing) attachment
    listed = json.loads(cli.run("get", "events", "-o", "json").out)["items"]
    waits = [e for e in listed if e["reason"] == "BindingConditionsPending"]
    assert sum(e.get("count", 1) for e in waits) >= 2, waits
    claim = _claim(cli)
    assert claim["status"]["allocation"]["allocationTimestamp"] != "2025-01-01T00:00:00Z"


def test_bad_binding_flags_are_refused_before_anything_is_created(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    no_conditions = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--attach-fail")
    assert no_conditions.code != 0
    assert "--binding-failure-conditions and --attach-fail need --binding-conditions" in no_conditions.err
    bad = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--binding-conditions", "Bad Name")
    assert bad.code != 0 and 'bindingConditions[0]: Invalid value: "Bad Name"' in bad.err, bad.err
    overlap = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--binding-conditions", "a",
                      "--binding-failure-conditions", "a")
    assert overlap.code != 0 and "must not overlap with bindingConditions" in overlap.err
    for result in (no_conditions, bad, overlap):
        assert "Traceback" not in result.err
    assert cli.run("get", "nodes").out.strip() in ("", "No resources found")
