"""The stop signal at pod deletion and on a failed liveness probe: the image's STOPSIGNAL, the
program's handler (pause, nginx…), a shell's ``trap`` (POSIX 2.11; the ``sleep & wait`` idiom), PID 1
dropping what it does not handle, and SIGKILL (137) at the end of the grace period
(``killContainer``, docs/simulation.md "Stop signals")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.controllers.kubelet.logs import pod_logs
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes

from .cluster import sim_cluster

_POD = """
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: {grace}{extra}
  containers:
  - name: main
    image: {image}{command}
"""


def _pod(image: str, script: str | None = None, grace: int = 30, extra: str = "") -> str:
    command = f"\n    command: {json.dumps(['sh', '-c', script])}" if script is not None else ""
    return _POD.format(grace=grace, extra=extra, image=image, command=command)


def _deleted_after(cp: ControlPlane, running: float, until: float = 100) -> tuple[Any, float, str]:
    """Delete ``p`` after it ran ``running`` seconds; its last status before it went, when it
    went (seconds after the delete), and its log then."""
    cp.advance(running)
    watch = cp.client.watch(Pod, "default")
    start = cp.clock.now()
    cp.client.delete(Pod, "p", "default")
    last, gone_at, log = None, None, ""
    while cp.clock.now() - start < until and gone_at is None:
        cp.run_until_idle()
        log = pod_logs(cp, "default", "p", "main") or log  # forgotten with the pod
        cp.advance(0.5)
        for event in watch.poll():
            if event.type == "DELETED":
                gone_at = cp.clock.now() - start
            elif event.object.status and event.object.status.container_statuses:
                last = event.object
    assert last is not None and gone_at is not None
    return last, gone_at, log


def _terminated(pod: Any) -> tuple[int, str]:
    term = pod.status.container_statuses[0].state.terminated
    assert term is not None
    return term.exit_code, term.reason


CASES = [
    # (image, script, grace, expected exit code, reason, phase, seconds until gone (≤))
    ("registry.k8s.io/pause:3.10", None, 30, 0, "Completed", "Succeeded", 1),  # pause.c: exit 0 on TERM
    ("nginx", None, 30, 0, "Completed", "Succeeded", 1),  # STOPSIGNAL QUIT: graceful, exit 0
    ("httpd", None, 30, 0, "Completed", "Succeeded", 1),  # STOPSIGNAL WINCH: graceful-stop
    ("redis", None, 30, 0, "Completed", "Succeeded", 1),
    ("postgres", None, 30, 0, "Completed", "Succeeded", 1),  # STOPSIGNAL INT: fast shutdown
    ("busybox", "sleep 3600", 10, 137, "Error", "Failed", 10.5),  # PID 1 drops SIGTERM
    # the trap waits for the foreground sleep, which SIGKILL ends first
    ("busybox", "trap 'echo bye; exit 0' TERM; sleep 3600", 10, 137, "Error", "Failed", 10.5),
    ("busybox", "trap 'echo bye; exit 0' TERM; sleep 3600 & wait", 10, 0, "Completed", "Succeeded", 1),
    ("busybox", "trap 'exit' TERM; sleep 3600 & wait $!", 10, 143, "Error", "Failed", 1),  # wait's 128+15
    ("busybox", "trap '' TERM; sleep 3600 & wait", 10, 137, "Error", "Failed", 10.5),  # ignored
    ("busybox", "trap 'echo bye; exit 0' TERM; sleep 12", 30, 0, "Completed", "Succeeded", 8),  # after sleep
    ("nginx", "trap 'exit 0' TERM; sleep 3600 & wait", 10, 137, "Error", "Failed", 10.5),  # nginx sends QUIT
    ("nginx", "trap 'exit 0' QUIT; sleep 3600 & wait", 10, 0, "Completed", "Succeeded", 1),
]


@pytest.mark.parametrize(("image", "script", "grace", "code", "reason", "phase", "within"), CASES)
def test_deleted_container_ends_as_its_stop_signal_makes_it(image: str, script: str | None, grace: int,
                                                            code: int, reason: str, phase: str,
                                                            within: float) -> None:
    cp = sim_cluster(1)
    cp.apply(_pod(image, script, grace))
    pod, gone, _ = _deleted_after(cp, 5)
    assert _terminated(pod) == (code, reason)
    assert pod.status.phase == phase
    assert gone <= within


def test_trap_output_replaces_the_lines_the_run_would_have_printed_later() -> None:
    cp = sim_cluster(1)
    script = "echo start; trap 'echo bye; sleep 5; exit 3' TERM; sleep 60 & wait; echo done"
    cp.apply(_pod("busybox", script, 30))
    pod, _, log = _deleted_after(cp, 5)
    assert _terminated(pod) == (3, "Error")
    assert log == "start\nbye\n"


def test_loop_with_a_trap_ends_at_the_iteration_the_signal_arrives_in() -> None:
    cp = sim_cluster(1)
    cp.apply(_pod("busybox", "trap 'echo bye; exit 0' TERM; while true; do echo tick; sleep 4; done", 30))
    pod, gone, log = _deleted_after(cp, 10)
    assert _terminated(pod) == (0, "Completed")
    assert log == "tick\ntick\ntick\nbye\n"  # ticks at 0, 4, 8; the sleep from 8 ends at 12
    assert gone <= 2.5


def test_shared_process_namespace_makes_an_untrapped_shell_die_of_sigterm() -> None:
    cp = sim_cluster(1)
    cp.apply(_pod("busybox", "sleep 3600", 30, extra="\n  shareProcessNamespace: true"))
    pod, gone, _ = _deleted_after(cp, 5)
    assert _terminated(pod) == (143, "Error")
    assert gone <= 1


def test_liveness_kill_sends_the_stop_signal_too() -> None:
    probe = ("\n    livenessProbe: {exec: {command: [\"false\"]}, periodSeconds: 5, failureThreshold: 1}")
    cp = sim_cluster(1)
    cp.apply(_pod("busybox", "trap 'exit 7' TERM; sleep 3600 & wait", 30).rstrip("\n") + probe + "\n")
    cp.advance(12)
    term = cp.client.get(Pod, "p", "default").status.container_statuses[0]
    state = term.state.terminated or (term.last_state.terminated if term.last_state else None)
    assert state is not None and (state.exit_code, state.reason) == (7, "Error")


@pytest.mark.parametrize(("gates", "code"), [(None, 137), ({"ContainerStopSignals": True}, 0)])
def test_lifecycle_stop_signal_is_sent_when_its_gate_is_on(gates: dict[str, bool] | None, code: int) -> None:
    """KEP-4960: ``lifecycle.stopSignal`` replaces the image's (alpha in 1.33, off by default)."""
    cp = ControlPlane(seed=0, controllers="scheduler,kubelet", feature_gates=gates)
    create_nodes(cp, 1, NodeTemplate())
    lifecycle = "\n    lifecycle: {stopSignal: SIGUSR1}"
    # with the gate on, validation wants spec.os.name (stop_signal_validation.py)
    pod = _pod("busybox", "trap 'exit 0' USR1; sleep 3600 & wait", 10, extra="\n  os: {name: linux}")
    cp.apply(pod.rstrip("\n") + lifecycle + "\n")
    pod, _, _ = _deleted_after(cp, 5)
    assert _terminated(pod)[0] == code


_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {{name: j, namespace: default}}
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {{containerName: main, operator: In, values: [143]}}
    - action: Ignore
      onPodConditions: [{{type: DisruptionTarget}}]
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 5
      containers:
      - name: main
        image: busybox
        command: {command}
"""


@pytest.mark.parametrize(("script", "failed"), [
    ("trap 'exit' TERM; sleep 3600 & wait", True),  # the trap exits with wait's 143: FailJob
    ("sleep 3600", False),  # PID 1 drops SIGTERM, SIGKILL'd: 137 matches no rule, the pod is replaced
])
def test_job_pod_failure_policy_sees_the_stop_signals_exit_code(script: str, failed: bool) -> None:
    from kbatch.api.batch_v1 import Job

    cp = sim_cluster(1, controllers="scheduler,kubelet,job")
    cp.apply(_JOB.format(command=json.dumps(["sh", "-c", script])))
    cp.advance(5)
    first = cp.client.list(Pod, "default").items
    assert len(first) == 1
    cp.client.delete(Pod, first[0].metadata.name, "default")
    cp.advance(10)
    job = cp.client.get(Job, "j", "default")
    conditions = {c.type: c.reason for c in (job.status.conditions or ())}
    if failed:
        assert conditions.get("Failed") == "PodFailurePolicy"
    else:
        assert "Failed" not in conditions and job.status.failed == 1
        assert [p.metadata.name for p in cp.client.list(Pod, "default").items] != [first[0].metadata.name]
