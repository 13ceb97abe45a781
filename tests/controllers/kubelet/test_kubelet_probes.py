"""Container probes (docs/simulation.md, "Probes"; upstream pkg/kubelet/prober)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kubelet.backoff import restart_delay
from kbatch.controllers.kubelet.engine import (
    APP,
    RUNNING,
    SIDECAR,
    PodRun,
    Proc,
    advance,
    next_wake,
    set_probe_faults,
)
from kbatch.controllers.kubelet.probes import LIVENESS, READINESS, STARTUP, ProbeFault, ProbeSpec
from kbatch.sim import fail_probe
from kbatch.sim.command import ContainerRun

from .cluster import condition, get_pod, sim_cluster


def forever(proc: Proc, restart: int) -> ContainerRun:
    return ContainerRun(math.inf, 0)


def one(policy: str, *specs: ProbeSpec) -> PodRun:
    proc = Proc("main", APP)
    proc.probe_specs = specs
    return PodRun("default", "p", "uid", policy, 0.0, 0.0, [], [proc])


# -- properties ----------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 20), st.integers(1, 10), st.integers(1, 5), st.integers(0, 30), st.integers(1, 10),
       st.integers(0, 60), st.integers(0, 60))
def test_ready_never_before_startup_success_nor_readiness_delay(
        s_delay: int, s_period: int, s_fail: int, r_delay: int, r_period: int, f_start: int,
        f_len: int) -> None:
    run = one("Always", ProbeSpec(STARTUP, s_delay, s_period, 1, s_fail, 5.0),
              ProbeSpec(READINESS, r_delay, r_period))
    set_probe_faults(run, (ProbeFault("main", STARTUP, f_start, f_start + f_len),), 0.0)
    proc = run.app[0]
    for t in range(0, 200):
        advance(run, float(t), forever)
        if proc.state == RUNNING and proc.ready_ok:
            began = proc.started_at or 0.0
            assert proc.started_ok
            assert t >= began + s_delay and t >= began + r_delay


def kills_expected(delay: int, period: int, threshold: int, grace: int, start: int, end: int,
                   horizon: int) -> int:
    """Oracle: restarts by ``horizon`` for a liveness probe failing in [start, end) on a container
    that never exits by itself (restartPolicy Always)."""
    began, restarts = 0, 0
    while True:
        first = began + delay
        k = max(0, math.ceil((start - first) / period))  # first tick inside the window
        kill = first + (k + threshold - 1) * period
        if kill >= end or first + k * period < start:
            return restarts
        restart_at = kill + grace + restart_delay(restarts + 1)
        if restart_at > horizon:
            return restarts
        restarts, began = restarts + 1, restart_at


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 15), st.integers(1, 10), st.integers(1, 4), st.integers(0, 40), st.integers(0, 50),
       st.integers(0, 400))
def test_restart_count_grows_exactly_when_liveness_crosses_the_failure_threshold(
        delay: int, period: int, threshold: int, grace: int, start: int, length: int) -> None:
    horizon = 600
    run = one("Always", ProbeSpec(LIVENESS, delay, period, 1, threshold, float(grace)))
    set_probe_faults(run, (ProbeFault("main", LIVENESS, start, start + length),), 0.0)
    while advance(run, float(horizon), forever):  # an exit restarted at once stops it, to be reported
        pass
    assert run.app[0].restart_count == kills_expected(delay, period, threshold, grace, start,
                                                      start + length, horizon)
    if run.app[0].restart_count:
        assert run.app[0].last is not None and run.app[0].last[:2] == (137, "Error")


# -- examples --------------------------------------------------------------------------------------
def test_containers_without_probes_have_no_probe_state_or_timers() -> None:
    run = PodRun("default", "p", "uid", "Never", 0.0, 0.0, [], [Proc("main", APP)])
    advance(run, 0.0, lambda p, r: ContainerRun(60, 0))
    assert run.app[0].probes is None and run.app[0].ready_ok and next_wake(run) == 60


def test_steady_probes_spend_no_timers_until_a_fault_window() -> None:
    run = one("Always", ProbeSpec(READINESS, 0, 10), ProbeSpec(LIVENESS, 0, 10))
    advance(run, 0.0, forever)
    assert run.app[0].ready_ok and next_wake(run) is None
    set_probe_faults(run, (ProbeFault("main", READINESS, 35.0, 65.0),), 1.0)
    assert next_wake(run) == 10.0  # probed again at the next tick
    advance(run, 10.0, forever)
    assert next_wake(run) == 40.0  # 20 and 30 would change nothing
    advance(run, 59.0, forever)
    assert run.app[0].ready_ok  # failures at 40, 50: below failureThreshold 3
    advance(run, 60.0, forever)
    assert not run.app[0].ready_ok and next_wake(run) == 70.0
    advance(run, 70.0, forever)
    assert run.app[0].ready_ok and next_wake(run) is None


POD = """
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  restartPolicy: {policy}
  terminationGracePeriodSeconds: 5
  containers:
  - name: main
    image: busybox
    command: [sleep, "1000"]
{probes}
"""


def probe_pod(probes: str, policy: str = "Always") -> str:
    return POD.format(policy=policy, probes="\n".join("    " + line for line in probes.strip().splitlines()))


def status(cp):  # type: ignore[no-untyped-def]
    pod = get_pod(cp, "p")
    return pod, pod.status.container_statuses[0]


def test_startup_then_readiness_with_initial_delay() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("""
startupProbe: {exec: {command: ["true"]}, initialDelaySeconds: 5, periodSeconds: 5}
readinessProbe: {httpGet: {port: 80}, initialDelaySeconds: 10}
"""))
    pod, cs = status(cp)
    assert pod.status.phase == "Running" and not cs.started and not cs.ready
    ready = condition(pod, "Ready")
    assert ready.status == "False" and ready.reason == "ContainersNotReady"
    cp.advance(5)
    pod, cs = status(cp)
    assert cs.started and not cs.ready and condition(pod, "ContainersReady").status == "False"
    cp.advance(5)
    pod, cs = status(cp)
    assert cs.ready and condition(pod, "Ready").status == "True"


def test_liveness_failure_kills_with_137_and_restarts_after_back_off() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("livenessProbe: {tcpSocket: {port: 80}, periodSeconds: 5, failureThreshold: 2}"))
    cp.advance(3)
    fail_probe(cp, "p", probe="liveness", until=40.0)  # ticks 5, 10 fail: killed at 10, ends at 15
    cp.advance(11.5)
    _, cs = status(cp)
    assert cs.state.running is not None and cs.restart_count == 0
    cp.advance(1)  # 15.5: the first exit restarts at once (no back-off entry yet)
    _, cs = status(cp)
    assert cs.state.running is not None and cs.restart_count == 1
    assert (cs.last_state.terminated.exit_code, cs.last_state.terminated.reason) == (137, "Error")
    cp.advance(10)  # ticks 15, 20 fail: killed at 20, ends at 25, waits 10 s in back-off
    _, cs = status(cp)
    assert cs.state.waiting.reason == "CrashLoopBackOff" and cs.restart_count == 1
    cp.advance(100)  # restarted at 35; tick 35 fails, 40 passes (the fault is over): healthy
    _, cs = status(cp)
    assert cs.restart_count == 2 and cs.state.running is not None


def test_liveness_failure_under_restart_policy_never_fails_the_pod() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("livenessProbe: {exec: {command: [sh, -c, 'exit 1']}, periodSeconds: 1}", "Never"))
    cp.advance(10)  # fails at 0, 1, 2: killed at 2, ends after the pod's 5 s grace
    pod, cs = status(cp)
    assert pod.status.phase == "Failed" and cs.state.terminated.exit_code == 137 and cs.restart_count == 0
    assert cs.state.terminated.finished_at == cp.clock.to_datetime(7.0).replace(microsecond=0)


def test_exec_readiness_vocabulary_and_timeout() -> None:
    for command, ready in (("[\"true\"]", True), ("[\"false\"]", False), ("[sleep, \"5\"]", False),
                           ("[cat, /tmp/healthy]", False), ("[ls, /tmp]", True),
                           ("[python, check.py]", True)):
        cp = sim_cluster(1)
        cp.apply(probe_pod(f"readinessProbe: {{exec: {{command: {command}}}}}"))
        cp.advance(1)
        assert status(cp)[1].ready is ready, command


def test_an_exec_probe_reads_the_files_the_container_wrote() -> None:
    """``cat /tmp/healthy`` (the upstream liveness-exec example's probe) passes once the container's
    own command has written the file: the probe runs in the container's filesystem."""
    for script, ready in (("touch /tmp/healthy; sleep 1000", True), ("sleep 1000", False),
                          ("echo ok > /tmp/healthy; sleep 1000", True)):
        cp = sim_cluster(1)
        cp.apply(probe_pod("readinessProbe: {exec: {command: [cat, /tmp/healthy]}}")
                 .replace('command: [sleep, "1000"]', f"command: [sh, -c, '{script}']"))
        cp.advance(1)
        assert status(cp)[1].ready is ready, script


def test_readiness_fault_window_makes_the_pod_unready_then_ready_again() -> None:
    cp = sim_cluster(1)
    cp.apply(probe_pod("readinessProbe: {httpGet: {port: 80}, periodSeconds: 10, successThreshold: 2}"))
    assert condition(get_pod(cp, "p"), "Ready").status == "False"  # one success of two
    cp.advance(10)
    assert condition(get_pod(cp, "p"), "Ready").status == "True"
    fail_probe(cp, "p", probe="readiness", start=25.0, until=55.0)
    cp.advance(25)  # 35: failures at 30 (1 of 3)
    assert condition(get_pod(cp, "p"), "Ready").status == "True"
    cp.advance(20)  # 55: failures at 30, 40, 50
    assert condition(get_pod(cp, "p"), "Ready").status == "False"
    cp.advance(20)  # 75: successes at 60, 70
    pod, cs = status(cp)
    assert condition(pod, "Ready").status == "True" and cs.restart_count == 0


def test_sidecar_startup_probe_holds_the_next_init_container() -> None:
    proc, sidecar = Proc("next", "init"), Proc("side", SIDECAR)
    sidecar.probe_specs = (ProbeSpec(STARTUP, 4, 2),)
    run = PodRun("default", "p", "uid", "Never", 0.0, 0.0, [sidecar, proc], [Proc("main", APP)])
    plan = lambda p, r: ContainerRun(math.inf if p.name == "side" else 1, 0)  # noqa: E731
    advance(run, 3.0, plan)
    assert not proc.ran
    advance(run, 4.0, plan)
    assert proc.ran and proc.started_at == 4.0
