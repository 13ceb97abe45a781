"""The clock extension's next deadline: ``nextDeadline`` on GET, ``untilNextDeadline`` on POST."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.runtime.controlplane import ControlPlane
from kbatch.server.facade import ControlPlaneBackend

CLOCK = "/apis/kbatch.dev/v1alpha1/clock"
PODS = "/api/v1/namespaces/default/pods"


def _pod(name: str, command: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", command]}]}}


@pytest.fixture
def cluster(make_api: Any) -> Any:
    """Scheduler and kubelet on one node: a pod's ``sleep N`` is a timer N seconds ahead."""
    # node Lease renewals (housekeeping every 10 s) off, so the next timer is the pod's
    backend = ControlPlaneBackend(ControlPlane(seed=0, controllers="scheduler,kubelet",
                                               options={"kubelet": {"node_lease": False}}))
    api = make_api(backend)
    assert api.post("/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1}).status_code == 200
    return api


def _phase(api: Any, name: str) -> str:
    return api.get(f"{PODS}/{name}").json()["status"]["phase"]


def test_clock_without_timers_has_no_next_deadline(api: Any) -> None:
    clock = api.get(CLOCK).json()
    assert clock["nextDeadline"] is None and clock["secondsToNextDeadline"] is None
    out = api.post(CLOCK, json={"untilNextDeadline": True}).json()
    assert out["met"] is False and out["advancedSeconds"] == 0.0 and out["now"] == clock["now"]


def test_clock_reports_the_next_pending_timer(cluster: Any) -> None:
    cluster.post(PODS, json=_pod("short", "sleep 30"))
    cluster.post(PODS, json=_pod("long", "sleep 90"))
    clock = cluster.get(CLOCK).json()
    assert clock["secondsToNextDeadline"] == 30.0
    assert clock["nextDeadline"].startswith("2025-01-01T00:00:30")


def test_until_next_deadline_jumps_there_and_fires_what_is_due(cluster: Any) -> None:
    cluster.post(PODS, json=_pod("short", "sleep 30"))
    cluster.post(PODS, json=_pod("long", "sleep 90"))
    out = cluster.post(CLOCK, json={"untilNextDeadline": True}).json()
    assert out["met"] is True and out["advancedSeconds"] == 30.0 and out["now"] == "2025-01-01T00:00:30Z"
    assert _phase(cluster, "short") == "Succeeded" and _phase(cluster, "long") == "Running"
    assert out["secondsToNextDeadline"] == 60.0  # the answer is the clock after the jump
    out = cluster.post(CLOCK, json={"untilNextDeadline": True}).json()
    assert out["now"] == "2025-01-01T00:01:30Z" and _phase(cluster, "long") == "Succeeded"


def test_until_next_deadline_stops_at_the_bound(cluster: Any) -> None:
    cluster.post(PODS, json=_pod("p", "sleep 30"))
    out = cluster.post(CLOCK, json={"untilNextDeadline": True, "advance": "10s"}).json()
    assert out["met"] is False and out["advancedSeconds"] == 10.0 and _phase(cluster, "p") == "Running"
    assert out["secondsToNextDeadline"] == 20.0


@pytest.mark.parametrize("body", [{"untilNextDeadline": True, "untilIdle": True},
                                  {"untilNextDeadline": True, "waitFor": {"kind": "pods", "name": "p"}}])
def test_until_next_deadline_is_not_combined(api: Any, body: dict[str, Any]) -> None:
    res = api.post(CLOCK, json=body)
    assert res.status_code == 400 and res.json()["reason"] == "BadRequest"
