"""The MultiKueue AdmissionCheck's Active condition: upstream's table, then through the controller.

Translates kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/admissioncheck_test.go``
(``TestReconcile``): each row is (check, config, clusters) → the check's Active condition.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import AdmissionCheck, MultiKueueConfig
from kbatch.api.meta import Condition
from kbatch.controllers.kueue.multikueue.admissioncheck import active_state
from kbatch.controllers.kueue.multikueue.configs import BadConfig
from kbatch.controllers.kueue.multikueue.context import AC_CONTROLLER

from .world import KUEUE, MKWorld, mk_check, mk_config

CASES: list[tuple[str, list[str] | None, dict[str, bool], tuple[str, str, str] | None]] = [
    # (case, config clusters (None: no config), cluster name -> Active, want (status, reason, message))
    (
        "missing config",
        None,
        {},
        (
            "False",
            "BadConfig",
            "Cannot load the AdmissionChecks parameters: "
            'multikueueconfigs.kueue.x-k8s.io "config1" not found',
        ),
    ),
    ("missing cluster", ["worker1"], {}, ("False", "NoUsableClusters", "Missing clusters: [worker1]")),
    (
        "inactive cluster",
        ["worker1"],
        {"worker1": False},
        ("False", "NoUsableClusters", "Inactive clusters: [worker1]"),
    ),
    (
        "all clusters missing or inactive",
        ["worker1", "worker2", "worker3"],
        {"worker1": False, "worker2": False},
        ("False", "NoUsableClusters", "Missing clusters: [worker3], Inactive clusters: [worker1 worker2]"),
    ),
    (
        "partially active",
        ["worker1", "worker2", "worker3"],
        {"worker1": False, "worker2": True},
        ("True", "SomeActiveClusters", "Missing clusters: [worker3], Inactive clusters: [worker1]"),
    ),
    ("active", ["worker1"], {"worker1": True}, ("True", "Active", "The admission check is active")),
]


def _active(cp: ControlPlane, name: str = "ac1") -> tuple[str, str, str] | None:
    ac = cp.client.get(AdmissionCheck, name)
    for c in (ac.status.conditions if ac.status else None) or ():
        if c.type == "Active":
            return (c.status, c.reason or "", c.message or "")
    return None


@pytest.mark.parametrize(("case", "clusters", "active", "want"), CASES, ids=[c[0] for c in CASES])
def test_reconcile(case: str, clusters: list[str] | None, active: dict[str, bool], want: Any) -> None:
    """The decision, row by row (``active_state``)."""
    config: MultiKueueConfig | BadConfig
    if clusters is None:
        config = BadConfig('multikueueconfigs.kueue.x-k8s.io "config1" not found')
    else:
        config = MultiKueueConfig.from_dict(mk_config("config1", clusters))
    state = active_state(config, {n: active.get(n) for n in clusters or ()})
    assert (state.status, state.reason, state.message) == want


@pytest.mark.parametrize(
    ("attached", "want"),
    [
        ((), ("False", "NoUsableClusters", "Inactive clusters: [w1 w2]")),
        (("w1",), ("True", "SomeActiveClusters", "Inactive clusters: [w2]")),
        (("w1", "w2"), ("True", "Active", "The admission check is active")),
    ],
)
def test_through_the_controllers(attached: tuple[str, ...], want: Any) -> None:
    """Clusters that cannot connect are inactive; attached in-process workers make them active."""
    world = MKWorld({"w1": "4", "w2": "4"}, connect=False)
    for name in ("w1", "w2"):
        if name not in attached:
            world.cut(name)
        world.connect(name)
    world.manager.run_until_idle()
    assert _active(world.manager, "mk") == want


def test_missing_config_and_cluster_through_the_controller() -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply(mk_check("ac1", "config1"))
    cp.run_until_idle()
    assert _active(cp) == CASES[0][3]
    cp.apply(mk_config("config1", ["worker1"]))
    cp.run_until_idle()
    assert _active(cp) == ("False", "NoUsableClusters", "Missing clusters: [worker1]")


def test_unmanaged_check_is_left_alone() -> None:
    cp = ControlPlane(controllers="kueue")
    cp.apply(
        {
            "apiVersion": KUEUE,
            "kind": "AdmissionCheck",
            "metadata": {"name": "ac1"},
            "spec": {"controllerName": "other-controller"},
        }
    )
    cp.run_until_idle()
    assert _active(cp) is None


def test_bad_parameters_reference() -> None:
    cp = ControlPlane(controllers="kueue")
    check = mk_check("ac1", "config1")
    check["spec"]["parameters"]["apiGroup"] = "example.com"
    cp.apply(check)
    cp.run_until_idle()
    assert _active(cp) == (
        "False",
        "BadConfig",
        "Cannot load the AdmissionChecks parameters: wrong group "
        '"example.com", expecting "kueue.x-k8s.io": bad parameters reference',
    )


def test_a_worker_coming_back_reactivates_the_check() -> None:
    """A cluster's Active change requeues the checks of the configs naming it (``mkClusterHandler``);
    the reconnect follows the back-off (5 s after the first failure)."""
    world = MKWorld({"w1": "4"}, connect=False)
    world.cut("w1")
    world.connect("w1")
    world.manager.run_until_idle()
    assert _active(world.manager, "mk")[1] == "NoUsableClusters"
    world.cut("w1", reachable=True)
    world.manager.advance(5)
    assert _active(world.manager, "mk") == ("True", "Active", "The admission check is active")


def _check_reconciles(world: MKWorld) -> int:
    return world.manager.manager.get(AC_CONTROLLER).reconciles


@pytest.mark.parametrize("change", ["label", "status"])
def test_cluster_update_keeping_active_requeues_no_check(change: str) -> None:
    """``mkClusterHandler.Update`` queues the checks only when the cluster's ``Active`` condition changes
    its status, reason or message (``cmpConditionState``): a label or another status condition does not."""
    world = MKWorld({"w1": "4"})
    assert _active(world.manager, "mk") == ("True", "Active", "The admission check is active")
    before = _check_reconciles(world)
    cluster = edit(world.cluster("w1"))
    if change == "label":
        cluster.metadata.labels = {"team": "a"}
        world.manager.client.update(cluster)
    else:
        cluster.status.conditions.append(
            Condition(type="Other", status="True", reason="R", message="m",
                      last_transition_time=cluster.status.conditions[0].last_transition_time)
        )
        world.manager.client.update_status(cluster)
    world.manager.run_until_idle()
    assert _check_reconciles(world) == before


def test_cluster_losing_active_requeues_its_checks() -> None:
    """The other side: an ``Active`` change queues the checks of the configs naming the cluster."""
    world = MKWorld({"w1": "4"})
    before = _check_reconciles(world)
    cluster = edit(world.cluster("w1"))
    (active,) = [c for c in cluster.status.conditions if c.type == "Active"]
    active.message = "changed by the test"
    world.manager.client.update_status(cluster)
    world.manager.run_until_idle()
    assert _check_reconciles(world) > before


def test_config_update_keeping_its_clusters_requeues_no_check() -> None:
    """``mkConfigHandler.Update`` queues the checks naming the config only when ``spec.clusters``
    changes (``equality.Semantic.DeepEqual``): a label does not; a new cluster list does."""
    world = MKWorld({"w1": "4"})
    before = _check_reconciles(world)
    config = edit(world.manager.client.get(MultiKueueConfig, "mkconf"))
    config.metadata.labels = {"team": "a"}
    world.manager.client.update(config)
    world.manager.run_until_idle()
    assert _check_reconciles(world) == before
    config = edit(world.manager.client.get(MultiKueueConfig, "mkconf"))
    config.spec.clusters = ["w1", "w2"]
    world.manager.client.update(config)
    world.manager.run_until_idle()
    assert _check_reconciles(world) > before
    assert _active(world.manager, "mk") == ("True", "SomeActiveClusters", "Missing clusters: [w2]")
