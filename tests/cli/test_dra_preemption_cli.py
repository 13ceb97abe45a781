"""DRA preemption and PodGroup claims through the CLI, each command its own process over one state
directory (:mod:`tests.cli.processes`): with ``DRAPreemption`` a high-priority pod evicts the holder
of the only GPU and runs; with ``DRAWorkloadResourceClaims`` a PodGroup's pods share one claim, and
a NoExecute taint on its device evicts them all."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok

DRA = EXAMPLES / "dra"


def test_a_high_priority_pod_preempts_the_gpu_holder(tmp_path: Path) -> None:
    kbatch_ok(tmp_path, "--feature-gates", "DRAPreemption=true", "nodes", "add", "--gpu", "1",
              "--gpu-driver", "gpu.example.com")
    kbatch_ok(tmp_path, "apply", "-f", str(DRA / "preemption.yaml"))
    kbatch_ok(tmp_path, "advance", "2s")
    kbatch_ok(tmp_path, "apply", "-f", str(DRA / "urgent-pod.yaml"))
    kbatch_ok(tmp_path, "advance", "1s")
    events = kbatch_ok(tmp_path, "get", "events")
    assert "Preempted" in events and "batch" in events
    kbatch_ok(tmp_path, "advance", "30s")
    pods = kbatch_ok(tmp_path, "get", "pods").splitlines()
    assert [line.split()[0] for line in pods[1:]] == ["urgent"]
    assert pods[1].split()[2] == "Running"
    claims = kbatch_ok(tmp_path, "get", "resourceclaims").splitlines()
    assert [(c.split()[0].startswith("urgent-gpu-"), c.split()[1]) for c in claims[1:]] == [
        (True, "allocated,reserved")]


def test_a_pod_group_shares_one_claim(tmp_path: Path) -> None:
    gates = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
    kbatch_ok(tmp_path, "--feature-gates", gates, "nodes", "add", "--gpu", "2",
              "--gpu-driver", "gpu.example.com")
    kbatch_ok(tmp_path, "apply", "-f", str(DRA / "podgroup-claim.yaml"))
    kbatch_ok(tmp_path, "advance", "3s")
    claims = kbatch_ok(tmp_path, "get", "resourceclaims").splitlines()
    assert len(claims) == 2 and claims[1].startswith("trainers-gpu-")
    assert claims[1].split()[1] == "allocated,reserved"
    described = kbatch_ok(tmp_path, "describe", "resourceclaims")
    assert "Resource:   podgroups" in described and "Name:       trainers" in described
    phases = [line.split()[2] for line in kbatch_ok(tmp_path, "get", "pods").splitlines()[1:]]
    assert phases == ["Running"] * 2


def test_a_noexecute_taint_on_the_groups_gpu_evicts_the_whole_group(tmp_path: Path) -> None:
    """KEP-5729: the claim is reserved for the PodGroup, and a DeviceTaintRule on its GPU evicts
    every member (each gets the device taint manager's event)."""
    gates = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
    kbatch_ok(tmp_path, "--feature-gates", gates, "nodes", "add", "--gpu", "1",
              "--gpu-driver", "gpu.example.com")
    kbatch_ok(tmp_path, "apply", "-f", str(DRA / "podgroup-claim.yaml"))
    kbatch_ok(tmp_path, "advance", "3s")
    rule = tmp_path / "rule.yaml"
    rule.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\n"
                    "metadata: {name: broken}\n"
                    "spec: {deviceSelector: {device: gpu-0}, taint: {key: broken, effect: NoExecute}}\n")
    kbatch_ok(tmp_path, "apply", "-f", str(rule))
    kbatch_ok(tmp_path, "advance", "1s")
    events = [line for line in kbatch_ok(tmp_path, "get", "events").splitlines()
              if "DeviceTaintManagerEviction" in line]
    assert sorted(n for n in ("trainer-0", "trainer-1") if any(n in line for line in events)) == [
        "trainer-0", "trainer-1"]


def test_a_gang_whose_claim_sits_on_a_cordoned_node_gets_new_devices(tmp_path: Path) -> None:
    """KEP-5729 "Deallocate": the group's pods are gone but the PodGroup stays, so its claim stays
    allocated on its node, reserved for the group; with that node cordoned the group's next cycle
    fails, its PostFilter deallocates the claim, and the gang gets the other node's GPU."""
    gates = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
    kbatch_ok(tmp_path, "--feature-gates", gates, "nodes", "add", "--count", "2", "--gpu", "1",
              "--gpu-driver", "gpu.example.com")
    kbatch_ok(tmp_path, "apply", "-f", str(DRA / "podgroup-claim.yaml"))
    kbatch_ok(tmp_path, "advance", "3s")
    first = {line.split()[6] for line in kbatch_ok(tmp_path, "get", "pods", "-o", "wide").splitlines()[1:]}
    assert len(first) == 1
    [node] = first
    kbatch_ok(tmp_path, "delete", "pod", "trainer-0", "trainer-1")
    kbatch_ok(tmp_path, "advance", "40s")  # their grace period
    described = kbatch_ok(tmp_path, "describe", "resourceclaims")
    assert "Name:       trainers" in described  # still reserved for the PodGroup
    kbatch_ok(tmp_path, "patch", "node", node, "-p", '{"spec": {"unschedulable": true}}')
    kbatch_ok(tmp_path, "apply", "-f", str(DRA / "podgroup-claim.yaml"))
    kbatch_ok(tmp_path, "advance", "5s")
    rows = [line.split() for line in kbatch_ok(tmp_path, "get", "pods", "-o", "wide").splitlines()[1:]]
    assert [(r[0], r[2]) for r in rows] == [("trainer-0", "Running"), ("trainer-1", "Running")]
    assert {r[6] for r in rows} != {node}
    claims = kbatch_ok(tmp_path, "get", "resourceclaims").splitlines()
    assert claims[1].split()[1] == "allocated,reserved"
