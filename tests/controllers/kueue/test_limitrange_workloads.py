"""LimitRanges and pending Workloads through the running manager (kueue v0.19.2:
``AdjustResources`` before ``NewInfo`` in ``pkg/cache/queue/manager.go``; ``ValidateLimitRange`` in
``ValidateAdmissibility``, ``pkg/workload/resources.go``; ``resourceUpdatesHandler`` in
``pkg/controller/core/workload_controller.go``)."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import LimitRange

from .helpers import World, cluster_queue, cpu_world, flavor, local_queue, quota, workload


def _limits(**item: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
            "spec": {"limits": [{"type": "Container", **item}]}}


def _no_cpu(name: str, count: int = 2) -> dict[str, Any]:
    wl = workload(name, "lq", count=count)
    del wl["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]
    return wl


def test_a_container_default_request_counts_against_quota() -> None:
    w = cpu_world(_limits(defaultRequest={"cpu": "3"}, default={"cpu": "3"}))
    w.apply(_no_cpu("a"))
    cond = w.settled("a")
    assert cond.status == "False"
    assert cond.message.endswith("current podset request (6) > maximum capacity (4)")
    assert [r.to_dict() for r in w.wl("a").status.resource_requests] == [
        {"name": "main", "resources": {"cpu": "6"}}]


def test_a_limit_range_update_requeues_the_namespaces_pending_workloads() -> None:
    """``resourceUpdatesHandler``: the inadmissible Workload is re-added with the new default."""
    w = cpu_world(_limits(defaultRequest={"cpu": "3"}, default={"cpu": "3"}))
    w.apply(_no_cpu("a"))
    assert w.settled("a").status == "False"
    w.cp.client.patch(LimitRange, "limits", {"spec": {"limits": [
        {"type": "Container", "defaultRequest": {"cpu": "1"}, "default": {"cpu": "1"}}]}}, "default")
    assert w.settled("a").status == "True"
    assert w.admitted("a")


def test_a_deleted_limit_range_requeues_too() -> None:
    w = cpu_world(_limits(defaultRequest={"cpu": "3"}, default={"cpu": "3"}))
    w.apply(_no_cpu("a"))
    assert w.settled("a").status == "False"
    w.cp.client.delete(LimitRange, "limits", "default")
    assert w.admitted("a") or w.settled("a").status == "True"


def test_a_workload_outside_the_limit_range_is_misconfigured() -> None:
    """``ValidateLimitRange``: the container's request below the ``Container`` min. (A request above
    the max fails ``ValidateResources`` first: the LimitRange's own defaulting made the max the
    default limit, which ``AdjustResources`` gives the container.)"""
    w = cpu_world(_limits(min={"cpu": "2"}))
    w.apply(workload("a", "lq", cpu="1"))
    cond = w.settled("a")
    assert cond.status == "False"
    assert cond.message == (
        "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: "
        'Invalid value: ["cpu"]: requests must not be below the limitRange min')


def test_a_request_above_the_max_exceeds_the_defaulted_limit() -> None:
    w = cpu_world(_limits(max={"cpu": "1"}))
    w.apply(workload("a", "lq", cpu="2"))
    assert w.settled("a").message == (
        "resources validation failed: spec.podSets[0].template.spec.containers[0]: "
        'Invalid value: ["cpu"]: requests must not exceed its limits')


def test_a_limit_range_elsewhere_changes_nothing() -> None:
    other = _limits(defaultRequest={"cpu": "3"})
    other["metadata"]["namespace"] = "other"
    w = World({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    w.apply(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
            local_queue("lq", "cq"), other)
    w.apply(_no_cpu("a"))
    assert w.settled("a").status == "True"
