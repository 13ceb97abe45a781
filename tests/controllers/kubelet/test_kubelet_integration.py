"""The kubelet and scheduler on a ControlPlane: documented behaviours, end to end."""

from __future__ import annotations

from kbatch.api.core_v1 import Event
from kbatch.controllers.kubelet import pod_logs
from kbatch.sim import NodeTemplate, add_pod_condition, evict_pod, fail_pod

from .cluster import condition, get_pod, pod_yaml, sim_cluster


def test_bound_pod_runs_and_succeeds_with_statuses_and_conditions() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    pod = get_pod(cp, "p")
    assert pod.spec.node_name == "node-0" and pod.status.phase == "Running"
    assert pod.status.start_time == cp.now()
    # in generateAPIPodStatus's order (Ready before ContainersReady, PodScheduled last), which the
    # patch's $setElementOrder/conditions gives the stored list (kubectl shows this order)
    assert [c.type for c in pod.status.conditions if c.status == "True"] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert pod.status.container_statuses[0].state.running is not None
    cp.advance(30)
    pod = get_pod(cp, "p")
    term = pod.status.container_statuses[0].state.terminated
    assert pod.status.phase == "Succeeded" and term.exit_code == 0 and term.reason == "Completed"
    assert condition(pod, "Ready").reason == "PodCompleted"


def test_a_failed_pod_reports_ready_and_containers_ready_false_with_reason_pod_failed() -> None:
    """Upstream ``pkg/kubelet/status/generate.go`` ``generateContainersReadyConditionForTerminalPhase``
    and ``generatePodReadyConditionForTerminalPhase``: ``PodFailed`` for a Failed pod (Kueue's pod
    groups order failed pods by it: ``lastActiveTime``)."""
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 3; exit 1"))
    cp.advance(3)
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Failed"
    got = [(condition(pod, t).status, condition(pod, t).reason) for t in ("ContainersReady", "Ready")]
    assert got == [("False", "PodFailed")] * 2


def test_start_up_delay_shows_container_creating() -> None:
    cp = sim_cluster(1, options={"kubelet": {"start_delay": 5}})
    cp.apply(pod_yaml("p", "sleep 1"))
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Pending"
    assert pod.status.container_statuses[0].state.waiting.reason == "ContainerCreating"
    cp.advance(5)
    assert get_pod(cp, "p").status.phase == "Running"


def test_echo_goes_to_the_log_and_env_is_substituted() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "echo hello $HOSTNAME; exit 0").replace(
        "    image: busybox", "    image: busybox\n    env: [{name: HOSTNAME, value: box}]"))
    cp.advance(1)
    assert pod_logs(cp, "default", "p") == "hello box\n"


def test_graceful_deletion_keeps_the_pod_terminating_for_its_grace_period() -> None:
    from kbatch.api.core_v1 import Pod

    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 1000", grace=20))
    cp.client.delete(Pod, "p", "default")
    cp.run_until_idle()
    assert get_pod(cp, "p").metadata.deletion_timestamp is not None
    cp.advance(19)
    assert get_pod(cp, "p").status.phase == "Running"
    cp.advance(1)
    assert cp.client.list(Pod, "default").items == []


def test_eviction_keeps_disruption_target_in_the_final_status() -> None:
    from kbatch.api.core_v1 import Pod

    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 1000", grace=10))
    seen = []
    evict_pod(cp, "p")
    cp.advance(9)
    cond = condition(get_pod(cp, "p"), "DisruptionTarget")
    assert cond.reason == "EvictionByEvictionAPI" and cond.message == "Eviction API: evicting"
    watch = cp.client.watch(Pod, "default")
    cp.advance(1)
    for event in watch.poll():
        seen.append((event.type, event.object.status.phase, condition(event.object, "DisruptionTarget")))
    final = [s for s in seen if s[1] == "Failed"]
    assert final and final[0][2] is not None and final[0][2].reason == "EvictionByEvictionAPI"
    assert seen[-1][0] == "DELETED"


def test_fail_pod_fault_sets_exit_code_and_restart_policy_applies() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 100", restart="Never"))
    fail_pod(cp, "p", exit_code=42, reason="OOMKilled")
    pod = get_pod(cp, "p")
    term = pod.status.container_statuses[0].state.terminated
    assert pod.status.phase == "Failed" and (term.exit_code, term.reason) == (42, "OOMKilled")


def test_custom_condition_is_kept_by_the_kubelet() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 10"))
    add_pod_condition(cp, "p", "ConfigIssue", reason="BadConfig", message="bad")
    cp.advance(10)
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Succeeded" and condition(pod, "ConfigIssue").reason == "BadConfig"


def test_on_failure_restarts_count_up_in_status() -> None:
    """kubectl shows Error, then Running with RESTARTS 1 at once, then CrashLoopBackOff: the first exit
    has no back-off entry (``doBackOff``), the second waits 10 s."""
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 1; exit 1", restart="OnFailure"))
    cp.advance(1)
    status = get_pod(cp, "p").status.container_statuses[0]
    assert status.state.terminated.exit_code == 1 and status.restart_count == 0
    cp.advance(0.5)
    status = get_pod(cp, "p").status.container_statuses[0]
    assert status.state.running is not None and status.restart_count == 1
    assert status.last_state.terminated.exit_code == 1
    cp.advance(1)  # the second exit, at 2 s
    pod = get_pod(cp, "p")
    status = pod.status.container_statuses[0]
    assert status.state.waiting.reason == "CrashLoopBackOff" and status.restart_count == 1
    assert status.state.waiting.message == (
        f"back-off 10s restarting failed container=main pod=p_default({pod.metadata.uid})")
    backoffs = [e for e in cp.client.list(Event, "default").items if e.reason == "BackOff"]
    assert [(e.type, e.message, e.involved_object.field_path) for e in backoffs] == [
        ("Warning", f"Back-off restarting failed container main in pod p_default({pod.metadata.uid})",
         "spec.containers{main}")]
    cp.advance(10)
    assert get_pod(cp, "p").status.container_statuses[0].restart_count == 2


def test_stage_rules_decide_duration_and_exit_code() -> None:
    stages = """
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: flaky}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.name', operator: In, values: [p]}
  delay: {durationMilliseconds: 7000}
  next: {exitCode: 5, reason: Error}
"""
    cp = sim_cluster(1, options={"kubelet": {"stages": stages}})
    cp.apply(pod_yaml("p", "sleep 1000"))
    cp.advance(7)
    term = get_pod(cp, "p").status.container_statuses[0].state.terminated
    assert term is not None and term.exit_code == 5


def test_same_seed_same_trace() -> None:
    def run(seed: int) -> str:
        cp = sim_cluster(3, NodeTemplate(cpu="2"), seed=seed)
        for i in range(6):
            cp.apply(pod_yaml(f"p{i}", f"sleep {i + 1}", cpu="500m"))
        cp.advance(10)
        return cp.trace.digest()

    assert run(7) == run(7)


def test_a_pod_made_terminal_by_another_writer_is_never_moved_back() -> None:
    from kbatch.api.core_v1 import Pod

    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 100", restart="Always"))
    cp.client.patch_status(Pod, "p", {"status": {"phase": "Failed", "reason": "DeadlineExceeded"}}, "default")
    cp.advance(200)
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Failed" and pod.status.reason == "DeadlineExceeded"


def test_not_ready_node_freezes_its_pods_until_ready_again() -> None:
    from kbatch.sim import mark_node_not_ready, mark_node_ready

    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 10"))
    mark_node_not_ready(cp, "node-0")
    cp.advance(30)
    assert get_pod(cp, "p").status.phase == "Running"  # nobody reports for a dead kubelet
    mark_node_ready(cp, "node-0")
    pod = get_pod(cp, "p")
    term = pod.status.container_statuses[0].state.terminated
    assert pod.status.phase == "Succeeded" and term.finished_at.second == 10  # exact, though late


def test_a_pod_recreated_under_the_same_name_runs_from_its_own_start() -> None:
    """The kubelet keeps one run per pod name; a new pod of that name (another uid) seen before the
    old one's deletion is a new run, not the old one's continuation."""
    from kbatch.api.core_v1 import Pod

    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    old_uid = get_pod(cp, "p").metadata.uid
    cp.advance(20)
    cp.client.delete(Pod, "p", "default", grace_period_seconds=0)
    cp.apply(pod_yaml("p", "sleep 30"))  # nothing reconciles in between: the kubelet sees only the new pod
    pod = get_pod(cp, "p")
    assert pod.metadata.uid != old_uid
    assert pod.status.phase == "Running" and pod.status.start_time == cp.now()
    cp.advance(20)
    assert get_pod(cp, "p").status.phase == "Running", "the old pod's 20 s do not count"
    cp.advance(10)
    assert get_pod(cp, "p").status.phase == "Succeeded"
    kubelet = cp.manager.get("kubelet").reconciler
    assert kubelet.runs == {}, "a finished pod's run is forgotten"
