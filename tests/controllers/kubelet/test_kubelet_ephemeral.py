"""Ephemeral containers in the kubelet's pod state machine (docs/simulation.md, "Kubelet lifecycle").

Upstream (k8s.io/kubernetes, read at master, 1.36+): ``pkg/kubelet/kuberuntime/kuberuntime_manager.go``
``computePodActions`` (every ephemeral container without a runtime status is in
``EphemeralContainersToStart``; "Ephemeral Containers are never restarted"; started even before
initialization is done, once the sandbox exists), ``kuberuntime_container.go`` ``startSpec.getTargetID``
("unable to find target container T" → ``ErrCreateContainerConfig``), ``pkg/kubelet/kubelet_pods.go``
``convertToAPIContainerStatuses`` (default waiting reason ``PodInitializing`` when the pod has init
containers, else ``ContainerCreating``), ``pkg/kubelet/status/status_manager.go`` ``normalizeStatus``
(ephemeral statuses sorted by name) and ``pkg/kubelet/prober/prober_manager.go`` ``UpdatePodStatus``
(``started``/``ready`` only for regular and init containers).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kubelet.engine import (
    APP,
    INIT,
    EphemeralProc,
    PodRun,
    Proc,
    add_ephemeral,
    advance,
    next_wake,
    request_deletion,
    take_events,
)
from kbatch.controllers.kubelet.status import container_fingerprint, render_status, wanted_ready
from kbatch.sim.command import ContainerRun


def run_of(policy: str = "Always", inits: tuple[str, ...] = (), delay: float = 0.0) -> PodRun:
    init = [Proc(f"init{i}", INIT) for i in range(len(inits))]
    return PodRun("default", "p", "uid", policy, 0.0, delay, init, [Proc("c", APP)])


def planner(table: dict[str, ContainerRun]):
    def plan(proc: Proc, restart: int) -> ContainerRun:
        return table[proc.name]
    return plan


def fmt(t: float) -> str:
    return f"t{t:g}"


def statuses(run: PodRun) -> list[dict]:
    return render_status(run, {}, fmt, 100.0).get("ephemeralContainerStatuses", [])


PLAN = planner({"c": ContainerRun(1000, 0), "init0": ContainerRun(5, 0),
                "dbg": ContainerRun(10, 3, ("hi",)), "zzz": ContainerRun(1000, 0), "aaa": ContainerRun(2, 0)})


def test_an_ephemeral_container_starts_runs_its_command_and_is_never_restarted() -> None:
    run = run_of()
    advance(run, 1.0, PLAN)
    assert run.phase == "Running"
    logs: list[tuple[str, int, tuple[str, ...]]] = []
    assert add_ephemeral(run, [("dbg", "busybox", "c")], 1.0, PLAN,
                         lambda p, r, lines, **_: logs.append((p.name, r, lines)))
    dbg = run.ephemeral[0]
    assert (dbg.state, dbg.started_at) == ("running", 1.0) and logs == [("dbg", 0, ("hi",))]
    advance(run, 500.0, PLAN)  # restartPolicy Always, exit 3: still never restarted
    assert (dbg.state, dbg.exit_code, dbg.reason, dbg.finished_at, dbg.restart_count) == (
        "terminated", 3, "Error", 11.0, 0)
    assert run.phase == "Running" and wanted_ready(run) == "True"  # neither phase nor Ready moved
    status = statuses(run)[0]
    assert status["state"]["terminated"]["exitCode"] == 3 and status["ready"] is False
    assert "started" not in status  # the prober manager leaves ephemeral statuses alone


def test_a_running_ephemeral_container_leaves_ready_and_phase_alone() -> None:
    run = run_of("Never")
    advance(run, 0.0, PLAN)
    add_ephemeral(run, [("zzz", "busybox", "")], 0.0, PLAN)
    assert wanted_ready(run) == "True" and statuses(run)[0]["ready"] is False
    status = render_status(run, {}, fmt, 0.0)
    assert [s["name"] for s in status["containerStatuses"]] == ["c"]


def test_statuses_are_sorted_by_name_not_spec_order() -> None:
    run = run_of()
    advance(run, 0.0, PLAN)
    add_ephemeral(run, [("zzz", "busybox", "")], 0.0, PLAN)
    add_ephemeral(run, [("zzz", "busybox", ""), ("aaa", "busybox", "")], 1.0, PLAN)
    assert [p.name for p in run.ephemeral] == ["zzz", "aaa"]  # spec order inside
    assert [s["name"] for s in statuses(run)] == ["aaa", "zzz"]  # normalizeStatus: by name


def test_no_change_when_the_kubelet_knows_them_all() -> None:
    run = run_of()
    advance(run, 0.0, PLAN)
    add_ephemeral(run, [("dbg", "busybox", "")], 0.0, PLAN)
    version = run.version
    assert not add_ephemeral(run, [("dbg", "busybox", "")], 5.0, PLAN)
    assert run.version == version and run.ephemeral[0].started_at == 0.0


def test_a_target_not_created_yet_is_a_create_container_config_error_retried() -> None:
    # the pod is initializing: its app container "c" has no runtime status yet
    run = run_of(inits=("init",))
    advance(run, 0.0, PLAN)
    assert not run.initialized
    add_ephemeral(run, [("dbg", "busybox", "c")], 1.0, PLAN)
    dbg = run.ephemeral[0]
    assert (dbg.state, dbg.reason, dbg.message) == (
        "waiting", "CreateContainerConfigError", "unable to find target container c")
    assert take_events(run) == [("Warning", "Failed", "Error: unable to find target container c",
                                 "spec.ephemeralContainers{dbg}")]
    advance(run, 5.0, PLAN)  # init done at 5, "c" created
    assert run.initialized and dbg.state == "waiting"
    advance(run, 11.0, PLAN)  # the retry, CONFIG_RETRY after the failure
    assert (dbg.state, dbg.started_at) == ("running", 11.0)


def test_no_target_starts_even_while_initializing() -> None:
    run = run_of(inits=("init",))
    advance(run, 0.0, PLAN)
    add_ephemeral(run, [("dbg", "busybox", "")], 1.0, PLAN)
    assert run.ephemeral[0].state == "running" and not run.initialized


def test_added_before_the_sandbox_it_waits_with_the_default_reason_then_starts_with_the_pod() -> None:
    run = run_of(inits=("init",), delay=3.0)
    add_ephemeral(run, [("dbg", "busybox", "")], 1.0, PLAN)
    assert statuses(run)[0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    advance(run, 3.0, PLAN)
    assert run.ephemeral[0].started_at == 3.0
    plain = run_of(delay=3.0)
    add_ephemeral(plain, [("dbg", "busybox", "")], 1.0, PLAN)
    assert statuses(plain)[0]["state"] == {"waiting": {"reason": "ContainerCreating"}}


def test_not_started_in_a_terminating_or_terminated_pod() -> None:
    deleted = run_of()
    advance(deleted, 0.0, PLAN)
    request_deletion(deleted, 30.0)
    add_ephemeral(deleted, [("dbg", "busybox", "")], 1.0, PLAN)
    assert deleted.ephemeral[0].state == "waiting" and not deleted.ephemeral[0].ran
    advance(deleted, 30.0, PLAN)  # killed pod: the never-created container stays waiting
    assert deleted.terminal and deleted.ephemeral[0].state == "waiting"
    done = run_of("Never")
    advance(done, 1000.0, PLAN)
    assert done.phase == "Succeeded"
    add_ephemeral(done, [("dbg", "busybox", "")], 1001.0, PLAN)
    assert not done.ephemeral[0].ran


def test_still_running_when_the_pod_finishes_it_is_killed_with_it() -> None:
    run = run_of("Never")
    advance(run, 0.0, PLAN)
    add_ephemeral(run, [("zzz", "busybox", "")], 10.0, PLAN)
    advance(run, 1000.0, PLAN)
    zzz = run.ephemeral[0]
    assert run.phase == "Succeeded"
    assert (zzz.state, zzz.exit_code, zzz.finished_at) == ("terminated", 137, 1000.0)


def test_deletion_kills_a_running_ephemeral_container() -> None:
    run = run_of()
    advance(run, 0.0, PLAN)
    add_ephemeral(run, [("zzz", "busybox", "")], 1.0, PLAN)
    request_deletion(run, 30.0)
    advance(run, 30.0, PLAN)
    assert (run.ephemeral[0].state, run.ephemeral[0].exit_code) == ("terminated", 137)


def test_pods_without_ephemeral_containers_keep_their_fingerprint_and_share_the_empty_tuple() -> None:
    a, b = run_of(), run_of()
    assert a.ephemeral is b.ephemeral == ()
    advance(a, 0.0, PLAN)
    assert len(container_fingerprint(a)) == 10 and "ephemeralContainerStatuses" not in render_status(
        a, {}, fmt, 0.0)
    assert isinstance(EphemeralProc("x", "ephemeral"), Proc)


@settings(max_examples=60, deadline=None)
@given(policy=st.sampled_from(["Always", "OnFailure", "Never"]),
       exits=st.lists(st.tuples(st.integers(0, 3), st.floats(0, 50)), min_size=1, max_size=4),
       added_at=st.floats(0, 40))
def test_ephemeral_containers_never_restart_nor_move_the_phase(policy: str, exits: list[tuple[int, float]],
                                                              added_at: float) -> None:
    table = {"c": ContainerRun(1000, 0)}
    table.update({f"e{i}": ContainerRun(d, code) for i, (code, d) in enumerate(exits)})
    plan = planner(table)
    run, bare = run_of(policy), run_of(policy)
    advance(run, added_at, plan)
    advance(bare, added_at, plan)
    add_ephemeral(run, [(f"e{i}", "busybox", "c") for i in range(len(exits))], added_at, plan)
    for t in (added_at + 1, added_at + 60, 999.0, 1000.0, 2000.0):
        advance(run, t, plan)
        advance(bare, t, plan)
        assert (run.phase, wanted_ready(run)) == (bare.phase, wanted_ready(bare))
        assert all(p.restart_count == 0 for p in run.ephemeral)
    assert next_wake(run) == next_wake(bare)
