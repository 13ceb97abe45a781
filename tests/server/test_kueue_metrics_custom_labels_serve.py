"""``metrics.customLabels`` on a real ``kbatch serve`` (``--kueue-config`` with the entries,
``--feature-gates CustomMetricLabels=true``): queues labelled and a Job created with kubectl, the clock
advanced, ``kubectl get --raw /metrics`` and httpx scrape the ``custom_*`` labels (docs/kueue.md,
"Metrics"); a Configuration Kueue refuses is refused before the server starts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl_kueue_dra_counters import _advance, _kubectl
from tests.server.test_kueue_metrics_serve import QUEUES, _job, _samples

KUBECTL = shutil.which("kubectl")
CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
    "metrics": {"customLabels": [
        {"name": "team"},
        {"name": "owner", "sourceKind": "LocalQueue", "sourceAnnotationKey": "example.com/owner"},
        {"name": "org", "sourceKind": "Cohort", "trackedValues": ["research"]},
    ]},
}


def _labelled(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for obj in objects:
        obj = {**obj, "metadata": dict(obj["metadata"])}
        if obj["kind"] == "ClusterQueue":
            obj["metadata"]["labels"] = {"team": "ml"}
        elif obj["kind"] == "LocalQueue":
            obj["metadata"]["annotations"] = {"example.com/owner": "alice"}
        elif obj["kind"] == "Cohort":
            obj["metadata"]["labels"] = {"org": "finance"}
        out.append(obj)
    return out


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_scrapes_custom_labels(tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    served: Any = ServeProcess(tmp_path / "state", "--kueue-config", str(config),
                               "--feature-gates", "CustomMetricLabels=true").start()
    try:
        _kubectl(served, "apply", "-f", "-", stdin=yaml.safe_dump_all(_labelled(QUEUES)))
        _kubectl(served, "create", "-f", "-", stdin=yaml.safe_dump(_job("short", 5)))
        _advance(served, "30s")
        got = _samples(_kubectl(served, "get", "--raw", "/metrics"))
        role = 'replica_role="standalone"'
        cq = f'cluster_queue="cq",priority_class="",{role},custom_team="ml"'
        assert got[f"kueue_admitted_workloads_total{{{cq}}}"] == 1
        assert got[f"kueue_finished_workloads_total{{{cq}}}"] == 1
        lq = f'name="lq",namespace="default",priority_class="",{role},custom_owner="alice"'
        assert got[f"kueue_local_queue_admitted_workloads_total{{{lq}}}"] == 1
        untracked = 'custom_org="kueue.x-k8s.io/_UNTRACKED_VALUE_"'
        cohort = f'cohort="org",parent_cohort="",root_cohort="org",{role},{untracked}'
        assert got[f"kueue_cohort_info{{{cohort}}}"] == 1
        creation = f'job_kind="Job",{role},custom_owner="alice"'
        assert got[f"kueue_workload_creation_latency_seconds_count{{{creation}}}"] == 1
        text = httpx.get(f"{served.url}/metrics", timeout=60).text
        status = f'cluster_queue="cq",status="active",{role},custom_team="ml"'
        assert f"kueue_cluster_queue_status{{{status}}} 1" in text
    finally:
        assert served.stop() == 0, "".join(served.output)


def test_serve_refuses_a_configuration_kueue_refuses(tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"
    bad = {**CONFIG, "metrics": {"customLabels": [{"name": "team-name"}]}}
    config.write_text(yaml.safe_dump(bad))
    done = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(tmp_path / "state"),
                           "--kueue-config", str(config), "serve", "--port", "0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "metrics.customLabels[0].name: Invalid value: \"team-name\": must match ^[a-zA-Z][a-zA-Z0-9_]*$" \
        in done.stderr
    assert "Traceback" not in done.stderr
