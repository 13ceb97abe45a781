"""Admission fair sharing through the CLI, one process per command (``python -m kbatch.cli``).

``--kueue-config`` turns it on; ``kbatch advance`` runs the LocalQueue controller's samples on the
virtual clock, so ``kbatch get localqueue -o yaml`` shows ``status.fairSharing.
admissionFairSharingStatus`` growing while team-a's workloads run and decaying once they are gone;
team-b's workload, created after team-a's second one, is admitted first when quota frees up.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = str(EXAMPLES / "kueue" / "admission-fair-sharing.yaml")
CONFIG = str(EXAMPLES / "kueue" / "afs-config.yaml")


def _workload(tmp: Path, name: str, queue: str, cpu: str = "2") -> str:
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"queueName": queue, "podSets": [{"name": "main", "count": 1, "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}]}}}]},
    }))
    return str(path)


def _consumed(state: Path, lq: str) -> tuple[str | None, str | None]:
    status = yaml.safe_load(_run(state, "get", "localqueue", lq, "-o", "yaml")).get("status", {})
    afs = (status.get("fairSharing") or {}).get("admissionFairSharingStatus")
    if afs is None:
        return None, None
    return afs["consumedResources"].get("cpu"), afs["lastUpdate"]


def _admitted(state: Path, name: str) -> bool:
    wl = yaml.safe_load(_run(state, "get", "workload", name, "-o", "yaml"))
    return any(c["type"] == "Admitted" and c["status"] == "True" for c in wl["status"].get("conditions", []))


def test_local_queue_usage_is_sampled_across_commands(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _run(state, "--kueue-config", CONFIG, "apply", "-f", QUEUES)
    _run(state, "apply", "-f", _workload(tmp_path, "a1", "team-a"), "-f", _workload(tmp_path, "a2", "team-a"))
    assert _admitted(state, "a1") and _admitted(state, "a2")

    _run(state, "advance", "1m")
    first, stamp1 = _consumed(state, "team-a")
    _run(state, "advance", "2m")
    second, stamp2 = _consumed(state, "team-a")
    assert first is not None and second is not None and stamp1 != stamp2
    assert _milli(second) > _milli(first) > 0  # growing toward 4 cpu while both run
    assert _consumed(state, "team-b")[0] is None  # sampled, nothing consumed: no cpu entry

    _run(state, "apply", "-f", _workload(tmp_path, "a3", "team-a"))
    _run(state, "advance", "1s")
    _run(state, "apply", "-f", _workload(tmp_path, "b1", "team-b"))
    _run(state, "delete", "workload", "a1")
    _run(state, "advance", "2s")
    assert _admitted(state, "b1") and not _admitted(state, "a3")

    _run(state, "delete", "workload", "a2")
    _run(state, "delete", "workload", "b1")
    _run(state, "advance", "30m")  # a3 runs alone now: team-a's usage approaches its 2 cpu
    alone, _ = _consumed(state, "team-a")
    assert alone is not None and _milli(second) < _milli(alone) <= 2000

    _run(state, "delete", "workload", "a3")
    _run(state, "advance", "20m")  # nothing admitted: two half-lives, a quarter left
    decayed, _ = _consumed(state, "team-a")
    assert decayed is not None and abs(_milli(decayed) - _milli(alone) // 4) <= 2


def _milli(text: str) -> int:
    from kbatch.api.quantity import Quantity

    return Quantity(text).milli_value()


def _config(tmp: Path, name: str, half_life: str) -> str:
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "admissionFairSharing": {"usageHalfLifeTime": half_life, "usageSamplingInterval": "1s"},
    }))
    return str(path)


def test_the_history_survives_a_restart(tmp_path: Path) -> None:
    """fair_sharing_test.go "should retain the LocalQueue's historical usage across a restart": a
    changed ``--kueue-config`` restarts Kueue (its ledger starts empty); the LocalQueue's first sample
    after it is seeded from the persisted status, so the history is kept, not washed away."""
    state = tmp_path / "state"
    _run(state, "--kueue-config", _config(tmp_path, "short", "2s"), "apply", "-f", QUEUES)
    _run(state, "apply", "-f", _workload(tmp_path, "big", "team-a", cpu="4"))
    _run(state, "advance", "20s")
    before, _ = _consumed(state, "team-a")
    assert before is not None and _milli(before) > 3500
    _run(state, "delete", "workload", "big")
    _run(state, "--kueue-config", _config(tmp_path, "long", "1h"), "apply", "-f",
         _workload(tmp_path, "small", "team-a", cpu="1"))
    _run(state, "advance", "5s")
    after, stamp = _consumed(state, "team-a")
    assert after is not None and stamp.endswith(":25Z")  # written by the restarted manager
    assert _milli(after) > _milli(before) * 7 // 10
