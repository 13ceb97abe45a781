"""Node heartbeats through Leases (KEP-589) and the node lifecycle controller's grace period."""

from __future__ import annotations

import pytest
from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE, Lease
from kbatch.api.core_v1 import Node
from kbatch.api.errors import Invalid
from kbatch.controllers.nodelifecycle import UNREACHABLE
from kbatch.controllers.nodelifecycle.health import observe, unknown_conditions
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import mark_node_not_ready, start_kubelet, stop_kubelet

ALL = "scheduler,kubelet,node-lifecycle,taint-eviction-controller"


def ready(cp: ControlPlane, node: str = "node-0") -> tuple[str, str | None, str | None]:
    cond = next(c for c in cp.client.get(Node, node).status.conditions if c.type == "Ready")
    return cond.status, cond.reason, cond.message


def taints(cp: ControlPlane, node: str = "node-0") -> list[tuple[str, str]]:
    return [(t.key, t.effect) for t in cp.client.get(Node, node).spec.taints or ()]


def test_kubelet_keeps_one_lease_per_node_renewed_every_ten_seconds() -> None:
    cp = sim_cluster(2)
    lease = cp.client.get(Lease, "node-0", NODE_LEASE_NAMESPACE)
    assert lease.spec.holder_identity == "node-0" and lease.spec.lease_duration_seconds == 40
    assert lease.metadata.owner_references[0].kind == "Node"
    assert lease.spec.renew_time == cp.now()
    cp.advance(25)
    lease = cp.client.get(Lease, "node-1", NODE_LEASE_NAMESPACE)
    assert lease.spec.renew_time == cp.clock.to_datetime(20.0)


def test_heartbeats_are_housekeeping_and_do_not_keep_the_cluster_busy() -> None:
    cp = sim_cluster(3, controllers=ALL)
    assert len(cp.timers) > 0 and not cp.timers.has_pending_work()


def test_a_silent_node_goes_unknown_after_the_grace_period_and_its_pods_are_evicted() -> None:
    cp = sim_cluster(2, controllers=ALL)
    cp.apply(pod_yaml("p", "sleep 100000").replace("spec:\n", "spec:\n  nodeName: node-0\n"))
    cp.advance(5)
    stop_kubelet(cp, "node-0")  # last renewal at 0
    cp.advance(44.5)  # 49.5: within node-monitor-grace-period (50 s)
    assert ready(cp) == ("True", "KubeletReady", "kubelet is posting ready status")
    cp.advance(1)
    assert ready(cp) == ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
    assert ready(cp, "node-1")[0] == "True"
    assert taints(cp) == [(UNREACHABLE, "NoSchedule"), (UNREACHABLE, "NoExecute")]
    added = next(t.time_added for t in cp.client.get(Node, "node-0").spec.taints if t.effect == "NoExecute")
    assert added == cp.clock.to_datetime(50.0)
    cp.advance(299)  # the default 300 s unreachable toleration has not run out
    pod = get_pod(cp, "p")
    assert pod.metadata.deletion_timestamp is None and pod.status.phase == "Running"
    cp.advance(1)
    pod = get_pod(cp, "p")
    assert pod.metadata.deletion_timestamp is not None
    assert condition(pod, "DisruptionTarget").reason == "DeletionByTaintManager"
    assert pod.status.phase == "Running"  # its kubelet is down: nobody finishes it


def test_a_restarted_kubelet_makes_the_node_ready_again_and_the_taints_go() -> None:
    cp = sim_cluster(1, controllers=ALL)
    cp.apply(pod_yaml("p", "sleep 200"))
    stop_kubelet(cp, "node-0")
    cp.advance(120)
    assert ready(cp)[0] == "Unknown" and taints(cp)
    assert get_pod(cp, "p").status.phase == "Running"  # frozen while the kubelet is down
    start_kubelet(cp, "node-0")
    assert ready(cp) == ("True", "KubeletReady", "kubelet is posting ready status")
    assert taints(cp) == []
    lease = cp.client.get(Lease, "node-0", NODE_LEASE_NAMESPACE)
    assert lease.spec.renew_time == cp.now()
    cp.advance(80)  # the container kept running in the runtime: it ends at 200
    assert get_pod(cp, "p").status.phase == "Succeeded"
    cp.advance(100)
    assert ready(cp)[0] == "True"  # renewing again: never times out


def test_a_fault_set_condition_is_not_overwritten_by_a_running_kubelet() -> None:
    cp = sim_cluster(1, controllers=ALL)
    mark_node_not_ready(cp, "node-0")
    cp.advance(100)
    assert ready(cp)[0] == "False"


def test_nodes_without_a_lease_are_not_timed_out() -> None:
    cp = sim_cluster(1, controllers="scheduler,node-lifecycle")  # no simulated kubelet
    cp.advance(500)
    assert ready(cp)[0] == "True" and not cp.timers.has_pending_work()


def test_silent_node_trace_is_deterministic() -> None:
    def run() -> str:
        cp = sim_cluster(3, controllers=ALL, seed=7)
        for i in range(4):
            cp.apply(pod_yaml(f"p{i}", "sleep 400"))
        stop_kubelet(cp, "node-1")
        cp.advance(400)
        start_kubelet(cp, "node-1")
        cp.advance(60)
        return cp.trace.digest()
    assert run() == run()


def test_health_observe_moves_the_probe_time_only_on_a_new_heartbeat() -> None:
    seen = observe(None, ("a", "r1"), 5.0)
    assert observe(seen, ("a", "r1"), 30.0) == (("a", "r1"), 5.0)
    assert observe(seen, ("a", "r2"), 30.0) == (("a", "r2"), 30.0)
    items = unknown_conditions([("Ready", "True"), ("MemoryPressure", "Unknown")], "T")
    assert [(i["type"], i["reason"]) for i in items] == [
        ("Ready", "NodeStatusUnknown"), ("DiskPressure", "NodeStatusNeverUpdated"),
        ("PIDPressure", "NodeStatusNeverUpdated")]


@pytest.mark.parametrize(("spec", "path"), [({"leaseDurationSeconds": 0}, "spec.leaseDurationSeconds"),
                                            ({"leaseTransitions": -1}, "spec.leaseTransitions")])
def test_lease_validation(spec: dict[str, int], path: str) -> None:
    cp = ControlPlane(seed=0, controllers="")
    lease = Lease.model_validate({"metadata": {"name": "x", "namespace": "default"}, "spec": spec})
    with pytest.raises(Invalid) as err:
        cp.client.create(lease)
    assert path in str(err.value)
    assert cp.client.list(Lease, "default").items == []
