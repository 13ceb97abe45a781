"""``kbatch cordon``, ``uncordon`` and ``drain`` as separate processes on one local state: a Job's
pod is evicted from the drained node and recreated on the other, the node stays unschedulable, the
wait moves the virtual clock (the pod's 30 s grace period), and a PodDisruptionBudget's 429 is retried
every 5 s of virtual time until ``--timeout`` (k8s.io/kubectl ``pkg/cmd/drain``, ``pkg/drain``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.processes import kbatch_ok, kbatch_process

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {labels: {app: work}}
    spec:
      restartPolicy: Never
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,
         labelSelector: {matchLabels: {app: work}}}
      containers: [{name: c, image: busybox, command: ["sleep", "3600"]}]
"""


def _pods(state: Path) -> dict[str, str]:
    """Each running pod of the Job and its node."""
    items = json.loads(kbatch_ok(state, "get", "pods", "-l", "app=work", "-o", "json"))["items"]
    return {p["metadata"]["name"]: p["spec"].get("nodeName", "") for p in items
            if not p["metadata"].get("deletionTimestamp")}


def _now(state: Path) -> str:
    return kbatch_ok(state, "advance", "0s").split(" to ")[1].strip()


def test_drain_evicts_the_jobs_pod_and_waits_in_virtual_time(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (tmp_path / "job.yaml").write_text(JOB)
    kbatch_ok(state, "nodes", "add", "--count", "2")
    kbatch_ok(state, "apply", "-f", str(tmp_path / "job.yaml"))
    kbatch_ok(state, "advance", "5s")
    pods = _pods(state)
    assert sorted(pods.values()) == ["node-0", "node-1"]
    victim = next(name for name, node in pods.items() if node == "node-0")
    assert _now(state) == "2025-01-01T00:00:05Z"

    out = kbatch_ok(state, "drain", "node-0")
    assert out == (f"node/node-0 cordoned\nevicting pod default/{victim}\npod/{victim} evicted\n"
                   "node/node-0 drained\n")
    assert _now(state) == "2025-01-01T00:00:35Z"  # the pod's 30 s grace period passed, no more
    node = json.loads(kbatch_ok(state, "get", "node", "node-0", "-o", "json"))
    assert node["spec"]["unschedulable"] is True
    assert kbatch_ok(state, "cordon", "node-0") == "node/node-0 already cordoned\n"

    kbatch_ok(state, "advance", "1m")
    now = _pods(state)
    assert victim not in now and len(now) == 2 and set(now.values()) == {"node-1"}  # recreated elsewhere

    assert kbatch_ok(state, "uncordon", "node-0") == "node/node-0 uncordoned\n"
    assert "unschedulable" not in json.loads(kbatch_ok(state, "get", "node", "node-0", "-o", "json"))["spec"]


def test_a_disruption_budget_is_retried_every_five_seconds_until_the_timeout(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (tmp_path / "job.yaml").write_text(JOB)
    kbatch_ok(state, "nodes", "add", "--count", "2")
    kbatch_ok(state, "apply", "-f", str(tmp_path / "job.yaml"))
    kbatch_ok(state, "create", "pdb", "work", "--selector", "app=work", "--min-available", "2")
    kbatch_ok(state, "advance", "5s")
    victim = next(name for name, node in _pods(state).items() if node == "node-0")

    done = kbatch_process(state, "drain", "node-0", "--timeout", "12s")
    assert done.returncode == 1
    assert done.stdout == "node/node-0 cordoned\n" + f"evicting pod default/{victim}\n" * 4
    retry = (f'error when evicting pods/"{victim}" -n "default" (will retry after 5s): Cannot evict pod as '
             "it would violate the pod's disruption budget.\n")
    timeout = f'error when evicting pods/"{victim}" -n "default": global timeout reached: 12s'
    assert done.stderr == (
        retry * 3
        + f'There are pending pods in node "node-0" when an error occurred: {timeout}\npod/{victim}\n'
        + f'error: unable to drain node "node-0" due to error: {timeout}, continuing command...\n'
        + "There are pending nodes to be drained:\n node-0\n" + f"{timeout}\n")
    assert _now(state) == "2025-01-01T00:00:20Z"  # three 5 s pauses of virtual time
    assert victim in _pods(state)  # still there, its node cordoned

    out = kbatch_ok(state, "drain", "node-0", "--disable-eviction", "--grace-period", "3")
    assert out == (f"node/node-0 already cordoned\npod/{victim} deleted\nnode/node-0 drained\n")
    assert _now(state) == "2025-01-01T00:00:23Z"


def test_refusals_and_dry_runs_print_kubectls_lines(tmp_path: Path) -> None:
    state = tmp_path / "state"
    kbatch_ok(state, "nodes", "add", "--count", "1")
    (tmp_path / "bare.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: bare}\nspec:\n"
                                        "  containers: [{name: c, image: busybox}]\n")
    kbatch_ok(state, "apply", "-f", str(tmp_path / "bare.yaml"))
    kbatch_ok(state, "advance", "1s")

    done = kbatch_process(state, "drain", "node-0")
    fatal = "cannot delete Pods that declare no controller (use --force to override): default/bare"
    assert (done.returncode, done.stdout) == (1, "node/node-0 cordoned\n")
    assert done.stderr == (f'error: unable to drain node "node-0" due to error: {fatal}, continuing '
                           f"command...\nThere are pending nodes to be drained:\n node-0\n{fatal}\n")
    assert kbatch_ok(state, "drain", "node-0", "--force", "--dry-run=client") == (
        "node/node-0 already cordoned (dry run)\nevicting pod default/bare (dry run)\n"
        "node/node-0 drained (dry run)\n")
    assert kbatch_ok(state, "uncordon", "node-0", "--dry-run=server") == \
        "node/node-0 uncordoned (server dry run)\n"
    missing = kbatch_process(state, "cordon", "nope")
    assert (missing.returncode, missing.stderr) == \
        (1, 'Error from server (NotFound): nodes "nope" not found\n')


def test_a_budget_lets_the_next_pod_go_once_a_replacement_runs_elsewhere(tmp_path: Path) -> None:
    """minAvailable 1 over two pods on the drained node: the first is evicted, the second refused
    until the first's replacement runs on the other node, then evicted: the drain succeeds."""
    state = tmp_path / "state"
    (tmp_path / "job.yaml").write_text(JOB)
    kbatch_ok(state, "nodes", "add", "--count", "2")
    kbatch_ok(state, "cordon", "node-1")  # both pods land on node-0
    kbatch_ok(state, "apply", "-f", str(tmp_path / "job.yaml"))
    kbatch_ok(state, "create", "pdb", "work", "--selector", "app=work", "--min-available", "1")
    kbatch_ok(state, "advance", "5s")
    kbatch_ok(state, "uncordon", "node-1")
    first, second = sorted(_pods(state))
    assert set(_pods(state).values()) == {"node-0"}

    done = kbatch_process(state, "drain", "node-0", "--timeout", "5m")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["node/node-0 cordoned", f"evicting pod default/{first}",
                         f"evicting pod default/{second}"]
    assert lines[-3:] == [f"pod/{first} evicted", f"pod/{second} evicted", "node/node-0 drained"]
    retries = done.stderr.count(f'error when evicting pods/"{second}" -n "default" (will retry after 5s)')
    assert retries >= 1 and lines.count(f"evicting pod default/{second}") == retries + 1
    assert set(_pods(state).values()) == {"node-1"}


def test_skip_wait_for_delete_timeout_stops_waiting_for_a_pod_whose_kubelet_is_gone(tmp_path: Path) -> None:
    """A stopped kubelet never finishes the evicted pod: kubectl's --skip-wait-for-delete-timeout
    gives up on it once its deletionTimestamp (eviction + 30 s grace) is more than N s old."""
    state = tmp_path / "state"
    (tmp_path / "job.yaml").write_text(JOB)
    kbatch_ok(state, "nodes", "add", "--count", "2")
    kbatch_ok(state, "apply", "-f", str(tmp_path / "job.yaml"))
    kbatch_ok(state, "advance", "5s")
    victim = next(name for name, node in _pods(state).items() if node == "node-0")
    kbatch_ok(state, "node", "stop-kubelet", "node-0")

    out = kbatch_ok(state, "drain", "node-0", "--skip-wait-for-delete-timeout", "60", "--timeout", "10m")
    assert out == (f"node/node-0 cordoned\nevicting pod default/{victim}\n"
                   f'pod "{victim}" has DeletionTimestamp older than 60 seconds, skipping\n'
                   "node/node-0 drained\n")
    assert _now(state) == "2025-01-01T00:01:36Z"  # deleted at 5 s + 30 s grace, then 61 whole seconds
    # the still-terminating pod is skipped by the filter too: nothing left to evict
    assert kbatch_ok(state, "drain", "node-0", "--skip-wait-for-delete-timeout", "60") == \
        "node/node-0 already cordoned\nnode/node-0 drained\n"
