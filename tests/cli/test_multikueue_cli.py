"""MultiKueue's objects as a user handles them with ``kbatch`` commands in separate processes: the
manager setup of examples/multikueue applied with no worker Secrets yet; ``kbatch get`` prints the
clusters' ``Connected`` column (False: "load client config failed: secrets … not found") and the
check inactive with upstream's message; a v1beta1 MultiKueueCluster reads back converted; a
MultiKueueConfig naming a cluster twice is refused with the CRD's message and no write."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run
from tests.cli.processes import kbatch_process

SETUP = EXAMPLES / "multikueue" / "manager-setup.yaml"


def test_manager_setup_without_workers(tmp_path: Path) -> None:
    state = tmp_path / "state"
    created = _run(state, "apply", "-f", str(SETUP))
    assert "multikueuecluster.kueue.x-k8s.io/multikueue-test-worker1 created" in created
    table = _run(state, "get", "mkc").splitlines()
    assert table[0].split() == ["NAME", "CONNECTED", "AGE"]
    assert [line.split()[:2] for line in table[1:]] == [
        ["multikueue-test-worker1", "False"],
        ["multikueue-test-worker2", "False"],
    ]
    cluster = json.loads(_run(state, "get", "mkc", "multikueue-test-worker1", "-o", "json"))
    (active,) = cluster["status"]["conditions"]
    assert (active["reason"], active["message"]) == (
        "BadKubeConfig",
        'load client config failed: secrets "worker1-secret" not found',
    )
    check = json.loads(_run(state, "get", "admissioncheck", "sample-multikueue", "-o", "json"))
    (cond,) = check["status"]["conditions"]
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False",
        "NoUsableClusters",
        "Inactive clusters: [multikueue-test-worker1 multikueue-test-worker2]",
    )


def test_v1beta1_cluster_and_a_refused_config(tmp_path: Path) -> None:
    state = tmp_path / "state"
    v1 = tmp_path / "v1.yaml"
    v1.write_text(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: MultiKueueCluster\nmetadata: {name: old}\n"
        "spec:\n  kubeConfig: {location: old-secret, locationType: Secret}\n"
    )
    _run(state, "apply", "-f", str(v1))
    stored = json.loads(_run(state, "get", "multikueueclusters.v1beta2.kueue.x-k8s.io", "old", "-o", "json"))
    assert stored["spec"] == {
        "clusterSource": {"kubeConfig": {"location": "old-secret", "locationType": "Secret"}}
    }
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata: {name: twice}\n"
        "spec: {clusters: [a, a]}\n"
    )
    out = kbatch_process(state, "apply", "-f", str(bad))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert 'spec.clusters: Invalid value: "array": must be unique' in out.stderr
    assert "twice" not in _run(state, "get", "mkconf")


def test_a_manager_run_by_commands_follows_a_worker_over_http(tmp_path: Path) -> None:
    """The manager is ``kbatch`` commands on a state directory (each one process: load, act, save);
    the worker a ``kbatch serve``. A command's process holds the watch only while it runs, so each
    command's manager reconnects at its first round (a restored manager's watch counts as ended) and
    the reconnected watch's first list reports what changed on the worker meanwhile; the Job runs on
    the worker and the manager's Job completes with its status."""
    import httpx

    from kbatch.server.process import ServeProcess
    from tests.cli.multikueue_worker import set_up_worker, worker_secret

    with ServeProcess(tmp_path / "worker") as worker:
        set_up_worker(worker.url)
        state = tmp_path / "manager"
        _run(state, "apply", "-f", str(SETUP))
        _run(state, "apply", "-f", str(worker_secret(tmp_path / "secret.json", worker.url)))
        table = _run(state, "get", "mkc").splitlines()
        assert [line.split()[:2] for line in table[1:]] == [
            ["multikueue-test-worker1", "False"],  # no Secret
            ["multikueue-test-worker2", "True"],
        ]
        _run(state, "apply", "-f", str(EXAMPLES / "multikueue" / "job.yaml"))
        for _ in range(30):
            _run(state, "advance", "2s")
            httpx.post(f"{worker.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "2s"}, timeout=60)
            job = json.loads(_run(state, "get", "job", "sample-job", "-o", "json"))
            if any(c["type"] == "Complete" for c in job["status"].get("conditions", [])):
                break
        else:
            raise AssertionError(f"the manager's Job never completed: {job['status']}")
        assert job["status"]["succeeded"] == 2
        wl = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"][0]
        assert wl["status"]["clusterName"] == "multikueue-test-worker2"
