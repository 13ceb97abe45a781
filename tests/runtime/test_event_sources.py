"""Events name the component upstream names as their source (what ``kubectl describe`` shows as From)."""

from __future__ import annotations

from kbatch.api.core_v1 import Event
from kbatch.runtime.controlplane import ControlPlane
from kbatch.testing import make_job


def test_job_events_come_from_job_controller() -> None:
    # upstream pkg/controller/job/job_controller.go: EventSource{Component: "job-controller"}
    cp = ControlPlane(seed=0, controllers="job")
    cp.apply(make_job("src").command("sleep 5").obj())
    events = cp.client.list(Event, "default").items
    assert events, "the Job controller recorded no event"
    assert {e.source.component for e in events if e.source} == {"job-controller"}


def test_catalog_sources_follow_upstream_components() -> None:
    catalog = ControlPlane(seed=0, controllers="").catalog
    assert catalog["scheduler"].event_source == "default-scheduler"
    assert catalog["cronjob"].event_source == "cronjob-controller"
    assert catalog["kubelet"].event_source == "kubelet"
