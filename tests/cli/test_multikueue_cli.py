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
