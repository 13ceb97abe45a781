"""Upstream's ``TestCachePodsReadyForAllAdmittedWorkloads``: when ``blockAdmission`` holds the scheduler.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/cache_test.go``
``TestCachePodsReadyForAllAdmittedWorkloads`` (case names quoted per test) against ``cache.go``
``PodsReadyForAllAdmittedWorkloads`` and ``scheduler.go`` (with ``waitForPodsReady.blockAdmission``,
a head is admitted only while every workload holding quota is PodsReady; otherwise it waits with
QuotaReserved=False ``Waiting``, "waiting for all admitted workloads to be in PodsReady condition").
Upstream asks the cache directly after adding, updating or deleting workloads. Here workloads are
admitted by Kueue in ClusterQueues ``one`` and ``two``, their PodsReady condition is written
through the status subresource (what a job integration writes), and the answer is whether a probe
workload in a third ClusterQueue is admitted. Upstream's "add Workload with PodsReady=..." rows add a
workload that already holds quota and the condition; through the API a workload is admitted first
(not ready) and the condition comes after, which is the same cache state.
"""

from __future__ import annotations

from kbatch.api import edit
from kbatch.controllers.kueue import workloads as W

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "waitForPodsReady": {"blockAdmission": True, "timeout": "1h"}}


def _world() -> World:
    objects = [flavor("default")]
    for name in ("one", "two", "probe"):
        objects += [cluster_queue(name, (["cpu"], [("default", [quota("cpu", "4")])])),
                    local_queue(f"lq-{name}", name)]
    return World(*objects, kueue_config=CONFIG)


def _admit(w: World, name: str, cq: str) -> None:
    w.apply(workload(name, f"lq-{cq}"))
    w.cp.run_until_idle()
    assert w.admitted(name)


def _pods_ready(w: World, name: str, ready: bool) -> None:
    wl = edit(w.wl(name))
    W.set_condition(wl.status, "PodsReady", ready, "Started" if ready else "WaitForStart", "",
                    wl.metadata.generation, w.cp.now())
    w.cp.client.update_status(wl)
    w.cp.run_until_idle()


def _ready_for_all(w: World) -> bool:
    """Whether a new head is admitted now (the probe); a waiting probe is deleted again."""
    w.apply(workload("probe", "lq-probe"))
    w.cp.run_until_idle()
    if w.admitted("probe"):
        return True
    waiting = w.cond("probe", "QuotaReserved")
    assert (waiting.status, waiting.reason, waiting.message) == (
        "False", "Waiting", "waiting for all admitted workloads to be in PodsReady condition")
    return False


def test_empty_cache() -> None:
    assert _ready_for_all(_world())


def test_add_workload_without_pods_ready_condition() -> None:
    w = _world()
    _admit(w, "a", "one")
    assert w.cond("a", "PodsReady") is None
    assert not _ready_for_all(w)


def test_add_workload_with_pods_ready_false() -> None:
    w = _world()
    _admit(w, "a", "one")
    _pods_ready(w, "a", False)
    assert not _ready_for_all(w)


def test_add_workload_with_pods_ready_true() -> None:
    w = _world()
    _admit(w, "a", "one")
    _pods_ready(w, "a", True)
    assert _ready_for_all(w)


def test_update_workload_to_have_pods_ready_true() -> None:
    """... and a head that was waiting is admitted once it is."""
    w = _world()
    _admit(w, "a", "one")
    assert not _ready_for_all(w)
    _pods_ready(w, "a", True)
    assert w.admitted("probe")


def test_update_workload_to_have_pods_ready_false() -> None:
    w = _world()
    _admit(w, "a", "one")
    _pods_ready(w, "a", True)
    _pods_ready(w, "a", False)
    assert not _ready_for_all(w)


def test_update_second_workload_to_have_pods_ready_true() -> None:
    w = _world()
    _admit(w, "a", "one")
    _pods_ready(w, "a", True)
    _admit(w, "b", "two")
    assert not _ready_for_all(w)
    _pods_ready(w, "b", True)
    assert w.admitted("probe")


def test_delete_workload_with_pods_ready_false() -> None:
    w = _world()
    _admit(w, "a", "one")
    _pods_ready(w, "a", False)
    assert not _ready_for_all(w)
    w.cp.client.delete(type(w.wl("a")), "a", "default")
    w.cp.run_until_idle()
    assert w.admitted("probe")
