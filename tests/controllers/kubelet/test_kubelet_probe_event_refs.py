"""Probe events name the container (upstream pkg/kubelet/prober/prober.go recordContainerEvent through
pkg/kubelet/container/ref.go GenerateContainerRef: involvedObject.fieldPath "spec.containers{<name>}"
or "spec.initContainers{<name>}"), and the event recorder keeps events about different containers of
one pod apart (client-go events_cache.go getEventKey holds the fieldPath)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event, Pod
from kbatch.controllers.kubelet.probes import container_field_path
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import fail_probe

from .cluster import sim_cluster

TWO_CONTAINERS = """
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Always
  initContainers:
  - name: side
    image: busybox
    restartPolicy: Always
    command: [sh, -c, "sleep 100000"]
    readinessProbe: {httpGet: {port: 81}, periodSeconds: 10}
  containers:
  - name: web
    image: busybox
    command: [sh, -c, "sleep 100000"]
    readinessProbe: {httpGet: {port: 80}, periodSeconds: 10}
    livenessProbe: {tcpSocket: {port: 80}, periodSeconds: 10, failureThreshold: 2}
"""


def kubelet_events(cp: ControlPlane) -> list[Event]:
    return [e for e in cp.client.list(Event, "default").items
            if e.involved_object.kind == "Pod" and e.source and e.source.component == "kubelet"]


def by_ref(cp: ControlPlane) -> dict[tuple[str | None, str, str], int]:
    return {(e.involved_object.field_path, e.reason or "", e.message or ""): e.count or 1
            for e in kubelet_events(cp)}


def test_container_field_path_forms() -> None:
    assert container_field_path("main") == "spec.containers{main}"
    assert container_field_path("setup", init=True) == "spec.initContainers{setup}"


def test_readiness_failures_of_two_containers_are_two_events_with_their_field_paths() -> None:
    cp = sim_cluster(1)
    cp.apply(TWO_CONTAINERS)
    cp.advance(5)
    fail_probe(cp, "p", probe="readiness", start=10.0, until=35.0)  # the first app container: web
    fail_probe(cp, "p", container="side", probe="readiness", start=10.0, until=35.0)
    cp.advance(30)  # failed runs at 10, 20, 30 on each container
    assert by_ref(cp) == {
        ("spec.initContainers{side}", "Unhealthy", "Readiness probe failed: "): 3,
        ("spec.containers{web}", "Unhealthy", "Readiness probe failed: "): 3,
    }
    pod = cp.client.get(Pod, "p", "default")
    ref = next(e.involved_object for e in kubelet_events(cp))
    assert (ref.kind, ref.api_version, ref.name, ref.namespace, ref.uid) == (
        "Pod", "v1", "p", "default", pod.metadata.uid)


def test_liveness_kill_names_the_container() -> None:
    cp = sim_cluster(1)
    cp.apply(TWO_CONTAINERS)
    cp.advance(5)
    fail_probe(cp, "p", container="web", probe="liveness")
    cp.advance(20)  # failed runs at 10, 20: killed at 20
    events = by_ref(cp)
    assert events[("spec.containers{web}", "Unhealthy", "Liveness probe failed: ")] == 2
    killing = "Container web failed liveness probe, will be restarted"
    assert events[("spec.containers{web}", "Killing", killing)] == 1
    assert all(path == "spec.containers{web}" for path, _, _ in events)  # the sidecar stays healthy


def test_recorder_without_field_path_writes_no_field_path() -> None:
    cp = sim_cluster(0)
    cp.apply(TWO_CONTAINERS)
    pod = cp.client.get(Pod, "p", "default")
    recorder = cp.recorder("tester")
    recorder.event(pod, "Normal", "Plain", "no part named")
    recorder.event(pod, "Normal", "Plain", "no part named", "spec.containers{web}")
    events = [e for e in cp.client.list(Event, "default").items if e.reason == "Plain"]
    assert sorted((e.involved_object.field_path or "", e.count) for e in events) == [
        ("", 1), ("spec.containers{web}", 1)]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["spec.containers{a}", "spec.containers{b}", "spec.initContainers{a}", ""]),
                min_size=1, max_size=20))
def test_recorder_counts_per_field_path(paths: list[str]) -> None:
    """One Event per distinct fieldPath, its count the number of times it was recorded (under the
    spam filter's 25-event burst: every record is written)."""
    cp = sim_cluster(0)
    cp.apply(TWO_CONTAINERS)
    pod = cp.client.get(Pod, "p", "default")
    recorder = cp.recorder("tester")
    for path in paths:
        recorder.event(pod, "Warning", "Unhealthy", "Readiness probe failed: ", path)
    # the scheduler's events.k8s.io/v1 Events have no source
    events = [e for e in cp.client.list(Event, "default").items
              if e.source is not None and e.source.component == "tester"]
    got = {e.involved_object.field_path or "": e.count for e in events}
    assert got == {path: paths.count(path) for path in set(paths)}
