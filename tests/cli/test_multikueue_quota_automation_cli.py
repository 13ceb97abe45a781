"""MultiKueue manager quota automation as a user runs it (KEP 9988, gate
``MultiKueueManagerQuotaAutomation``): the manager is ``kbatch`` commands on a state directory (each a
separate process), the worker a ``kbatch serve`` reached over HTTP.

examples/multikueue/manager-setup.yaml with its MultiKueueConfig set to ``quotaManagement: Automated``:
the manager ClusterQueue's 9 cpu / 36Gi become the connected worker's 4 cpu / 8Gi (the other worker has
no Secret, so it is not connected and counts for nothing), and follow the worker's ClusterQueue when
it is edited there (kubernetes-sigs/kueue v0.19.2 ``clusterqueue.go``, ``multikueuecluster.go``
``startQueueWatchers``).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from kbatch.server.process import ServeProcess
from tests.cli.conftest import EXAMPLES
from tests.cli.multikueue_worker import set_up_worker, worker_secret
from tests.cli.processes import kbatch_ok

SETUP = EXAMPLES / "multikueue" / "manager-setup.yaml"
GATES = ("--feature-gates", "MultiKueueManagerQuotaAutomation=true")
AUTOMATED = (
    '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueConfig", "metadata": {"name": '
    '"multikueue-test"}, "spec": {"clusters": ["multikueue-test-worker1", "multikueue-test-worker2"], '
    '"quotaManagement": "Automated"}}'
)


def _run(state: Path, *args: str) -> str:
    return kbatch_ok(state, *GATES, *args)


def _manager_cq(state: Path) -> tuple[dict[str, str], list[tuple[str, str]]]:
    cq = json.loads(_run(state, "get", "clusterqueue", "cluster-queue", "-o", "json"))
    (flavor,) = cq["spec"]["resourceGroups"][0]["flavors"]
    conditions = cq["status"].get("conditions", [])
    return (
        {r["name"]: r["nominalQuota"] for r in flavor["resources"]},
        [(c["status"], c["reason"]) for c in conditions if c["type"] == "MultiKueueManagerQuotaAutomation"],
    )


def test_manager_quota_follows_the_worker(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "worker") as worker:
        url = worker.url
        set_up_worker(url)
        state = tmp_path / "manager"
        config = tmp_path / "config.json"
        config.write_text(AUTOMATED)
        secret = worker_secret(tmp_path / "secret.json", url)
        _run(state, "apply", "-f", str(SETUP), "-f", str(config), "-f", str(secret))
        _run(state, "advance", "2s")
        assert _manager_cq(state) == ({"cpu": "4", "memory": "8Gi"}, [("True", "QuotaAutomated")])
        path = f"{url}/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cluster-queue"
        patch = {
            "spec": {
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [
                            {
                                "name": "default-flavor",
                                "resources": [
                                    {"name": "cpu", "nominalQuota": "6"},
                                    {"name": "memory", "nominalQuota": "8Gi"},
                                ],
                            }
                        ],
                    }
                ]
            }
        }
        reply = httpx.patch(
            path, json=patch, headers={"Content-Type": "application/merge-patch+json"}, timeout=60
        )
        assert reply.is_success, reply.text
        _run(state, "advance", "2s")
        assert _manager_cq(state)[0] == {"cpu": "6", "memory": "8Gi"}
