"""The container lifecycle events of a kill, at the instants upstream records them, and the stop of
ephemeral containers with their pod (docs/simulation.md "Stopping a pod").

Upstream ``pkg/kubelet/kuberuntime/kuberuntime_container.go``: ``killContainer`` records ``Killing``
"Stopping container C" (or the message it is given: "FailedPostStartHook" after a failed postStart
hook) before it runs the preStop hook; ``executePreStopHook`` records ``FailedPreStopHook``
"PreStopHook failed" from the goroutine running the hook, when the handler returns its error (an
``exec`` hook's ``ExecSync`` fails when the container exits under it), even after the grace-period
wait gave up on it; ``startContainer`` records ``FailedPostStartHook`` when the hook returns.
``kuberuntime_manager.go`` ``computePodActions`` kills the pod once no app container is kept, and
``killContainersWithSyncResult`` stops every running container, ephemeral ones included, with the
pod's grace period; ``kubelet_pods.go`` ``generateAPIPodStatus`` keeps the pod out of a terminal
phase while it could have running containers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event, Pod
from kbatch.controllers.kubelet.termination import Hook, hook_failure
from kbatch.runtime.controlplane import ControlPlane

from .cluster import pod_yaml, sim_cluster
from .test_kubelet_prestop import _TRAPPED, _pod, _post_start_pod


def _events(cp: ControlPlane, *reasons: str) -> list[tuple[str, str, str, str]]:
    return sorted((e.type, e.reason, e.message, e.involved_object.field_path or "")
                  for e in cp.client.list(Event, "default").items if e.reason in reasons)


def _delete_and_watch(cp: ControlPlane, hook: str, grace: int, script: str = _TRAPPED
                      ) -> list[tuple[float, int]]:
    """Delete ``p`` (its main container running ``script`` with the preStop ``hook``) and return,
    at each half second, how many ``FailedPreStopHook`` events there are."""
    cp.apply(_pod(hook, script, grace))
    cp.advance(5)
    start = cp.clock.now()
    cp.client.delete(Pod, "p", "default")
    seen = []
    while cp.clock.now() - start < grace + 5:
        cp.advance(0.5)
        seen.append((cp.clock.now() - start, len(_events(cp, "FailedPreStopHook"))))
    return seen


def _last_status_after_delete(cp: ControlPlane, seconds: float) -> Pod:
    """Delete ``p`` and return the last version of it the watch showed within ``seconds``."""
    watch = cp.client.watch(Pod, "default")
    cp.client.delete(Pod, "p", "default")
    last = None
    for _ in range(int(seconds * 2)):
        cp.advance(0.5)
        last = next((e.object for e in reversed(watch.poll()) if e.type != "DELETED"), last)
    assert last is not None
    return last


def _first(seen: list[tuple[float, int]]) -> float | None:
    return next((at for at, count in seen if count), None)


@pytest.mark.parametrize(("hook", "grace", "script", "fails_at"), [
    ("{exec: {command: [sh, -c, 'sleep 3; exit 1']}}", 30, _TRAPPED, 3.0),  # when the command fails
    ("{exec: {command: [sh, -c, 'exit 1']}}", 30, _TRAPPED, 0.5),  # at once
    # an exec hook outliving the grace period: its process dies with the container (the trap at the
    # signal, 10 s; an untrapped shell at SIGKILL, 2 s later), though the command would exit 0
    ("{exec: {command: [sleep, '40']}}", 10, _TRAPPED, 10.0),
    ("{exec: {command: [sleep, '40']}}", 10, "sleep 3600", 12.0),
    ("{sleep: {seconds: 25}}", 30, "sleep 3600", None),  # a sleep runs in the kubelet: no failure
    ("{httpGet: {port: 8080}}", 30, _TRAPPED, 0.5),  # connection refused, at once
])
def test_failed_prestop_hook_is_recorded_when_it_fails(hook: str, grace: int, script: str,
                                                       fails_at: float | None) -> None:
    seen = _delete_and_watch(sim_cluster(1), hook, grace, script)
    assert _first(seen) == fails_at
    assert seen[-1][1] == (0 if fails_at is None else 1)


def test_killing_is_recorded_for_each_container_the_kubelet_stops() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", _TRAPPED, grace=30).replace("  containers:", """  initContainers:
  - {name: side, image: busybox, restartPolicy: Always, command: [sh, -c, "sleep 3600"]}
  containers:"""))
    cp.advance(5)
    assert _events(cp, "Killing") == []
    cp.client.delete(Pod, "p", "default")
    cp.advance(0.5)
    assert _events(cp, "Killing") == [
        ("Normal", "Killing", "Stopping container main", "spec.containers{main}"),
        ("Normal", "Killing", "Stopping container side", "spec.initContainers{side}")]


def test_a_pod_that_completes_by_itself_records_no_killing() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 2"))
    cp.advance(10)
    assert cp.client.get(Pod, "p", "default").status.phase == "Succeeded"
    assert _events(cp, "Killing") == []


def test_failed_post_start_hook_events_come_when_the_hook_fails() -> None:
    cp = sim_cluster(1)
    cp.apply(_post_start_pod("{exec: {command: [sh, -c, 'sleep 3; exit 1']}}", _TRAPPED))
    cp.advance(2.5)
    assert _events(cp, "FailedPostStartHook", "Killing") == []
    cp.advance(1)
    assert _events(cp, "FailedPostStartHook", "Killing") == [
        ("Normal", "Killing", "FailedPostStartHook", "spec.containers{main}"),
        ("Warning", "FailedPostStartHook", "PostStartHook failed", "spec.containers{main}")]


def test_an_exec_post_start_hook_outlived_by_nothing_fails_with_its_container() -> None:
    """The container exits at 2 s while the hook's ``sleep 9`` still runs in it: ExecSync fails."""
    cp = sim_cluster(1)
    cp.apply(_post_start_pod("{exec: {command: [sleep, '9']}}", "sleep 2"))
    cp.advance(1.5)
    assert _events(cp, "FailedPostStartHook") == []
    cp.advance(1)
    assert [e[:3] for e in _events(cp, "FailedPostStartHook")] == [
        ("Warning", "FailedPostStartHook", "PostStartHook failed")]
    term = cp.client.get(Pod, "p", "default").status.container_statuses[0].state.terminated
    assert term is not None and term.exit_code == 0


# -- ephemeral containers -------------------------------------------------------------------------
def _debug(cp: ControlPlane, script: str) -> None:
    debugger = {"name": "dbg", "image": "busybox", "targetContainerName": "main",
                "command": ["sh", "-c", script]}
    body = {"spec": {"ephemeralContainers": [debugger]}}
    cp.server.unstructured.patch("v1", "Pod", "p", body, namespace="default", ephemeral=True)
    cp.run_until_idle()


def _dbg(pod: Any) -> Any:
    (status,) = pod.status.ephemeral_container_statuses
    return status


@pytest.mark.parametrize(("script", "code", "done_after"), [
    (_TRAPPED, 0, 5.0),  # the stop signal: its trap exits 0 at once
    ("sleep 3600", 137, 15.0),  # PID 1 drops TERM: SIGKILL at the end of the grace period (10 s)
])
def test_an_ephemeral_container_gets_the_stop_signal_when_the_app_containers_finish(
        script: str, code: int, done_after: float) -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 5", grace=10))
    cp.advance(1)
    _debug(cp, script)
    start = _dbg(cp.client.get(Pod, "p", "default")).state.running.started_at
    cp.advance(6)  # main exited at 5 s
    pod = cp.client.get(Pod, "p", "default")
    assert pod.status.phase == ("Succeeded" if code == 0 else "Running")  # not terminal while it runs
    cp.advance(20)
    pod = cp.client.get(Pod, "p", "default")
    term = _dbg(pod).state.terminated
    assert pod.status.phase == "Succeeded"
    assert term is not None and term.exit_code == code
    assert (term.finished_at - start).total_seconds() == done_after - 1
    assert ("Normal", "Killing", "Stopping container dbg", "spec.ephemeralContainers{dbg}") in _events(
        cp, "Killing")


def test_a_deleted_pods_ephemeral_container_gets_the_stop_signal() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", _TRAPPED))
    cp.advance(1)
    _debug(cp, _TRAPPED)
    last = _last_status_after_delete(cp, 5)
    term = _dbg(last).state.terminated
    assert term is not None and term.exit_code == 0  # its trap, not SIGKILL 137


# -- the failure instant, as a property ------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(duration=st.floats(0, 100), failed=st.booleans(), in_container=st.booleans(),
       exits_in=st.none() | st.floats(0, 100))
def test_a_hook_fails_by_its_own_end_and_an_exec_one_by_its_containers(
        duration: float, failed: bool, in_container: bool, exits_in: float | None) -> None:
    at = hook_failure(Hook(duration, failed, in_container), exits_in)
    if at is None:  # passing: its command passed, ending before the container did (or a kubelet sleep)
        assert not failed and (not in_container or exits_in is None or exits_in >= duration)
        return
    assert 0 <= at <= duration
    if in_container and exits_in is not None:
        assert at <= exits_in  # ExecSync cannot outlive the container
    if not in_container:
        assert failed and at == duration  # sleep, httpGet, tcpSocket: only their own answer counts


# -- postStart holds the start -------------------------------------------------------------------
def _two_containers(first_hook: dict[str, Any], sidecar_hook: dict[str, Any] | None = None,
                    first: str = "sleep 60") -> dict[str, Any]:
    """Containers ``a`` (running ``first``, with the postStart ``first_hook``) and ``b``; with
    ``sidecar_hook``, a sidecar ``side`` before them with that postStart hook."""
    def container(name: str, script: str, hook: dict[str, Any] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"name": name, "image": "busybox", "command": ["sh", "-c", script]}
        return {**out, "lifecycle": {"postStart": hook}} if hook is not None else out

    spec: dict[str, Any] = {"restartPolicy": "Never", "terminationGracePeriodSeconds": 10,
                            "containers": [container("a", first, first_hook), container("b", "sleep 60")]}
    if sidecar_hook is not None:
        spec["initContainers"] = [{**container("side", "sleep 600", sidecar_hook), "restartPolicy": "Always"}]
    meta = {"name": "p", "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _states(cp: ControlPlane) -> dict[str, str]:
    pod = cp.client.get(Pod, "p", "default")
    statuses = [*(pod.status.init_container_statuses or ()), *(pod.status.container_statuses or ())]
    return {"phase": pod.status.phase, **{s.name: next(k for k in ("running", "waiting", "terminated")
                                                       if getattr(s.state, k) is not None) for s in statuses}}


def _started(cp: ControlPlane) -> dict[str, float]:
    pod = cp.client.get(Pod, "p", "default")
    created = pod.metadata.creation_timestamp
    statuses = [*(pod.status.init_container_statuses or ()), *pod.status.container_statuses]
    return {s.name: (s.state.running.started_at - created).total_seconds() for s in statuses
            if s.state.running is not None}


def test_a_container_shows_running_only_when_its_post_start_hook_returned() -> None:
    cp = sim_cluster(1)
    cp.apply(json.dumps(_two_containers({"sleep": {"seconds": 5}})))
    cp.advance(4.5)
    assert _states(cp) == {"phase": "Pending", "a": "waiting", "b": "waiting"}  # ContainerCreating
    cp.advance(1)
    assert _states(cp) == {"phase": "Running", "a": "running", "b": "running"}
    assert _started(cp) == {"a": 0.0, "b": 5.0}  # a ran from 0; b was started after a's hook


def test_a_failed_post_start_hook_holds_the_next_container_until_the_kill_is_done() -> None:
    cp = sim_cluster(1)
    cp.apply(json.dumps(_two_containers({"exec": {"command": ["sh", "-c", "sleep 2; exit 1"]}})))
    cp.advance(11.5)  # fails at 2; the untrapped shell drops TERM: SIGKILL at 2 + 10
    assert _states(cp) == {"phase": "Pending", "a": "waiting", "b": "waiting"}
    cp.advance(1)
    assert _states(cp) == {"phase": "Running", "a": "terminated", "b": "running"}
    assert _started(cp) == {"b": 12.0}


def test_a_sidecars_post_start_hook_holds_the_next_init_container() -> None:
    cp = sim_cluster(1)
    sidecar_hook = {"exec": {"command": ["sh", "-c", "sleep 3"]}}
    cp.apply(json.dumps(_two_containers({"sleep": {"seconds": 0}}, sidecar_hook)))
    cp.advance(2.5)
    assert _states(cp) == {"phase": "Pending", "side": "waiting", "a": "waiting", "b": "waiting"}
    cp.advance(1)
    assert _states(cp) == {"phase": "Running", "side": "running", "a": "running", "b": "running"}
    assert _started(cp) == {"side": 0.0, "a": 3.0, "b": 3.0}


def test_a_pod_deleted_while_a_post_start_hook_runs_stops_that_container_too() -> None:
    cp = sim_cluster(1)
    cp.apply(json.dumps(_two_containers({"exec": {"command": ["sleep", "30"]}}, first=_TRAPPED)))
    cp.advance(5)
    last = _last_status_after_delete(cp, 3)
    (a,) = [s for s in last.status.container_statuses if s.name == "a"]
    assert a.state.terminated is not None and a.state.terminated.exit_code == 0  # its trap
    assert ("Normal", "Killing", "Stopping container a", "spec.containers{a}") in _events(cp, "Killing")


# -- postStart edges: restarts, and a deletion while the hook runs ---------------------------------
def _hook_events(cp: ControlPlane) -> list[tuple[str, str, str]]:
    """The hook/kill events about the pod (each once: the recorder aggregates repeats)."""
    reasons = ("FailedPostStartHook", "Killing", "FailedPreStopHook")
    return sorted((e.type, e.reason, e.message) for e in cp.client.list(Event, "default").items
                  if e.reason in reasons)


def _count(cp: ControlPlane, reason: str) -> int:
    return sum(e.count or 1 for e in cp.client.list(Event, "default").items if e.reason == reason)


def test_a_restarted_container_runs_its_post_start_hook_again_and_is_killed_each_time() -> None:
    """``startContainer`` runs the hook at every start of the container (kuberuntime_container.go):
    with ``restartPolicy: Always`` a hook that fails kills every run."""
    cp = sim_cluster(1)
    cp.apply(_post_start_pod("{exec: {command: [sh, -c, 'sleep 1; exit 1']}}", _TRAPPED, restart="Always"))
    seen = []
    for _ in range(8):
        cp.advance(5)
        seen.append((_count(cp, "FailedPostStartHook"), _count(cp, "Killing")))
    # runs start at 0, 1 (the first restart is at once), 12 (back-off 10 s), 33 (20 s); each hook
    # fails a second later
    assert seen == [(2, 2), (2, 2), (3, 3), (3, 3), (3, 3), (3, 3), (4, 4), (4, 4)]
    assert cp.client.get(Pod, "p", "default").status.container_statuses[0].restart_count == 3


@pytest.mark.parametrize("hook", ["{exec: {command: [sh, -c, 'sleep 20; exit 1']}}", "{sleep: {seconds: 8}}"])
def test_a_deletion_cuts_a_running_post_start_hook(hook: str) -> None:
    """The pod worker cancels the sync the hook runs in (pod_workers.go ``UpdatePod``): the hook fails
    at the deletion instant (``FailedPostStartHook``, ``Killing`` "FailedPostStartHook"), its
    kill's preStop under the cancelled context fails at once, and the terminating sync stops the
    container with the pod's grace period ("Stopping container main", the preStop hook run again).
    The hook's own later failure is never recorded."""
    cp = sim_cluster(1)
    cp.apply(_post_start_pod(hook, _TRAPPED, pre_stop="{exec: {command: [sh, -c, 'exit 0']}}"))
    cp.advance(5)
    assert _hook_events(cp) == []
    cp.client.delete(Pod, "p", "default")
    cp.advance(0.5)
    cut = [("Normal", "Killing", "FailedPostStartHook"), ("Normal", "Killing", "Stopping container main"),
           ("Warning", "FailedPostStartHook", "PostStartHook failed"),
           ("Warning", "FailedPreStopHook", "PreStopHook failed")]
    assert _hook_events(cp) == cut
    cp.advance(30)
    assert _hook_events(cp) == cut and _count(cp, "FailedPostStartHook") == 1


def test_a_deletion_after_the_hook_returned_cuts_nothing() -> None:
    cp = sim_cluster(1)
    cp.apply(_post_start_pod("{sleep: {seconds: 2}}", _TRAPPED))
    cp.advance(5)
    cp.client.delete(Pod, "p", "default")
    cp.advance(30)
    assert _hook_events(cp) == [("Normal", "Killing", "Stopping container main")]
