"""Gang scheduling through the CLI as a user runs it: separate ``python -m kbatch --state DIR …``
processes, each loading the saved control plane and saving it again (docs/cli.md "How state is kept"),
so pods waiting at the Coscheduling Permit, its timers and the PodGroups' phases continue across
commands (docs/gang.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEDULER_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: Coscheduling
    args: {podGroupRejectPercentage: 50}
"""


def _pod(name: str, seconds: int, *, xgroup: str = "", group: str = "") -> str:
    labels = f"labels: {{scheduling.x-k8s.io/pod-group: {xgroup}}}" if xgroup else ""
    joins = f"  schedulingGroup: {{podGroupName: {group}}}\n" if group else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, {labels}}}\nspec:\n"
            f"  restartPolicy: Never\n{joins}"
            f"  containers: [{{name: c, image: busybox, command: [sh, -c, 'sleep {seconds}'],"
            f" resources: {{limits: {{nvidia.com/gpu: '8'}}}}}}]\n")


class Cli:
    """``python -m kbatch --state DIR ARGS`` in a fresh process per command."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.state = tmp, tmp / "state"
        self.env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES", "KBATCH_SCHEDULER_CONFIG"):
            self.env.pop(name, None)

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(self.state), *args],
                              capture_output=True, text=True, env=self.env, cwd=self.tmp, timeout=120)
        assert done.returncode == 0, f"kbatch {' '.join(args)}: {done.stderr}{done.stdout}"
        return done

    def file(self, name: str, text: str) -> str:
        path = self.tmp / name
        path.write_text(text)
        return str(path)

    def pods(self) -> dict[str, tuple[str | None, str]]:
        """Pod name → (node name or None, phase)."""
        items = json.loads(self("get", "pods", "-o", "json").stdout)["items"]
        return {p["metadata"]["name"]: (p["spec"].get("nodeName"), p["status"]["phase"]) for p in items}

    def messages(self, reason: str) -> list[str]:
        items = json.loads(self("get", "events", "-o", "json").stdout)["items"]
        return [f"{e['involvedObject']['name']}: {e['message']}" for e in items if e["reason"] == reason]

    def get(self, *args: str) -> Any:
        return json.loads(self("get", *args, "-o", "json").stdout)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


def _gang_waiting_in_permit(cli: Cli, *, blocker_seconds: int, timeout: int) -> None:
    """Two 8-GPU nodes, one busy for ``blocker_seconds``; a gang of two 8-GPU pods (minMember 2): the
    member that fits waits at Permit (a 50 % rejection threshold keeps PostFilter from rejecting it)."""
    cli("nodes", "add", "--count", "2", "--gpu", "8")
    cli("apply", "-f", cli.file("blocker.yaml", _pod("blocker", blocker_seconds)))
    group = ("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: pg}\n"
             f"spec: {{minMember: 2, scheduleTimeoutSeconds: {timeout}}}\n")
    gang = "---\n".join([group, _pod("a", 30, xgroup="pg"), _pod("b", 30, xgroup="pg")])
    config = cli.file("sched.yaml", SCHEDULER_CONFIG)
    cli("--scheduler-config", config, "apply", "-f", cli.file("gang.yaml", gang))


def test_a_gang_waits_in_permit_across_commands_then_binds_whole(cli: Cli) -> None:
    _gang_waiting_in_permit(cli, blocker_seconds=15, timeout=60)
    assert cli.get("podgroups.scheduling.x-k8s.io", "pg")["status"]["phase"] == "Scheduling"
    for _ in range(2):  # two commands while the member that fits waits at Permit
        cli("advance", "5s")
        pods = cli.pods()
        assert (pods["a"][0], pods["b"][0]) == (None, None)  # nothing bound before the quorum
    cli("advance", "10s")  # the blocker ends at 15 s: the second member fits, the gang binds
    pods = cli.pods()
    assert pods["a"][0] and pods["b"][0] and pods["a"][0] != pods["b"][0]
    assert not [m for m in cli.messages("FailedScheduling") if "timeout" in m]  # no Permit timeout
    cli("advance", "1m")
    pods = cli.pods()
    assert pods["a"][1] == pods["b"][1] == "Succeeded"
    status = cli.get("podgroups.scheduling.x-k8s.io", "pg")["status"]
    assert (status["phase"], status["succeeded"]) == ("Finished", 2)


def test_a_permit_timeout_fires_in_a_later_command(cli: Cli) -> None:
    _gang_waiting_in_permit(cli, blocker_seconds=100, timeout=10)
    cli("advance", "5s")
    assert not [m for m in cli.messages("FailedScheduling") if "timeout" in m]
    cli("advance", "6s")  # the 10 s timer set two commands ago fires
    timeouts = [m for m in cli.messages("FailedScheduling") if "timeout" in m]
    assert len(timeouts) == 1 and timeouts[0].endswith(
        "rejected due to timeout after waiting 10s at plugin Coscheduling")
    pods = cli.pods()
    assert (pods["a"][0], pods["b"][0]) == (None, None)


def test_a_native_pod_group_runs_across_commands_and_keeps_its_gate(cli: Cli) -> None:
    cli("--feature-gates", "GenericWorkload=true", "nodes", "add", "--count", "2", "--gpu", "8")
    group = ("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
             "spec: {schedulingPolicy: {gang: {minCount: 2}}}\n")
    cli("apply", "-f", cli.file("group.yaml", group))  # the gate stays on: no --feature-gates again
    one = cli("apply", "-f", cli.file("x.yaml", _pod("x", 30, group="g")))
    assert "restarts" not in one.stderr
    assert cli.pods()["x"][0] is None  # PreEnqueue: one of two pods
    cli("apply", "-f", cli.file("y.yaml", _pod("y", 30, group="g")))
    cli("advance", "20s")
    assert {phase for _, phase in cli.pods().values()} == {"Running"}
    conditions = {c["type"]: c["status"] for c in cli.get("podgroups", "g")["status"]["conditions"]}
    assert conditions["PodGroupInitiallyScheduled"] == "True"
    cli("advance", "20s")
    assert {phase for _, phase in cli.pods().values()} == {"Succeeded"}
    assert "GenericWorkload=true" in cli("version").stdout


def test_a_topology_constrained_gang_of_four_lands_in_the_one_rack_that_fits(cli: Cli) -> None:
    """TopologyAwareWorkloadScheduling (KEP-5732): racks of 2 and 4 eight-GPU nodes; a gang of four
    8-GPU pods that must share a rack fits only in the second (and without its gate would span both)."""
    gates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
    cli("--feature-gates", gates, "nodes", "add", "--count", "2", "--gpu", "8", "--prefix", "r1",
        "--label", "topology.kubernetes.io/rack=r1")
    cli("nodes", "add", "--count", "4", "--gpu", "8", "--prefix", "r2",
        "--label", "topology.kubernetes.io/rack=r2")
    group = ("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: train}\n"
             "spec:\n  schedulingPolicy: {gang: {minCount: 4}}\n"
             "  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}\n")
    gang = "---\n".join([group, *(_pod(f"w{i}", 30, group="train") for i in range(4))])
    cli("apply", "-f", cli.file("gang.yaml", gang))
    cli("advance", "5s")
    nodes = {name: node for name, (node, _) in cli.pods().items()}
    assert all((nodes[f"w{i}"] or "").startswith("r2-") for i in range(4)), nodes
    spec = cli.get("podgroups.scheduling.k8s.io", "train")["spec"]
    assert spec["schedulingConstraints"] == {"topology": [{"key": "topology.kubernetes.io/rack"}]}
    # a second such gang fits in no rack now: its condition says why
    second = group.replace("{name: train}", "{name: eval}")
    cli("apply", "-f", cli.file("eval.yaml", "---\n".join(
        [second, *(_pod(f"e{i}", 30, group="eval") for i in range(4))])))
    conditions = cli.get("podgroups.scheduling.k8s.io", "eval")["status"]["conditions"]
    message = next(c["message"] for c in conditions if c["type"] == "PodGroupInitiallyScheduled")
    assert message.startswith(
        "pod group is unschedulable, 0/2 placements are available, first placement status: ")


EXAMPLES = ROOT / "examples" / "gang"


def test_the_coscheduling_example_binds_all_four_or_none(cli: Cli) -> None:
    """examples/gang/coscheduling-podgroup.yaml: 3 of its 4 pods fit a 6-GPU node, so none binds; a
    second node lets the whole gang bind together, and the PodGroup follows it to Finished."""
    cli("nodes", "add", "--count", "1", "--gpu", "6")
    out = cli("apply", "-f", str(EXAMPLES / "coscheduling-podgroup.yaml")).stdout
    assert out.split() == ["podgroup.scheduling.x-k8s.io/trainer", "created", "job.batch/trainer", "created"]
    cli("advance", "30s")
    assert len(cli.pods()) == 4 and not [n for n, _ in cli.pods().values() if n]
    assert cli.get("pg", "trainer")["status"]["phase"] == "Scheduling"
    cli("nodes", "add", "--count", "1", "--gpu", "8")
    cli("advance", "1m")  # the new node requeues the group: all four bind together
    nodes = [n for n, _ in cli.pods().values()]
    assert all(nodes)
    status = cli.get("pg", "trainer")["status"]
    assert (status["phase"], status["running"]) == ("Running", 4)
    cli("advance", "2m")
    status = cli.get("pg", "trainer")["status"]
    assert (status["phase"], status["succeeded"]) == ("Finished", 4)
    assert cli.get("jobs", "trainer")["status"]["succeeded"] == 4


def test_the_native_example_needs_its_gate_then_binds_whole(cli: Cli) -> None:
    """examples/gang/native-podgroup.yaml: refused kinds without GenericWorkload (off by default, as
    upstream); with it, the Workload, its PodGroup and three pods that bind together."""
    cli("nodes", "add", "--count", "1", "--gpu", "8")
    refused = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(cli.state), "apply", "-f",
                              str(EXAMPLES / "native-podgroup.yaml"), "--dry-run=server"],
                             capture_output=True, text=True, env=cli.env, cwd=cli.tmp, timeout=120)
    assert 'no matches for kind "Workload" in version "scheduling.k8s.io/v1beta1"' in refused.stderr
    manifest = str(EXAMPLES / "native-podgroup.yaml")
    out = cli("--feature-gates", "GenericWorkload=true", "apply", "-f", manifest).stdout
    assert "workload.scheduling.k8s.io/trainer created" in out and out.count("created") == 5
    pods = cli.pods()
    assert sorted(pods) == ["trainer-0", "trainer-1", "trainer-2"] and all(n for n, _ in pods.values())
    status = cli.get("podgroups", "trainer-workers")["status"]
    assert {c["type"]: c["status"] for c in status["conditions"]}["PodGroupInitiallyScheduled"] == "True"
    cli("advance", "2m")
    assert {phase for _, phase in cli.pods().values()} == {"Succeeded"}
