"""KEP-5532 in the simulated kubelet, in virtual time: an exit whose first matching rule says
``RestartAllContainers`` kills the pod's other containers, reports ``AllContainersRestarting=True``,
then re-runs the init containers in order and starts the sidecars and regular containers again, the
pod staying ``Running`` (upstream ``pkg/kubelet/container/helpers.go`` ``ShouldAllContainersRestart``,
``pkg/kubelet/status/generate.go`` ``GenerateAllContainersRestartingCondition``; KEP-5532 "Restart
Phases"). Also KEP-5307's own policy on a regular init container (``ContainerShouldRestart``)."""

from __future__ import annotations

from kbatch.api.container_restart import RESTART_ALL, OwnRestart, Rule
from kbatch.controllers.kubelet.engine import APP, INIT, SIDECAR, PodRun, Proc, advance
from kbatch.controllers.kubelet.status import render_status
from kbatch.sim.command import ContainerRun

_ALL_ON_42 = OwnRestart("Never", (Rule("In", frozenset({42}), RESTART_ALL),))


def _plan(runs: dict[str, list[ContainerRun]]):
    def plan(proc: Proc, restart: int) -> ContainerRun:
        mine = runs[proc.name]
        return mine[min(restart, len(mine) - 1)]
    return plan


def _condition(run: PodRun) -> dict[str, str] | None:
    status = render_status(run, {}, lambda t: f"t{t:g}", 0.0)
    return next((c for c in status["conditions"] if c["type"] == "AllContainersRestarting"), None)


def _pod(policy: str = "Never") -> PodRun:
    run = PodRun("default", "p", "uid", policy, 0.0, 0.0, [Proc("init", INIT)],
                 [Proc("main", APP, own_restart=_ALL_ON_42), Proc("other", APP)])
    run.restart_all = True
    return run


def test_an_exit_restarts_every_container_and_reruns_the_init_containers() -> None:
    run = _pod()
    plan = _plan({"init": [ContainerRun(1, 0)], "main": [ContainerRun(5, 42), ContainerRun(5, 0)],
                  "other": [ContainerRun(100, 0), ContainerRun(5, 0)]})
    advance(run, 6.0, plan)
    init, (main, other) = run.init[0], run.app
    assert main.state == "terminated" and main.exit_code == 42 and run.phase == "Running"
    assert other.state == "terminated" and other.exit_code == 137  # killed, no grace
    assert _condition(run) == {"type": "AllContainersRestarting", "status": "True",
                               "lastTransitionTime": "t0", "reason": "RestartAllContainersStarted",
                               "message": "container exited with restart policy rule"}
    advance(run, 6.0, plan)  # the restart's startup phase, at once: the init container first
    assert _condition(run)["status"] == "False" and run.phase == "Running"
    assert init.state == "running" and init.restart_count == 1 and init.last[0] == 0
    assert main.state == "waiting" and other.state == "waiting"
    advance(run, 7.0, plan)
    assert main.state == "running" and main.restart_count == 1 and main.last[0] == 42
    assert other.restart_count == 1 and other.last[:2] == (137, "Error")
    advance(run, 20.0, plan)
    assert run.phase == "Succeeded" and _condition(run)["reason"] == "PodCompleted"


def test_a_sidecar_exit_restarts_the_main_container_and_a_repeat_backs_off() -> None:
    on_88 = OwnRestart("Always", (Rule("In", frozenset({88}), RESTART_ALL),))
    side = Proc("side", SIDECAR, own_restart=on_88)
    run = PodRun("default", "p", "uid", "Never", 0.0, 0.0, [side], [Proc("main", APP)])
    run.restart_all = True
    plan = _plan({"side": [ContainerRun(10, 88)], "main": [ContainerRun(100, 0)]})
    advance(run, 10.0, plan)
    assert run.app[0].exit_code == 137 and run.restarting
    advance(run, 10.0, plan)
    assert side.state == "running" and side.restart_count == 1 and run.app[0].restart_count == 1
    advance(run, 20.0, plan)  # the sidecar exits 88 again 10 s later: the next restart waits 10 s
    assert run.restarting and run.app[0].exit_code == 137
    advance(run, 29.0, plan)
    assert run.restarting and side.restart_count == 1
    advance(run, 30.0, plan)
    assert not run.restarting and side.restart_count == 2 and side.state == "running"


def test_a_pod_without_the_action_has_no_condition_and_an_init_container_its_own_policy_keeps() -> None:
    plain = PodRun("default", "p", "uid", "OnFailure", 0.0, 0.0,
                   [Proc("init", INIT, own_restart=OwnRestart("Never"))], [Proc("main", APP)])
    advance(plain, 5.0, _plan({"init": [ContainerRun(1, 3)], "main": [ContainerRun(1, 0)]}))
    assert _condition(plain) is None
    assert plain.phase == "Failed" and plain.init[0].restart_count == 0  # its Never beats the pod's
    retried = PodRun("default", "p", "uid", "Never", 0.0, 0.0,
                     [Proc("init", INIT, own_restart=OwnRestart("OnFailure"))], [Proc("main", APP)])
    plan = _plan({"init": [ContainerRun(1, 3), ContainerRun(1, 0)], "main": [ContainerRun(1, 0)]})
    advance(retried, 1.0, plan)
    advance(retried, 10.0, plan)
    assert retried.phase == "Succeeded" and retried.init[0].restart_count == 1


def test_a_container_waiting_in_back_off_keeps_its_last_run_across_the_restart() -> None:
    crashing = Proc("crash", APP, own_restart=OwnRestart("Always"))
    run = PodRun("default", "p", "uid", "Never", 0.0, 0.0, (),
                 [Proc("main", APP, own_restart=_ALL_ON_42), crashing])
    run.restart_all = True
    plan = _plan({"main": [ContainerRun(30, 42), ContainerRun(100, 0)], "crash": [ContainerRun(1, 7)]})
    while advance(run, 11.0, plan):  # crash exits 7 at 1 and 2, then waits in back-off until 12
        pass
    assert crashing.state == "waiting" and crashing.reason == "CrashLoopBackOff"
    while advance(run, 30.0, plan):  # ... and again until 51 when main's 42 restarts them all at 30
        pass
    assert crashing.state == "running" and crashing.last is not None and crashing.last[:2] == (7, "Error")
