"""``GET /metrics`` serves the control plane's metrics in the Prometheus text format."""

from __future__ import annotations

from typing import Any

from kbatch.server.facade import ControlPlaneBackend, new_control_plane

JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
       "spec": {"template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "main", "image": "busybox"}]}}}}


def test_metrics_route_shows_the_job_controller_counters(make_api: Any) -> None:
    api = make_api(ControlPlaneBackend(new_control_plane(controllers="job")))
    assert api.get("/metrics").text == ""  # nothing has happened yet: no series
    assert api.post("/apis/batch/v1/namespaces/default/jobs", json=JOB).status_code == 201
    api.post("/apis/kbatch.dev/v1alpha1/clock", json={"advance": "2s"})
    resp = api.get("/metrics")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    assert "# TYPE job_controller_job_syncs_total counter" in resp.text
    assert 'job_controller_job_pods_creation_total{reason="new",status="succeeded"} 1' in resp.text
