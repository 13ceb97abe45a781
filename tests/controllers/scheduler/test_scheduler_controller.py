"""The scheduler controller on a ControlPlane: binding, failure status, retries, gates, preemption."""

from __future__ import annotations

from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Pod
from kbatch.sim import NodeTemplate, create_nodes


def test_unschedulable_pod_gets_the_upstream_message_and_is_retried_when_a_node_appears() -> None:
    cp = sim_cluster(4, NodeTemplate(gpus=8))
    cp.apply(pod_yaml("big", "sleep 5", gpu=9))
    cond = condition(get_pod(cp, "big"), "PodScheduled")
    assert (cond.status, cond.reason) == ("False", "Unschedulable")
    assert cond.message.startswith("0/4 nodes are available: 4 Insufficient nvidia.com/gpu.")
    assert cond.observed_generation == 1  # the pod's generation (KEP-5067, schedule_one.go)
    reconciles = cp.manager.get("scheduler").reconciles
    cp.advance(60)
    assert cp.manager.get("scheduler").reconciles - reconciles <= 2  # no busy loop
    create_nodes(cp, 1, NodeTemplate(gpus=16), prefix="big-")
    cp.advance(10)  # back-off after the failed attempt, then the node event retries it
    pod = get_pod(cp, "big")
    assert pod.spec.node_name == "big-0" and condition(pod, "PodScheduled").status == "True"


def test_pod_waits_until_resources_are_freed() -> None:
    cp = sim_cluster(1, NodeTemplate(cpu="1"))
    cp.apply(pod_yaml("first", "sleep 30", cpu="1"))
    cp.apply(pod_yaml("second", "sleep 30", cpu="1"))
    assert not get_pod(cp, "second").spec.node_name
    cp.advance(31)
    assert get_pod(cp, "second").spec.node_name == "node-0"


def test_scheduling_gates_hold_a_pod_back() -> None:
    cp = sim_cluster(1)
    cp.apply(pod_yaml("g", "sleep 1", extra_spec="\n  schedulingGates: [{name: example.com/wait}]"))
    cond = condition(get_pod(cp, "g"), "PodScheduled")
    assert (cond.status, cond.reason) == ("False", "SchedulingGated")
    cp.client.patch(Pod, "g", {"spec": {"schedulingGates": None}}, "default")
    cp.advance(1)
    assert get_pod(cp, "g").spec.node_name == "node-0"


def test_priority_preemption_evicts_a_lower_priority_pod() -> None:
    cp = sim_cluster(1, NodeTemplate(cpu="1"))
    # The Priority admission plugin resolves spec.priority from the class (a bare priority: 100 is
    # forbidden upstream), so the higher-priority pod names a PriorityClass.
    cp.apply("{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 100}")
    cp.apply(pod_yaml("low", "sleep 1000", cpu="1", priority=0, grace=5))
    cp.apply(pod_yaml("high", "sleep 10", cpu="1", extra_spec="\n  priorityClassName: high"))
    assert get_pod(cp, "high").spec.priority == 100
    high, low = get_pod(cp, "high"), get_pod(cp, "low")
    assert high.status.nominated_node_name == "node-0"
    cond = condition(low, "DisruptionTarget")
    assert cond.reason == "PreemptionByScheduler"
    assert cond.message == "default/high: preempting to accommodate a higher priority pod"
    assert cond.observed_generation == 1  # written before the delete bumps the generation (KEP-5067)
    cp.advance(20)
    assert get_pod(cp, "high").spec.node_name == "node-0"
    assert [p.metadata.name for p in cp.client.list(Pod, "default").items] == ["high"]


def test_taints_and_node_selector_are_honoured() -> None:
    cp = sim_cluster(0)
    create_nodes(cp, 1, NodeTemplate(taints=({"key": "gpu", "value": "yes", "effect": "NoSchedule"},)),
                 prefix="tainted-")
    create_nodes(cp, 1, NodeTemplate(labels={"zone": "a"}), prefix="plain-")
    cp.apply(pod_yaml("p", "sleep 1", extra_spec="\n  nodeSelector: {zone: a}"))
    assert get_pod(cp, "p").spec.node_name == "plain-0"
    cp.apply(pod_yaml("q", "sleep 1", extra_spec="\n  nodeSelector: {zone: b}"))
    assert condition(get_pod(cp, "q"), "PodScheduled").message.startswith(
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "1 node(s) had untolerated taint(s).")


class HoldAtPermit:
    """A Permit plugin that holds every pod until allowed (the seam coscheduling will use)."""

    name = "HoldAtPermit"

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout

    def permit(self, state, pod, node_name):
        from kbatch.controllers.scheduler import Code, Status

        return Status(Code.WAIT, plugin=self.name, timeout=self.timeout)


def _cluster_with_permit(timeout: float):
    from kbatch.controllers.scheduler import default_profile, setup

    profile = default_profile()
    profile.permit.append(HoldAtPermit(timeout))
    cp = sim_cluster(1, NodeTemplate(cpu="1"), controllers="kubelet")

    def scheduler(ctx):
        return setup(ctx, profile)

    sched = cp.add_controller(scheduler)
    cp.cache.start()
    return cp, sched


def test_permit_wait_holds_the_pod_until_allowed() -> None:
    cp, sched = _cluster_with_permit(timeout=30)
    cp.apply(pod_yaml("p", "sleep 1", cpu="1"))
    assert not get_pod(cp, "p").spec.node_name and "default/p" in sched.waiting
    cp.apply(pod_yaml("q", "sleep 1", cpu="1"))  # the waiting pod's resources are reserved
    assert "default/q" not in sched.waiting
    sched.allow("default/p", "HoldAtPermit")
    cp.run_until_idle()
    assert get_pod(cp, "p").spec.node_name == "node-0"


def test_permit_timeout_rejects_and_requeues() -> None:
    cp, sched = _cluster_with_permit(timeout=10)
    cp.apply(pod_yaml("p", "sleep 1", cpu="1"))
    cp.advance(10)
    cond = condition(get_pod(cp, "p"), "PodScheduled")
    assert cond.reason == "Unschedulable"
    # upstream waiting_pods_map.go's message
    assert cond.message == "rejected due to timeout after waiting 10s at plugin HoldAtPermit"
    # requeued: HoldAtPermit registers no events, so any event seen while the pod waited sends it to
    # back-off, which the idle scheduler pops at once (SchedulerPopFromBackoffQ): it waits again
    assert sched.waiting["default/p"].deadline == 20
