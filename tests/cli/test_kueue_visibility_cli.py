"""Kueue's visibility API through the CLI, one process per command: ``kbatch get --raw`` on local
state (dispatched in process, as ``kbatch serve`` would answer) shows the pending workloads in pop
order; with admission fair sharing, the LocalQueue that used less comes first though its workload
came later (kueue ``Snapshot``'s usage-first sort)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.test_kueue_afs_cli import CONFIG, QUEUES, _workload

V = "/apis/visibility.kueue.x-k8s.io/v1beta2"


def _kb(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))


def _ok(state: Path, *args: str) -> str:
    out = _kb(state, *args)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _names(state: Path, path: str) -> list[tuple[str, int, int]]:
    summary = json.loads(_ok(state, "get", "--raw", path))
    assert summary["kind"] == "PendingWorkloadsSummary"
    return [(i["metadata"]["name"], i["positionInClusterQueue"], i["positionInLocalQueue"])
            for i in summary["items"]]


def test_get_raw_reads_pending_workloads_on_local_state(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _ok(state, "apply", "-f", str(EXAMPLES / "kueue" / "queues.yaml"))
    for name in ("w1", "w2", "w3"):
        _ok(state, "apply", "-f", _workload(tmp_path, name, "user-queue", cpu="3"))
    assert _names(state, f"{V}/clusterqueues/cluster-queue/pendingworkloads") == [("w2", 0, 0), ("w3", 1, 1)]
    assert _names(state, f"{V}/namespaces/default/localqueues/user-queue/pendingworkloads?offset=1") == \
        [("w3", 1, 1)]
    missing = _kb(state, "get", "--raw", f"{V}/clusterqueues/nope/pendingworkloads")
    assert missing.returncode == 1
    assert 'Error from server (NotFound): clusterqueue.visibility.kueue.x-k8s.io "nope" not found' \
        in missing.stderr
    assert "kueue_pending_workloads{" in _ok(state, "get", "--raw", "/metrics")


def test_admission_fair_sharing_orders_the_pending_workloads(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _ok(state, "--kueue-config", CONFIG, "apply", "-f", QUEUES)
    _ok(state, "apply", "-f", _workload(tmp_path, "a1", "team-a"), "-f", _workload(tmp_path, "a2", "team-a"))
    _ok(state, "advance", "3m")  # team-a uses the 4 cpu
    _ok(state, "apply", "-f", _workload(tmp_path, "a3", "team-a"))
    _ok(state, "advance", "1s")
    _ok(state, "apply", "-f", _workload(tmp_path, "b1", "team-b"))
    assert _names(state, f"{V}/clusterqueues/shared/pendingworkloads") == [("b1", 0, 0), ("a3", 1, 0)]
