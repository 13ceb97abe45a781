"""Simulated DRA drivers with binding conditions (KEP-5007) through the CLI, each command a separate
process over one state directory: ``kbatch nodes add --gpu-driver D --binding-conditions attached``
publishes devices the driver attaches after ``--attach-delay``; the pod waits
(``BindingConditionsPending``) and runs once the driver set the condition; with ``--attach-fail`` the
binding fails and the claim is deallocated for the next attempt; ``--attach-fail-devices`` fails the
named devices' attachments and ``--attach-fail-rate`` each attempt with that probability, the same
for the same seed and commands. A control-plane restart while the pod waits keeps the wait counted
from the allocation's ``allocationTimestamp``. Bad flags are user errors, nothing created."""

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
    # the scheduler records through events.k8s.io/v1: a repeat is a series, not a count
    assert sum((e.get("series") or {}).get("count") or e.get("count") or 1 for e in waits) >= 2, waits
    claim = _claim(cli)
    assert claim["status"]["allocation"]["allocationTimestamp"] != "2025-01-01T00:00:00Z"


def test_bad_binding_flags_are_refused_before_anything_is_created(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    no_conditions = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--attach-fail")
    assert no_conditions.code != 0
    assert "--binding-failure-conditions, --attach-fail, --attach-fail-devices and --attach-fail-rate need " \
        "--binding-conditions" in no_conditions.err
    bad = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--binding-conditions", "Bad Name")
    assert bad.code != 0 and 'bindingConditions[0]: Invalid value: "Bad Name"' in bad.err, bad.err
    overlap = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--binding-conditions", "a",
                      "--binding-failure-conditions", "a")
    assert overlap.code != 0 and "must not overlap with bindingConditions" in overlap.err
    unknown = cli.run("nodes", "add", "--gpu", "2", "--gpu-driver", "d.example.com", "--binding-conditions",
                      "a", "--attach-fail-devices", "gpu-0,gpu-7")
    assert unknown.code != 0 and "--attach-fail-devices: no device gpu-7 on these nodes" in unknown.err
    rate = cli.run("nodes", "add", "--gpu-driver", "d.example.com", "--binding-conditions", "a",
                   "--attach-fail-rate", "1.5")
    assert rate.code != 0 and "--attach-fail-rate must be between 0 and 1, got 1.5" in rate.err, rate.err
    for result in (no_conditions, bad, overlap, unknown, rate):
        assert "Traceback" not in result.err
    assert cli.run("get", "nodes").out.strip() in ("", "No resources found")


def test_a_restart_while_the_pod_waits_keeps_the_allocation_time(tmp_path: Path) -> None:
    """A command with another ``--feature-gates`` restarts the control plane (timers, queues and
    caches afresh): the driver still attaches 12 s after the ``allocationTimestamp`` PreBind stored,
    and the restarted scheduler's PreBind waits again and binds."""
    cli = CliProcesses(tmp_path / "state")
    _nodes(cli, "--attach-delay", "12s")
    assert cli.run("apply", "-f", FABRIC).code == 0
    assert cli.run("advance", "5s").code == 0
    restarted = cli.run("--feature-gates", "DRAConsumableCapacity=false", "advance", "3s")
    assert restarted.code == 0 and "the control plane restarts" in restarted.err, restarted.err
    assert "Pending" in cli.run("get", "pod", "attached-trainer").out
    assert cli.run("advance", "8s").code == 0
    assert "Running" in cli.run("get", "pod", "attached-trainer").out
    claim = _claim(cli)
    assert claim["status"]["allocation"]["allocationTimestamp"] == "2025-01-01T00:00:00Z"
    [entry] = claim["status"]["devices"]
    assert [(c["type"], c["lastTransitionTime"]) for c in entry["conditions"]] == [
        ("attached", "2025-01-01T00:00:12Z")]


def _attempts(cli: CliProcesses) -> list[tuple[str, str]]:
    """The scheduler's events about the pod: each wait and each failed binding, in order."""
    items = json.loads(cli.run("get", "events", "-o", "json").out)["items"]
    mine = [e for e in items if e["involvedObject"]["name"] == "attached-trainer"]
    return sorted((e.get("lastTimestamp") or "", f"{e['reason']}:{e['message'].split(':')[0]}") for e in mine)


def test_random_failures_are_the_same_for_the_same_seed(tmp_path: Path) -> None:
    """``--attach-fail-rate 0.5``: each allocation is an attempt drawn anew; two state directories
    given the same commands (the same default seed) fail and attach the same attempts."""
    runs = []
    for name in ("a", "b"):
        cli = CliProcesses(tmp_path / name)
        _nodes(cli, "--attach-delay", "3s", "--attach-fail-rate", "0.5")
        assert cli.run("apply", "-f", FABRIC).code == 0
        for _ in range(3):
            assert cli.run("advance", "20s").code == 0
        runs.append((_attempts(cli), cli.run("get", "pod", "attached-trainer").out.split()[-3]))
    assert runs[0] == runs[1]
    reasons = {reason.split(":")[0] for _, reason in runs[0][0]}
    assert {"BindingConditionsPending", "FailedScheduling"} <= reasons, runs[0]


def test_only_the_named_devices_fail(tmp_path: Path) -> None:
    """``--attach-fail-devices gpu-0``: the claim allocated gpu-0 reports its failure condition; a
    second pod, given gpu-1, is attached and runs."""
    cli = CliProcesses(tmp_path / "state")
    _nodes(cli, "--attach-delay", "3s", "--attach-fail-devices", "gpu-0")
    assert cli.run("apply", "-f", FABRIC).code == 0
    assert cli.run("advance", "4s").code == 0
    [entry] = _claim(cli)["status"]["devices"]
    assert (entry["device"], entry["conditions"][0]["reason"]) == ("gpu-0", "AttachFailed")
    manifest = tmp_path / "second.json"
    container = {"name": "c", "image": "busybox", "command": ["sleep", "3600"],
                 "resources": {"claims": [{"name": "gpu"}]}}
    spec = {"containers": [container],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-fabric-gpu"}]}
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "second"},
                                    "spec": spec}))
    second = cli.run("apply", "-f", str(manifest))
    assert second.code == 0, second.err
    assert cli.run("advance", "10s").code == 0
    assert "Running" in cli.run("get", "pod", "second").out
