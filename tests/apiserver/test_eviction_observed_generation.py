"""pods/eviction's DisruptionTarget condition records the pod generation it acted on (KEP-5067 Pod
Generation; upstream ``pkg/registry/core/pod/storage/eviction.go`` ``addConditionAndDeletePod``)."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes, evict_pod
from kbatch.testing import make_pod


def _target(cp: ControlPlane, name: str = "p") -> tuple[Pod, object]:
    pod = cp.client.get(Pod, name, "default")
    return pod, next(c for c in pod.status.conditions if c.type == "DisruptionTarget")


def _running(nodes: int = 1) -> ControlPlane:
    cp = ControlPlane(seed=0)
    create_nodes(cp, nodes, NodeTemplate())
    cp.client.create(make_pod("p").command("sleep 100000").obj())
    cp.advance(5)
    return cp


def test_the_condition_carries_the_generation_before_the_delete_bumps_it() -> None:
    cp = _running()
    evict_pod(cp, "p")
    pod, cond = _target(cp)
    assert (cond.reason, cond.observed_generation) == ("EvictionByEvictionAPI", 1)
    assert pod.metadata.generation == 2  # graceful delete bumps it (deletionTimestamp set)


def test_a_spec_update_moves_the_generation_the_condition_records() -> None:
    cp = _running()
    cp.client.patch(Pod, "p", {"spec": {"activeDeadlineSeconds": 600}}, "default")
    assert cp.client.get(Pod, "p", "default").metadata.generation == 2
    evict_pod(cp, "p")
    _, cond = _target(cp)
    assert cond.observed_generation == 2


def test_a_pending_pod_ignores_budgets_and_still_records_its_generation() -> None:
    cp = ControlPlane(seed=0)  # no nodes: the pod stays Pending
    cp.client.create(make_pod("p").command("sleep 1").obj())
    cp.run_until_idle()
    watch = cp.client.watch(Pod, "default")
    evict_pod(cp, "p")
    modified = [e.object for e in watch.poll() if e.type == "MODIFIED"]
    cond = next(c for c in modified[0].status.conditions if c.type == "DisruptionTarget")
    assert cond.observed_generation == 1


def test_evicting_a_terminating_pod_again_refreshes_only_the_generation() -> None:
    cp = _running()
    evict_pod(cp, "p")
    _, first = _target(cp)
    cp.advance(1)
    evict_pod(cp, "p")  # terminating: PDBs ignored, the condition is written again
    pod, again = _target(cp)
    assert pod.metadata.deletion_timestamp is not None
    assert (again.observed_generation, again.last_transition_time) == (2, first.last_transition_time)
