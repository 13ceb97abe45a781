"""Scheduler preemption prefers victims whose eviction violates no PodDisruptionBudget (upstream
DefaultPreemption: selectVictimsOnNode reprieves violating pods first; pickOneNodeForPreemption
picks the node with the fewest violations)."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.policy_v1 import PodDisruptionBudget
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.testing import make_pod


def _pod(name: str, node: str, app: str, priority_class: str) -> Pod:
    pod = make_pod(name).label("app", app).command("sleep 100000").requests(cpu="1").node_selector(
        **{"kubernetes.io/hostname": node}).obj()
    pod.spec.priority_class_name = priority_class
    return pod


def test_preemption_spares_the_node_whose_pods_a_budget_protects() -> None:
    cp = ControlPlane(seed=0)
    for name, value in (("low", 1), ("high", 1000)):
        cp.client.create(PriorityClass.model_validate({"metadata": {"name": name}, "value": value}))
    create_nodes(cp, 2, NodeTemplate(cpu="1"), prefix="n-")
    cp.client.create(_pod("guarded", "n-0", "guarded", "low"))
    cp.client.create(_pod("free", "n-1", "free", "low"))
    cp.advance(5)
    cp.client.create(PodDisruptionBudget.model_validate({
        "metadata": {"name": "guard", "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}}))
    cp.run_until_idle()
    big = make_pod("big").command("sleep 100000").requests(cpu="1").obj()
    big.spec.priority_class_name = "high"
    cp.client.create(big)
    cp.advance(60)
    assert cp.client.get(Pod, "big", "default").spec.node_name == "n-1"
    names = {p.metadata.name for p in cp.client.list(Pod, "default").items}
    assert "guarded" in names and "free" not in names


def test_pdb_violating_counts_budgets_in_importance_order() -> None:
    from kbatch.controllers.scheduler.budgets import budget_selectors
    from kbatch.controllers.scheduler.plugins.default_preemption import pdb_violating
    from kbatch.controllers.scheduler.types import PodInfo

    pdb = PodDisruptionBudget.model_validate({
        "metadata": {"name": "b", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "a"}}},
        "status": {"disruptionsAllowed": 1, "disruptedPods": {"gone": "2025-01-01T00:00:00Z"}}})
    pods = [PodInfo("default", n, labels={"app": "a"}) for n in ("x", "gone", "y", "z")]
    other = PodInfo("default", "w", labels={"app": "b"})
    violating, fine = pdb_violating([*pods, other], budget_selectors([pdb]))
    assert [p.name for p in violating] == ["y", "z"]
    assert [p.name for p in fine] == ["x", "gone", "w"]
    empty = PodDisruptionBudget.model_validate({**pdb.to_dict(), "spec": {"selector": {}}})
    # preemption: an empty selector matches nothing
    assert pdb_violating(pods, budget_selectors([empty]))[0] == []
