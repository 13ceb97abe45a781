"""Probe events (upstream pkg/kubelet/prober/prober.go: Unhealthy "<Kind> probe failed: <output>" per
failed run; pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions: Killing "Container C
failed liveness|startup probe[, will be restarted]")."""

from __future__ import annotations

import math

from kbatch.api.core_v1 import Event
from kbatch.controllers.kubelet.engine import APP, PodRun, Proc, advance, take_events
from kbatch.controllers.kubelet.probes import LIVENESS, STARTUP, ProbeSpec
from kbatch.sim import clear_probe_faults, fail_probe
from kbatch.sim.command import ContainerRun

from .cluster import condition, get_pod, sim_cluster
from .test_kubelet_probes import probe_pod


def forever(proc: Proc, restart: int) -> ContainerRun:
    return ContainerRun(math.inf, 0)


def pod_events(cp) -> dict[tuple[str, str, str], int]:  # type: ignore[no-untyped-def]
    return {(e.type, e.reason, e.message): e.count or 1 for e in cp.client.list(Event, "default").items
            if e.involved_object.kind == "Pod" and e.reason != "Scheduled"}


def test_a_failing_readiness_probe_reports_unhealthy_every_period_aggregated() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("readinessProbe: {httpGet: {port: 80}, periodSeconds: 10}"))
    cp.advance(5)
    fail_probe(cp, "p", probe="readiness", start=10.0, until=60.0)
    cp.advance(60)  # failed runs at 10, 20, 30, 40, 50; success at 60
    assert pod_events(cp) == {("Warning", "Unhealthy", "Readiness probe failed: "): 5}
    assert condition(get_pod(cp, "p"), "Ready").status == "True"
    cp.advance(100)
    assert pod_events(cp)[("Warning", "Unhealthy", "Readiness probe failed: ")] == 5


def test_liveness_failure_reports_unhealthy_then_killing() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("livenessProbe: {tcpSocket: {port: 80}, periodSeconds: 5, failureThreshold: 2}"))
    cp.advance(3)
    fail_probe(cp, "p", probe="liveness")
    cp.advance(8)  # failed runs at 5, 10: killed at 10
    killing = "Container main failed liveness probe, will be restarted"
    assert pod_events(cp) == {("Warning", "Unhealthy", "Liveness probe failed: "): 2,
                              ("Normal", "Killing", killing): 1}
    clear_probe_faults(cp, "p")
    cp.advance(60)  # restarted after the back-off, healthy: no more events
    assert sum(pod_events(cp).values()) == 3


def test_startup_failure_under_never_is_killing_without_restart() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("startupProbe: {exec: {command: [\"false\"]}, periodSeconds: 1, failureThreshold: 3}",
                       "Never"))
    cp.advance(3)
    assert pod_events(cp) == {("Warning", "Unhealthy", "Startup probe failed: "): 3,
                              ("Normal", "Killing", "Container main failed startup probe"): 1}


def test_engine_queues_events_in_time_order_and_hands_them_over_once() -> None:
    proc = Proc("main", APP)
    proc.probe_specs = (ProbeSpec(STARTUP, 0, 1, 1, 2, passes=False), ProbeSpec(LIVENESS))
    run = PodRun("default", "p", "uid", "Always", 0.0, 0.0, [], [proc])
    advance(run, 1.0, forever)
    unhealthy = ("Warning", "Unhealthy", "Startup probe failed: ", "spec.containers{main}")
    killing = ("Normal", "Killing", "Container main failed startup probe, will be restarted",
               "spec.containers{main}")
    assert take_events(run) == [unhealthy, unhealthy, killing]
    assert take_events(run) == [] and run.events is None
