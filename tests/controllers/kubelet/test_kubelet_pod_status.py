"""The pod status the simulated kubelet writes, field by field, against upstream's kubelet.

Upstream (kubernetes/kubernetes, 1.37-dev): ``pkg/kubelet/kubelet_pods.go`` (``generateAPIPodStatus``:
condition order; ``convertToAPIContainerStatuses``: ``ContainerStatusUnknown``),
``pkg/kubelet/status/generate.go``
(condition reasons and messages), ``pkg/kubelet/status/status_manager.go`` (``normalizeStatus``:
``containerStatuses`` sorted by name, ``initContainerStatuses`` in spec order; ``mergePodStatus``:
other writers' conditions first), ``pkg/kubelet/prober/prober_manager.go`` ``UpdatePodStatus``
(a regular init container is ``ready`` once it exited 0).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.kubelet.engine import APP, INIT, SIDECAR, PodRun, Proc, advance
from kbatch.controllers.kubelet.status import render_status, status_patch
from kbatch.sim.command import ContainerRun

from .cluster import condition, get_pod, pod_yaml, sim_cluster


def fmt(t: float) -> str:
    return f"t{t:g}"


def plan_of(table: dict[str, ContainerRun]):
    return lambda proc, restart: table[proc.name]


def _run(apps: list[str], inits: list[Proc] | None = None, policy: str = "Never") -> PodRun:
    return PodRun("default", "p", "uid-1", policy, 0.0, 0.0, inits or (),
                  [Proc(n, APP, "busybox") for n in apps])


# -- ordering --------------------------------------------------------------------------------------
def test_container_statuses_are_sorted_by_name_and_init_statuses_keep_spec_order() -> None:
    inits = [Proc("zz-init", INIT, "busybox"), Proc("aa-init", INIT, "busybox")]
    run = _run(["web", "app", "sidecar-log"], inits)
    status = render_status(run, {}, fmt, 0.0)
    assert [c["name"] for c in status["containerStatuses"]] == ["app", "sidecar-log", "web"]
    assert [c["name"] for c in status["initContainerStatuses"]] == ["zz-init", "aa-init"]
    patch = status_patch(run, None, False, {}, None, fmt, 0.0, False)
    assert [c["name"] for c in patch["containerStatuses"]] == ["app", "sidecar-log", "web"]


@given(st.lists(st.text("abcxyz-", min_size=1, max_size=6), min_size=1, max_size=6, unique=True))
def test_any_container_names_come_out_sorted(names: list[str]) -> None:
    statuses = render_status(_run(names), {}, fmt, 0.0)["containerStatuses"]
    assert [c["name"] for c in statuses] == sorted(names)


def test_conditions_in_generate_api_pod_status_order_other_writers_first() -> None:
    run = _run(["c"])
    advance(run, 0.0, plan_of({"c": ContainerRun(10, 0)}))
    seen = {"DisruptionTarget": ("True", "x", None, None), "PodScheduled": ("True", None, None, None)}
    patch = status_patch(run, "Pending", True, seen, None, fmt, 0.0, False)
    assert [c["type"] for c in patch["$setElementOrder/conditions"]] == [
        "DisruptionTarget", "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
        "PodScheduled"]
    assert [c["type"] for c in patch["conditions"]] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"]
    existing = {"conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "X", "status": "True"}]}
    rendered = render_status(run, existing, fmt, 0.0)["conditions"]
    assert [c["type"] for c in rendered] == [
        "X", "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]


def test_the_stored_conditions_follow_upstream_order_and_an_unchanged_list_sends_no_order() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 30"))
    pod = get_pod(cp, "p")
    assert [c.type for c in pod.status.conditions] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    in_order = {t: ("True", None, None, 1) for t in (
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")}
    run = _run(["c"])
    advance(run, 0.0, plan_of({"c": ContainerRun(10, 0)}))
    assert status_patch(run, "Running", True, in_order, 1, fmt, 0.0, True, 1) == {}


# -- conditions --------------------------------------------------------------------------------------
def test_initialized_of_a_failed_pod_is_true_without_reason_and_of_a_succeeded_one_pod_completed() -> None:
    """``GeneratePodInitializedCondition``: ``PodCompleted`` only for a Succeeded pod; a Failed one
    whose regular containers started is initialized, no reason."""
    cp = sim_cluster(1)
    cp.apply(pod_yaml("bad", "sleep 3; exit 1"))
    cp.apply(pod_yaml("good", "sleep 3"))
    cp.advance(3)
    bad, good = condition(get_pod(cp, "bad"), "Initialized"), condition(get_pod(cp, "good"), "Initialized")
    assert (bad.status, bad.reason) == ("True", None)
    assert (good.status, good.reason) == ("True", "PodCompleted")


def test_a_failed_init_container_leaves_the_failed_pod_not_initialized() -> None:
    run = _run(["c"], [Proc("i", INIT, "busybox")])
    advance(run, 5.0, plan_of({"i": ContainerRun(1, 2), "c": ContainerRun(10, 0)}))
    assert run.phase == "Failed"
    init = next(c for c in render_status(run, {}, fmt, 5.0)["conditions"] if c["type"] == "Initialized")
    assert (init["status"], init["reason"], init["message"]) == (
        "False", "ContainersNotInitialized", "containers with incomplete status: [i]")


def test_a_sidecar_not_started_yet_is_an_incomplete_init_container() -> None:
    """``isInitContainerInitialized``: a restartable init container counts once ``started``."""
    sidecar = Proc("side", SIDECAR, "busybox")
    run = _run(["c"], [Proc("a", INIT, "busybox"), sidecar])
    table = {"a": ContainerRun(1, 0), "side": ContainerRun(100, 0), "c": ContainerRun(9, 0)}
    advance(run, 0.0, plan_of(table))
    init = next(c for c in render_status(run, {}, fmt, 0.0)["conditions"] if c["type"] == "Initialized")
    assert init["message"] == "containers with incomplete status: [a side]"


def test_a_regular_init_container_is_ready_once_it_exited_zero() -> None:
    run = _run(["c"], [Proc("i", INIT, "busybox")])
    advance(run, 1.0, plan_of({"i": ContainerRun(1, 0), "c": ContainerRun(10, 0)}))
    init = render_status(run, {}, fmt, 1.0)["initContainerStatuses"][0]
    assert init["state"]["terminated"]["exitCode"] == 0
    assert (init["ready"], init["started"]) == (True, False)


# -- what the runtime reports -----------------------------------------------------------------------
def test_equal_runs_in_two_pods_give_equal_container_statuses() -> None:
    """A guard for the memory decision (docs/simulation.md, "The pod status, field by field"): no
    per-pod field (``containerID``) and no spec copy in a container status, so the held pods of one
    template share their statuses (``kbatch/api/model_intern.py``)."""
    first = _run(["c"])
    second = PodRun("default", "q", "uid-2", "Never", 0.0, 0.0, (), [Proc("c", APP, "busybox")])
    for run in (first, second):
        advance(run, 0.0, plan_of({"c": ContainerRun(10, 0)}))
    one, two = (render_status(r, {}, fmt, 0.0)["containerStatuses"] for r in (first, second))
    assert one == two
    assert set(one[0]) == {"name", "state", "ready", "restartCount", "image", "imageID", "started"}


def test_a_container_never_created_ends_as_status_unknown_without_times_or_id() -> None:
    from kbatch.controllers.kubelet.engine import request_deletion

    run = PodRun("default", "p", "u", "Never", 0.0, 100.0, (), [Proc("c", APP, "busybox")])
    request_deletion(run, 5.0)
    advance(run, 5.0, plan_of({"c": ContainerRun(10, 0)}))
    term = render_status(run, {}, fmt, 5.0)["containerStatuses"][0]["state"]["terminated"]
    assert term == {"exitCode": 137, "reason": "ContainerStatusUnknown",
                    "message": "The container could not be located when the pod was terminated"}


# -- readiness gates ----------------------------------------------------------------------------------
def test_ready_waits_for_the_readiness_gates_and_follows_their_condition() -> None:
    """``GeneratePodReadyCondition``: containers ready, gates not all ``True``: ``Ready=False``
    ``ReadinessGatesNotReady``; ``ContainersReady`` is unaffected. A gate's condition written by
    another controller resyncs the pod (``NeedToReconcilePodReadiness``)."""
    cp = sim_cluster(1)
    cp.apply(pod_yaml("p", "sleep 100", extra_spec="\n  readinessGates: [{conditionType: example.com/lb}]"))
    pod = get_pod(cp, "p")
    ready, containers = condition(pod, "Ready"), condition(pod, "ContainersReady")
    assert containers.status == "True"
    assert (ready.status, ready.reason, ready.message) == (
        "False", "ReadinessGatesNotReady",
        'corresponding condition of pod readiness gate "example.com/lb" does not exist.')
    gate = {"type": "example.com/lb", "status": "False", "lastTransitionTime": "2025-01-01T00:00:01Z"}
    cp.client.patch_status(Pod, "p", {"status": {"conditions": [gate]}}, "default", patch_type="strategic")
    cp.advance(1)
    ready = condition(get_pod(cp, "p"), "Ready")
    assert ready.message == 'the status of pod readiness gate "example.com/lb" is not "True", but False'
    gate["status"] = "True"
    cp.client.patch_status(Pod, "p", {"status": {"conditions": [gate]}}, "default", patch_type="strategic")
    cp.advance(1)
    ready = condition(get_pod(cp, "p"), "Ready")
    assert (ready.status, ready.reason, ready.message) == ("True", None, None)
    assert get_pod(cp, "p").status.conditions[0].type == "example.com/lb"
