"""Upstream's fair-sharing scheduling-cycle table, case by case.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_fs_test.go``,
``TestScheduleForFairSharing`` (the same fixtures as ``TestSchedule``, fair sharing on, one cycle).
Case ids are upstream's; names with underscores are hyphenated (object names).
"""

from __future__ import annotations

from .upstream_schedule import CPU, W, one_cycle
from .upstream_tables import cq, r

FAIR = {
    "kueue_config": {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
    }
}


def test_with_fair_sharing_schedule_workload_with_lowest_share_first() -> None:
    out = one_cycle(
        [
            W(
                "all-nominal",
                "eng-alpha",
                "main",
                pod_sets=[("one", 50, {CPU: "1"})],
                admitted_to="eng-alpha",
                assignment=[{CPU: ("on-demand", "50")}],
            ),
            W(
                "borrowing",
                "eng-beta",
                "main",
                pod_sets=[("one", 55, {CPU: "1"})],
                admitted_to="eng-beta",
                assignment=[{CPU: ("on-demand", "55")}],
            ),
            W("older-new", "eng-beta", "main", pod_sets=[("one", 1, {CPU: "1"})]),
            W("new", "eng-alpha", "main", pod_sets=[("one", 5, {CPU: "1"})], later=60),
        ],
        cluster_queues=[cq("eng-shared", [("on-demand", [r(CPU, "10", "0")])], cohort="eng")],
        **FAIR,
    )
    assert out.reserved["eng-alpha/new"] == ("eng-alpha", {"one": {CPU: "on-demand"}})
    assert out.pending == {
        "eng-beta/older-new": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"eng-beta": ["eng-beta/older-new"]}


def test_with_fair_sharing_nominal_first_ordering_admits_workload_fitting_within_nominal() -> None:
    """Upstream: "... admits workload fitting within nominal despite higher CQ DRS"."""
    out = one_cycle(
        [
            W(
                "spot-heavy",
                "eng-alpha",
                "fs-nom",
                pod_sets=[("one", 80, {CPU: "1"})],
                admitted_to="fs-nom-a",
                assignment=[{CPU: ("spot", "80")}],
            ),
            W(
                "light-usage",
                "eng-beta",
                "fs-nom",
                pod_sets=[("one", 5, {CPU: "1"})],
                admitted_to="fs-nom-b",
                assignment=[{CPU: ("on-demand", "5")}],
            ),
            W("borrow-wl", "eng-beta", "fs-nom", pod_sets=[("one", 15, {CPU: "1"})]),
            W("nom-wl", "eng-alpha", "fs-nom", pod_sets=[("one", 45, {CPU: "1"})], later=60),
        ],
        cluster_queues=[
            cq(
                "fs-nom-a",
                [("on-demand", [r(CPU, "50", "0")]), ("spot", [r(CPU, "50", "50")])],
                cohort="fs-nom",
            ),
            cq(
                "fs-nom-b",
                [("on-demand", [r(CPU, "10", "50")]), ("spot", [r(CPU, "50", "0")])],
                cohort="fs-nom",
            ),
        ],
        local_queues=[("fs-nom", "eng-alpha", "fs-nom-a"), ("fs-nom", "eng-beta", "fs-nom-b")],
        **FAIR,
    )
    assert out.reserved["eng-alpha/nom-wl"] == ("fs-nom-a", {"one": {CPU: "on-demand"}})
    assert out.pending == {
        "eng-beta/borrow-wl": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"fs-nom-b": ["eng-beta/borrow-wl"]}
