"""The kubelet's pod state machine, pure (docs/simulation.md, "Kubelet lifecycle")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kubelet.backoff import restart_delay
from kbatch.controllers.kubelet.engine import (
    APP,
    INIT,
    SIDECAR,
    Fault,
    PodRun,
    Proc,
    advance,
    apply_fault,
    next_wake,
    request_deletion,
    take_events,
)
from kbatch.sim.command import ContainerRun


def run_of(policy: str = "Never", apps: int = 1, inits: tuple[str, ...] = (), delay: float = 0.0) -> PodRun:
    init = [Proc(f"init{i}", kind) for i, kind in enumerate(inits)]
    return PodRun("default", "p", "uid", policy, 0.0, delay, init, [Proc(f"c{i}", APP) for i in range(apps)])


def planner(table: dict[str, list[ContainerRun]]):
    """Each container's runs, in order; the last one repeats."""
    def plan(proc: Proc, restart: int) -> ContainerRun:
        runs = table[proc.name]
        return runs[min(restart, len(runs) - 1)]
    return plan


def test_pending_running_succeeded_with_startup_delay() -> None:
    run = run_of(delay=2.0)
    plan = planner({"c0": [ContainerRun(10, 0)]})
    advance(run, 1.0, plan)
    assert run.phase == "Pending" and next_wake(run) == 2.0
    advance(run, 2.0, plan)
    assert run.phase == "Running" and run.app[0].started_at == 2.0 and next_wake(run) == 12.0
    advance(run, 100.0, plan)  # a late wake-up still records the exact end
    assert run.phase == "Succeeded" and run.app[0].finished_at == 12.0 and run.app[0].reason == "Completed"


def test_non_zero_exit_fails_a_never_pod() -> None:
    run = run_of()
    advance(run, 50, planner({"c0": [ContainerRun(5, 3)]}))
    assert run.phase == "Failed" and run.app[0].exit_code == 3 and run.app[0].reason == "Error"


def test_on_failure_restarts_at_once_then_with_crash_loop_back_off() -> None:
    """``doBackOff``: the first exit has no back-off entry, so the container restarts at once (its
    exit reported first); the next exits wait 10 s, then 20 s, with upstream's message."""
    run = run_of("OnFailure")
    plan = planner({"c0": [ContainerRun(1, 1), ContainerRun(1, 1), ContainerRun(1, 1), ContainerRun(1, 0)]})
    assert advance(run, 1.0, plan)
    proc = run.app[0]
    assert proc.state == "terminated" and proc.exit_code == 1 and proc.restart_at == 1.0  # reported
    assert next_wake(run) == 1.0 and run.phase == "Running"
    advance(run, 1.0, plan)  # restarted at 1, no back-off
    assert proc.state == "running" and proc.restart_count == 1 and proc.last is not None
    assert proc.last[0] == 1 and proc.last[3] == 1.0
    advance(run, 2.0, plan)  # failed again at 2: 10 s back-off
    assert proc.state == "waiting" and proc.reason == "CrashLoopBackOff" and proc.restart_at == 12.0
    assert proc.message == "back-off 10s restarting failed container=c0 pod=p_default(uid)"
    assert take_events(run) == [("Warning", "BackOff", "Back-off restarting failed container c0 in pod "
                                 "p_default(uid)", "spec.containers{c0}")]
    advance(run, 13.0, plan)  # restarted at 12, failed at 13 → 20 s
    assert proc.restart_count == 2 and proc.restart_at == 33.0
    advance(run, 100.0, plan)
    assert run.phase == "Succeeded" and proc.restart_count == 3


def test_back_off_doubles_to_five_minutes() -> None:
    assert [restart_delay(n) for n in (1, 2, 3, 4, 7, 9)] == [0, 10, 20, 40, 300, 300]


def test_back_off_resets_after_ten_quiet_minutes() -> None:
    """flowcontrol's ``hasExpired``: an exit more than twice 300 s after the entry last moved finds the
    container stable again: restart at once, the entry back at 10 s."""
    run = run_of("Always")
    plan = planner({"c0": [ContainerRun(1, 1), ContainerRun(1, 1), ContainerRun(601, 1), ContainerRun(1, 1)]})
    advance(run, 1.0, plan)
    advance(run, 1.0, plan)  # restart 1 at 1 (entry 10 s, moved at 1)
    advance(run, 12.0, plan)  # exit at 2, restart 2 at 12 (entry 20 s, moved at 12)
    proc = run.app[0]
    assert proc.restart_count == 2 and proc.backoff == 20.0
    advance(run, 613.0, plan)  # exit at 613: 601 s after the entry moved → at once
    assert proc.state == "terminated" and proc.restart_at == 613.0
    advance(run, 613.0, plan)
    advance(run, 614.0, plan)  # exit at 614, 1 s after: back-off 10 s again
    assert proc.state == "waiting" and proc.restart_at == 624.0 and proc.restart_count == 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 700), min_size=1, max_size=12))
def test_restart_waits_follow_the_kubelet_back_off(runs: list[int]) -> None:
    """Oracle: flowcontrol.Backoff step by step (no entry or stale → at once and 10 s; else wait the
    entry, which doubles to 300 s at the restart; it moves at each restart)."""
    run = run_of("Always")
    plan = planner({"c0": [ContainerRun(d, 1) for d in runs] + [ContainerRun(10_000, 0)]})
    backoff, moved, t, starts = 0.0, 0.0, 0.0, [0.0]
    for duration in runs:
        exited = t + duration
        stale = backoff == 0.0 or exited - moved > 600
        t = exited + (0.0 if stale else backoff)
        backoff = 10.0 if stale else min(2 * backoff, 300.0)
        moved = t
        starts.append(t)
    while (wake := next_wake(run)) is not None and wake <= starts[-1]:
        advance(run, wake, plan)
    proc = run.app[0]
    assert proc.restart_count == len(runs) and proc.started_at == starts[-1]


def test_always_restarts_even_after_success() -> None:
    run = run_of("Always")
    plan = planner({"c0": [ContainerRun(1, 0)]})
    advance(run, 1.0, plan)
    assert run.phase == "Running" and run.app[0].reason == "Completed" and run.app[0].restart_at == 1.0
    advance(run, 2.0, plan)  # restarted at once at 1, exited 0 again at 2: back-off
    assert run.phase == "Running" and run.app[0].reason == "CrashLoopBackOff"
    assert run.app[0].restart_count == 1


def test_init_containers_run_in_order_before_app_containers() -> None:
    run = run_of(inits=(INIT, INIT))
    plan = planner({"init0": [ContainerRun(3, 0)], "init1": [ContainerRun(4, 0)], "c0": [ContainerRun(5, 0)]})
    advance(run, 3.0, plan)
    assert run.phase == "Pending" and run.init[1].started_at == 3.0 and run.app[0].state == "waiting"
    advance(run, 7.0, plan)
    assert run.initialized and run.app[0].started_at == 7.0
    advance(run, 12.0, plan)
    assert run.phase == "Succeeded"


def test_failed_init_container_fails_a_never_pod() -> None:
    run = run_of(inits=(INIT,))
    advance(run, 10, planner({"init0": [ContainerRun(1, 2)], "c0": [ContainerRun(5, 0)]}))
    assert run.phase == "Failed" and run.app[0].state == "waiting"


def test_sidecar_runs_alongside_and_stops_when_the_app_ends() -> None:
    run = run_of(inits=(SIDECAR, INIT))
    plan = planner({"init0": [ContainerRun(float("inf"), 0)], "init1": [ContainerRun(2, 0)],
                    "c0": [ContainerRun(5, 0)]})
    advance(run, 2.0, plan)
    assert run.init[0].state == "running" and run.init[1].state == "terminated"
    assert run.app[0].state == "running"
    advance(run, 7.0, plan)
    assert run.phase == "Succeeded" and run.init[0].state == "terminated"


def test_deletion_kills_at_the_end_of_the_grace_period_with_137() -> None:
    run = run_of("Always")
    plan = planner({"c0": [ContainerRun(1000, 0)]})
    advance(run, 5.0, plan)
    request_deletion(run, 35.0)
    advance(run, 34.0, plan)
    assert run.phase == "Running"
    advance(run, 35.0, plan)
    assert run.phase == "Failed" and run.app[0].exit_code == 137 and run.app[0].finished_at == 35.0


def test_deleted_pod_whose_containers_end_first_does_not_restart() -> None:
    run = run_of("Always")
    plan = planner({"c0": [ContainerRun(10, 0)]})
    request_deletion(run, 30.0)
    advance(run, 10.0, plan)
    assert run.app[0].state == "terminated"
    advance(run, 30.0, plan)
    assert run.phase == "Succeeded"


def test_fault_ends_the_container_now_and_the_restart_policy_applies() -> None:
    run = run_of("OnFailure")
    plan = planner({"c0": [ContainerRun(100, 0), ContainerRun(5, 0)]})
    advance(run, 3.0, plan)
    assert apply_fault(run, "c0", Fault(42, "OOMKilled"), 3.0)
    advance(run, 3.0, plan)  # the exit, reported
    assert run.app[0].state == "terminated" and run.app[0].reason == "OOMKilled"
    advance(run, 3.0, plan)  # the restart, at once
    assert run.app[0].last is not None and run.app[0].last[:2] == (42, "OOMKilled")
    advance(run, 100.0, plan)
    assert run.phase == "Succeeded" and run.app[0].restart_count == 1


PHASES = {"Pending": 0, "Running": 1, "Succeeded": 2, "Failed": 2}


HISTORIES = (
    st.sampled_from(["Never", "OnFailure", "Always"]),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 2)), min_size=1, max_size=4),
    st.lists(st.sampled_from([INIT, SIDECAR]), max_size=2),
    st.lists(st.integers(1, 400), min_size=1, max_size=15),
    st.one_of(st.none(), st.integers(0, 400)),
    st.one_of(st.none(), st.integers(0, 400)),
)  # restart policy, the app container's runs, init kinds, observation instants, deletion, fault


def replay(run: PodRun, runs, steps, delete_at, fault_at):
    """Drive ``run`` through a history from :data:`HISTORIES`; yields each observation instant."""
    plan = planner({"c0": [ContainerRun(d, c) for d, c in runs], "init0": [ContainerRun(2, 0)],
                    "init1": [ContainerRun(3, 0)]})
    now = 0.0
    for step in sorted(steps):
        if delete_at is not None and now <= delete_at < step:
            request_deletion(run, delete_at + 30.0)
        if fault_at is not None and now <= fault_at < step:
            apply_fault(run, None, Fault(9), float(fault_at))
        now = float(step)
        advance(run, now, plan)
        yield now


@settings(max_examples=80, deadline=None)
@given(*HISTORIES)
def test_kubelet_never_moves_a_pod_backwards(policy, runs, inits, steps, delete_at, fault_at) -> None:
    run = run_of(policy, inits=tuple(inits))
    rank, restarts = 0, 0
    for now in replay(run, runs, steps, delete_at, fault_at):
        assert PHASES[run.phase] >= rank
        rank = PHASES[run.phase]
        assert run.app[0].restart_count >= restarts
        restarts = run.app[0].restart_count
        if run.terminal:
            assert all(p.state == "terminated" or p.ran is False or p.state == "waiting" for p in run.procs())
        wake = next_wake(run)
        reported = any(p.state == "terminated" and p.restart_at == wake for p in run.procs())
        assert wake is None or wake > now or wake == float("inf") or reported
