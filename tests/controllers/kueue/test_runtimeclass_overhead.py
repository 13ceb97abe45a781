"""RuntimeClass overhead in Kueue's quota (kueue v0.19.2 ``pkg/workload/resources.go``
``handlePodOverhead``, the first step of ``AdjustResources``; ``resourceUpdatesHandler`` for
RuntimeClasses in ``pkg/controller/core/workload_controller.go``; upstream's
``TestAdjustResources`` "Handle Pod Overhead" and the scheduler's ``PodOverhead`` cases)."""

from __future__ import annotations

from typing import Any

from kbatch.api.node_v1 import RuntimeClass

from .helpers import World, cpu_world, workload


def _class(cpu: str) -> dict[str, Any]:
    return {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
            "handler": "kata", "overhead": {"podFixed": {"cpu": cpu}}}


def _sandboxed(name: str, cpu: str, count: int = 2, overhead: dict[str, str] | None = None) -> dict[str, Any]:
    wl = workload(name, "lq", cpu=cpu, count=count)
    wl["spec"]["podSets"][0]["template"]["spec"]["runtimeClassName"] = "kata"
    if overhead is not None:
        wl["spec"]["podSets"][0]["template"]["spec"]["overhead"] = overhead
    return wl


def _usage(w: World, name: str) -> dict[str, str]:
    """The first pod set's ``resourceUsage`` in the Workload's admission."""
    admission = w.wl(name).status.admission
    assert admission is not None
    return {k: str(v) for k, v in (admission.pod_set_assignments[0].resource_usage or {}).items()}


def test_the_class_overhead_counts_against_quota() -> None:
    w = cpu_world(_class("1"))
    w.apply(_sandboxed("a", "1500m"))  # 2 x (1.5 + 1) = 5 > 4; without overhead 3 would fit
    cond = w.settled("a")
    assert cond.status == "False"
    assert cond.message.endswith("current podset request (5) > maximum capacity (4)")
    assert [r.to_dict() for r in w.wl("a").status.resource_requests] == [
        {"name": "main", "resources": {"cpu": "5"}}]


def test_admitted_with_the_overhead_in_its_requests() -> None:
    w = cpu_world(_class("500m"))
    w.apply(_sandboxed("a", "1500m"))  # 2 x 2 = 4
    assert w.settled("a").status == "True"
    assert _usage(w, "a") == {"cpu": "4"}


def test_a_template_overhead_is_kept_and_a_missing_class_counts_none() -> None:
    """``handlePodOverhead`` fills only an empty overhead; a class it cannot get is skipped."""
    w = cpu_world(_class("1"))
    w.apply(_sandboxed("a", "1", overhead={"cpu": "100m"}))  # 2 x 1.1, not 2 x 2
    assert w.settled("a").status == "True"
    assert _usage(w, "a") == {"cpu": "2200m"}
    orphan = _sandboxed("b", "500m", count=1)
    orphan["spec"]["podSets"][0]["template"]["spec"]["runtimeClassName"] = "absent"
    w.apply(orphan)
    assert w.settled("b").status == "True"
    assert _usage(w, "b") == {"cpu": "500m"}


def test_a_runtime_class_update_requeues_the_pending_workloads_that_name_it() -> None:
    w = cpu_world(_class("1"))
    w.apply(_sandboxed("a", "1500m"))
    assert w.settled("a").status == "False"
    w.cp.client.patch(RuntimeClass, "kata", {"overhead": {"podFixed": {"cpu": "500m"}}})
    assert w.settled("a").status == "True"
    assert w.admitted("a")
