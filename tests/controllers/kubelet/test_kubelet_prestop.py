"""preStop hooks and the sidecars' turn when the kubelet stops a pod (``killContainer``,
``executePreStopHook``, ``terminationOrdering``; docs/simulation.md "Stopping a pod"): the hook
runs first and its time counts against the grace period, the stop signal follows it, a hook that
outlives the grace period earns 2 s once, a failed hook records ``FailedPreStopHook`` and the kill
goes on; sidecars get their signal once the app containers have exited, the last sidecar first."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Event, Pod

from .cluster import sim_cluster
from .test_kubelet_stop_signals import _deleted_after, _terminated

_TRAPPED = "trap 'exit 0' TERM; sleep 3600 & wait"


def _pod(hook: str, script: str | None = _TRAPPED, grace: int = 30, image: str = "busybox",
         args: str = "") -> str:
    command = f"\n    command: {json.dumps(['sh', '-c', script])}" if script is not None else ""
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: {grace}
  containers:
  - name: main
    image: {image}{command}{args}
    lifecycle: {{preStop: {hook}}}
"""


def _hook_events(cp: Any) -> list[tuple[str, str, str]]:
    return [(e.type, e.reason, e.message) for e in cp.client.list(Event, "default").items
            if e.reason == "FailedPreStopHook"]


CASES = [
    # (hook, script, grace, image, exit code, seconds until gone: at least, at most)
    ("{sleep: {seconds: 5}}", _TRAPPED, 30, "busybox", 0, 5, 6),  # signal after the hook
    ("{sleep: {seconds: 0}}", _TRAPPED, 30, "busybox", 0, 0, 1),  # zero is allowed
    ("{exec: {command: [sh, -c, 'sleep 3']}}", _TRAPPED, 30, "busybox", 0, 3, 4),
    ("{exec: {command: [sh, -c, 'exit 1']}}", _TRAPPED, 30, "busybox", 0, 0, 1),  # failed: kill goes on
    # a hook outliving the grace period (validation holds a sleep hook under it, not an exec one):
    # the signal at the grace period's end, SIGKILL 2 s later
    ("{exec: {command: [sleep, '40']}}", _TRAPPED, 10, "busybox", 0, 10, 11),
    ("{exec: {command: [sleep, '40']}}", "sleep 3600", 10, "busybox", 137, 12, 13),
    # the hook's whole seconds come off: 25 s of 30 leave 5, the untrapped shell is killed at 30
    ("{sleep: {seconds: 25}}", "sleep 3600", 30, "busybox", 137, 30, 31),
    ("{httpGet: {port: 80}}", None, 30, "nginx", 0, 0, 1),
]


@pytest.mark.parametrize(("hook", "script", "grace", "image", "code", "least", "most"), CASES)
def test_prestop_hook_runs_before_the_stop_signal(hook: str, script: str | None, grace: int, image: str,
                                                  code: int, least: float, most: float) -> None:
    cp = sim_cluster(1)
    cp.apply(_pod(hook, script, grace, image))
    pod, gone, _ = _deleted_after(cp, 5)
    assert _terminated(pod)[0] == code
    assert least <= gone <= most


@pytest.mark.parametrize(("hook", "image", "failed"), [
    ("{exec: {command: [sh, -c, 'exit 1']}}", "busybox", True),
    ("{exec: {command: [sh, -c, 'test -n \"$GREETING\"']}}", "busybox", False),  # sees the env
    ("{httpGet: {port: 80}}", "nginx", False),
    ("{httpGet: {port: 8080}}", "busybox", True),  # nothing serves: connection refused
    ("{tcpSocket: {port: 80}}", "nginx", True),  # not a lifecycle handler: "invalid handler"
    ("{sleep: {seconds: 1}}", "busybox", False),
])
def test_failed_hook_records_an_event(hook: str, image: str, failed: bool) -> None:
    cp = sim_cluster(1)
    text = _pod(hook, None if image == "nginx" else _TRAPPED, 30, image).replace(
        "    lifecycle:", "    env: [{name: GREETING, value: hi}]\n    lifecycle:")
    cp.apply(text)
    _deleted_after(cp, 5)
    expected = [("Warning", "FailedPreStopHook", "PreStopHook failed")] if failed else []
    assert _hook_events(cp) == expected


def test_pod_is_terminating_while_its_hook_runs() -> None:
    cp = sim_cluster(1)
    cp.apply(_pod("{sleep: {seconds: 8}}"))
    cp.advance(5)
    cp.client.delete(Pod, "p", "default")
    cp.advance(4)
    pod = cp.client.get(Pod, "p", "default")
    assert pod.metadata.deletion_timestamp is not None
    assert pod.status.container_statuses[0].state.running is not None
    cp.advance(5)
    assert not [p for p in cp.client.list(Pod, "default").items]


_SIDECARS = """
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 30
  initContainers:
  - {name: first, image: busybox, restartPolicy: Always,
     command: [sh, -c, "trap 'exit 0' TERM; sleep 3600 & wait"]}
  - {name: second, image: busybox, restartPolicy: Always,
     command: [sh, -c, "trap 'sleep 2; exit 0' TERM; sleep 3600 & wait"]}
  containers:
  - {name: main, image: busybox, command: [sh, -c, "trap 'sleep 3; exit 0' TERM; sleep 3600 & wait"]}
"""


def _finished(pod: Any) -> dict[str, Any]:
    statuses = [*(pod.status.init_container_statuses or ()), *pod.status.container_statuses]
    return {s.name: s.state.terminated.finished_at for s in statuses if s.state.terminated is not None}


def test_sidecars_stop_after_the_app_containers_the_last_first() -> None:
    cp = sim_cluster(1)
    cp.apply(_SIDECARS)
    pod, gone, _ = _deleted_after(cp, 5)
    finished = _finished(pod)
    assert set(finished) == {"first", "second", "main"}
    assert finished["main"] <= finished["second"] <= finished["first"]
    assert (finished["second"] - finished["main"]).total_seconds() == 2  # its trap, after main's exit
    assert 5 <= gone <= 6


def test_job_sidecar_gets_its_stop_signal_when_the_main_container_finishes() -> None:
    cp = sim_cluster(1, controllers="scheduler,kubelet,job")
    cp.apply("""
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers:
      - {name: log, image: busybox, restartPolicy: Always,
         command: [sh, -c, "trap 'exit 3' TERM; sleep 3600 & wait"]}
      containers:
      - {name: main, image: busybox, command: [sh, -c, "sleep 4"]}
""")
    cp.advance(20)
    job = cp.client.get(Job, "j", "default")
    assert job.status.succeeded == 1
    pod = cp.client.list(Pod, "default").items[0]
    assert pod.status.phase == "Succeeded"  # the sidecar's exit code does not count
    sidecar = pod.status.init_container_statuses[0].state.terminated
    assert sidecar is not None and sidecar.exit_code == 3


def _post_start_pod(hook: str, script: str, restart: str = "Never", pre_stop: str = "") -> str:
    pre = f", preStop: {pre_stop}" if pre_stop else ""
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: {restart}
  terminationGracePeriodSeconds: 10
  containers:
  - name: main
    image: busybox
    command: [sh, -c, {json.dumps(script)}]
    lifecycle: {{postStart: {hook}{pre}}}
"""


POST_START = [
    # (hook, script, preStop, exit code, finished seconds after start, event)
    ("{exec: {command: [sh, -c, 'exit 0']}}", "sleep 5", "", 0, 5, False),
    ("{exec: {command: [sh, -c, 'sleep 2; exit 1']}}", _TRAPPED, "", 0, 2, True),  # killed: its trap
    ("{exec: {command: [sh, -c, 'exit 1']}}", "sleep 3600", "", 137, 10, True),  # PID 1 drops TERM
    ("{httpGet: {port: 80}}", "sleep 3600", "{sleep: {seconds: 4}}", 137, 10, True),  # preStop first
    ("{exec: {command: [sh, -c, 'sleep 9; exit 1']}}", "sleep 3", "", 0, 3, True),  # ended before
]


@pytest.mark.parametrize(("hook", "script", "pre_stop", "code", "finished", "event"), POST_START)
def test_failed_post_start_hook_kills_the_container(hook: str, script: str, pre_stop: str, code: int,
                                                    finished: float, event: bool) -> None:
    cp = sim_cluster(1)
    cp.apply(_post_start_pod(hook, script, pre_stop=pre_stop))
    cp.advance(60)
    status = cp.client.get(Pod, "p", "default").status.container_statuses[0]
    term = status.state.terminated
    assert term is not None and term.exit_code == code
    assert (term.finished_at - term.started_at).total_seconds() == finished
    events = [(e.type, e.reason, e.message) for e in cp.client.list(Event, "default").items
              if e.reason == "FailedPostStartHook"]
    assert events == ([("Warning", "FailedPostStartHook", "PostStartHook failed")] if event else [])
