"""A regular container's own restart policy and rules in the simulated kubelet (KEP-5307; upstream
``ShouldContainerBeRestarted`` / ``ContainerShouldRestart``): restarts in place follow the
container's rules, then its own policy, then the pod's; back-off as for the pod-level policy."""

from __future__ import annotations

import pytest

from kbatch.api.container_restart import OwnRestart, Rule, container_should_restart
from kbatch.controllers.kubelet.engine import APP, PodRun, Proc, advance
from kbatch.sim.command import ContainerRun

_ON_42 = OwnRestart("Never", (Rule("In", frozenset({42})),))


def _run(pod_policy: str, own: OwnRestart | None) -> PodRun:
    return PodRun("default", "p", "uid", pod_policy, 0.0, 0.0, (), [Proc("c0", APP, own_restart=own)])


def _plan(*runs: ContainerRun):
    def plan(proc: Proc, restart: int) -> ContainerRun:
        return runs[min(restart, len(runs) - 1)]
    return plan


@pytest.mark.parametrize(("own", "pod", "code", "restarts"), [
    (None, "Never", 42, False),
    (None, "OnFailure", 1, True),
    (_ON_42, "Never", 42, True),  # the rule matches
    (_ON_42, "Never", 1, False),  # no rule matches: the container's Never
    (_ON_42, "Always", 0, False),  # the container's Never wins over the pod's Always
    (OwnRestart("Never", (Rule("NotIn", frozenset({0, 1})),)), "Never", 2, True),
    (OwnRestart("Never", (Rule("NotIn", frozenset({0, 1})),)), "Never", 1, False),
    (OwnRestart("OnFailure"), "Never", 3, True),
    (OwnRestart("OnFailure"), "Always", 0, False),
    (OwnRestart("Always"), "Never", 0, True),
])
def test_the_container_decides_before_the_pod(own: OwnRestart | None, pod: str, code: int,
                                             restarts: bool) -> None:
    assert container_should_restart(own, pod, code) is restarts


def test_a_matching_rule_restarts_in_place_in_a_never_pod() -> None:
    run = _run("Never", _ON_42)
    plan = _plan(ContainerRun(5, 42), ContainerRun(5, 42), ContainerRun(5, 0))
    advance(run, 5.0, plan)
    proc = run.app[0]
    assert run.phase == "Running" and proc.state == "terminated"
    assert proc.restart_at == 5.0  # its exit is reported before the restart
    advance(run, 10.0, plan)  # restarted at once at 5, exits 42 again at 10: back-off 10 s
    assert proc.restart_count == 1 and proc.reason == "CrashLoopBackOff" and proc.restart_at == 20.0
    advance(run, 100.0, plan)
    assert run.phase == "Succeeded" and proc.restart_count == 2 and proc.exit_code == 0


def test_an_unmatched_exit_fails_the_never_pod() -> None:
    run = _run("Never", _ON_42)
    advance(run, 50.0, _plan(ContainerRun(5, 3)))
    assert run.phase == "Failed" and run.app[0].restart_count == 0


def test_a_never_container_is_not_restarted_in_an_always_pod() -> None:
    run = PodRun("default", "p", "uid", "Always", 0.0, 0.0, (),
                 [Proc("c0", APP, own_restart=OwnRestart("Never")), Proc("c1", APP)])
    plan = _plan(ContainerRun(5, 1))
    advance(run, 5.0, plan)
    advance(run, 5.0, plan)
    once, always = run.app
    assert once.state == "terminated" and once.restart_at is None and once.restart_count == 0
    assert always.restart_count == 1 and run.phase == "Running"  # the other keeps restarting
