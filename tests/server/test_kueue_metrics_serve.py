"""Kueue's metrics on a real ``kbatch serve``, as a user reads them: Kueue objects and two Jobs created
with kubectl, the clock advanced, ``kubectl get --raw /metrics`` (and httpx) scraped. One Job finishes,
one is preempted by a higher-priority Job: the counters and the Cohort and hierarchy gauges show it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl_kueue_dra_counters import _advance, _kubectl

KUBECTL = shutil.which("kubectl")
KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUES = [
    {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default"}},
    {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": "org"}},
    {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cq"},
     "spec": {"cohortName": "org", "namespaceSelector": {},
              "preemption": {"withinClusterQueue": "LowerPriority"},
              "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                  {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "2"}]}]}]}},
    {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "default"},
     "spec": {"clusterQueue": "cq"}},
    {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 100},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
     "status": {"capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}},
]


def _job(name: str, seconds: int, priority: str | None = None) -> dict[str, Any]:
    labels = {"kueue.x-k8s.io/queue-name": "lq"}
    if priority:
        labels["kueue.x-k8s.io/priority-class"] = priority
    container = {"name": "c", "image": "busybox", "args": ["sleep", str(seconds)],
                 "resources": {"requests": {"cpu": "2"}}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default",
                                                                  "labels": labels},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("kueue-metrics")).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _samples(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line.startswith("kueue_") and " " in line:
            series, value = line.rsplit(" ", 1)
            out[series] = float(value)
    return out


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_scrapes_kueue_lifecycle_metrics(served: ServeProcess) -> None:
    _kubectl(served, "apply", "-f", "-", stdin=yaml.safe_dump_all(QUEUES))
    _kubectl(served, "create", "-f", "-", stdin=yaml.safe_dump(_job("short", 5)))
    _advance(served, "30s")  # short runs and finishes
    _kubectl(served, "create", "-f", "-", stdin=yaml.safe_dump(_job("low", 600)))
    _advance(served, "10s")
    _kubectl(served, "create", "-f", "-", stdin=yaml.safe_dump(_job("urgent", 600, "high")))
    _advance(served, "10s")  # low is preempted, stopped and requeued; urgent runs
    text = _kubectl(served, "get", "--raw", "/metrics")
    got = _samples(text)
    role = 'replica_role="standalone"'
    assert got[f'kueue_finished_workloads_total{{cluster_queue="cq",priority_class="",{role}}}'] == 1
    assert got[f'kueue_finished_workloads{{cluster_queue="cq",{role}}}'] == 1
    evicted = f'{{cluster_queue="cq",reason="Preempted",underlying_cause="",priority_class="",{role}}}'
    assert got["kueue_evicted_workloads_total" + evicted] == 1
    assert got["kueue_evicted_workloads_once_total" + evicted] == 1
    latency = f'{{cluster_queue="cq",reason="Preempted",{role}}}'
    assert got["kueue_workload_eviction_latency_seconds_count" + latency] == 1
    assert got[f'kueue_admitted_workloads_total{{cluster_queue="cq",priority_class="high",{role}}}'] == 1
    assert got[f'kueue_admission_attempts_total{{result="success",{role}}}'] >= 3
    info = f'{{cluster_queue="cq",parent_cohort="org",root_cohort="org",{role}}}'
    assert got["kueue_cluster_queue_info" + info] == 1
    quota = f'{{cohort="org",flavor="default",resource="cpu",{role}}}'
    assert got["kueue_cohort_subtree_quota" + quota] == 2
    subtree = f'{{cohort="org",priority_class="high",{role}}}'
    assert got["kueue_cohort_subtree_admitted_workloads_total" + subtree] == 1
    assert got[f'kueue_workload_creation_latency_seconds_count{{job_kind="Job",{role}}}'] == 3
    finished_help = "The total number of finished workloads per 'cluster_queue'"
    assert f"# HELP kueue_finished_workloads_total {finished_help}\n" in text
    assert 'kueue_build_info{git_version="v0.19.2"' in httpx.get(f"{served.url}/metrics", timeout=60).text
