"""``GET /metrics`` serves the control plane's metrics in the Prometheus text format."""

from __future__ import annotations

from typing import Any

from kbatch.server.facade import ControlPlaneBackend, new_control_plane

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
       "spec": {"template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "main", "image": "busybox"}]}}}}


def test_metrics_route_shows_the_job_controller_counters(make_api: Any) -> None:
    api = make_api(ControlPlaneBackend(new_control_plane(controllers="job")))
    first = api.get("/metrics").text
    assert "job_controller" not in first  # nothing has happened yet: no controller series
    assert "# TYPE kubernetes_feature_enabled gauge" in first  # but the gates, as every component serves
    assert api.post("/apis/batch/v1/namespaces/default/jobs", json=JOB).status_code == 201
    api.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": "2s"})
    resp = api.get("/metrics")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    assert "# TYPE job_controller_job_syncs_total counter" in resp.text
    assert 'job_controller_job_pods_creation_total{reason="new",status="succeeded"} 1' in resp.text


def test_metrics_route_reports_every_feature_gate_with_its_stage_and_value(make_api: Any) -> None:
    cp = new_control_plane(controllers="job", feature_gates="GenericWorkload=true")
    text = make_api(ControlPlaneBackend(cp)).get("/metrics").text
    series = [line for line in text.splitlines() if line.startswith("kubernetes_feature_enabled{")]
    assert len(series) == len(cp.features.specs)
    assert 'kubernetes_feature_enabled{name="GenericWorkload",stage="BETA"} 1' in series
    assert 'kubernetes_feature_enabled{name="WorkloadWithJob",stage="ALPHA"} 0' in series
