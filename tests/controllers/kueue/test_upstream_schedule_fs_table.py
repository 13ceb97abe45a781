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


def _bc(weight: str | None, quota: str) -> dict:
    """Cohort "A" (here ``co-a``: object names are lowercase) providing ``quota`` cpu to queues b, c."""
    from .upstream_tables import cohort

    pre = {"reclaimWithinCohort": "Any"} if weight is not None else None
    return {
        "cohorts": [cohort("co-a", None, [("on-demand", [r(CPU, quota)])])],
        "cluster_queues": [
            cq(n, [("on-demand", [r(CPU, "0")])], cohort="co-a", preemption=pre, fair_weight=weight)
            for n in ("b", "c")
        ],
        "local_queues": [("lq-b", "eng-alpha", "b"), ("lq-c", "eng-alpha", "c")],
    }


def test_fair_sharing_schedule_workload_with_lowest_drf_after_admission() -> None:
    out = one_cycle(
        [
            W(
                "b0",
                "eng-alpha",
                "lq-b",
                pod_sets=[("one", 1, {CPU: "10"})],
                admitted_to="b",
                assignment=[{CPU: ("on-demand", "10")}],
            ),
            W("b1", "eng-alpha", "lq-b", pod_sets=[("one", 1, {CPU: "50"})]),
            W("c1", "eng-alpha", "lq-c", pod_sets=[("one", 1, {CPU: "75"})]),
        ],
        **_bc(None, "100"),
        **FAIR,
    )
    assert out.reserved["eng-alpha/b1"] == ("b", {"one": {CPU: "on-demand"}})
    assert out.pending == {
        "eng-alpha/c1": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"c": ["eng-alpha/c1"]}


def test_fair_sharing_two_queues_with_weight_0_or_high_weight_schedule_workload_which_borrows_less() -> None:
    for weight in ("0", "123456789"):
        out = one_cycle(
            [
                W(
                    "b0",
                    "eng-alpha",
                    "lq-b",
                    pod_sets=[("one", 1, {CPU: "4"})],
                    admitted_to="b",
                    assignment=[{CPU: ("on-demand", "4")}],
                ),
                W("b1", "eng-alpha", "lq-b", pod_sets=[("one", 1, {CPU: "4"})], priority=9001),
                W("c1", "eng-alpha", "lq-c", pod_sets=[("one", 1, {CPU: "4"})], priority=0),
            ],
            **_bc(weight, "8"),
            **FAIR,
        )
        assert out.reserved["eng-alpha/c1"] == ("c", {"one": {CPU: "on-demand"}}), weight
        assert out.pending == {
            "eng-alpha/b1": ("Pending", "Workload no longer fits after processing another workload")
        }, weight
        assert out.left == {"b": ["eng-alpha/b1"]}, weight


def test_fair_sharing_schedule_singleton_cqs_and_cq_without_cohort() -> None:
    from .upstream_tables import cohort

    out = one_cycle(
        [W(f"{n}1", "eng-alpha", f"lq-{n}", pod_sets=[("one", 1, {CPU: "10"})]) for n in "abc"],
        cohorts=[cohort("co-a", None, [("on-demand", [r(CPU, "10")])]), cohort("co-b")],
        cluster_queues=[
            cq("a", [("on-demand", [r(CPU, "0")])], cohort="co-a"),
            cq("b", [("on-demand", [r(CPU, "10")])], cohort="co-b"),
            cq("c", [("on-demand", [r(CPU, "10")])]),
        ],
        local_queues=[(f"lq-{n}", "eng-alpha", n) for n in "abc"],
        **FAIR,
    )
    assert set(out.reserved) == {"eng-alpha/a1", "eng-alpha/b1", "eng-alpha/c1"}
    assert out.left == {}


def _two_tied(pb: int, pc: int, c_first: bool) -> dict:
    from .upstream_tables import cohort

    b = W(
        "b1",
        "eng-alpha",
        "lq-b",
        pod_sets=[("one", 1, {CPU: "10"})],
        priority=pb,
        later=0 if not c_first else 1,
    )
    c = W("c1", "eng-alpha", "lq-c", pod_sets=[("one", 1, {CPU: "10"})], priority=pc)
    setup = _bc(None, "10")
    setup["cohorts"] = [cohort("co-a", None, [("on-demand", [r(CPU, "10")])]), cohort("co-b")]
    return {"workloads": [c, b] if c_first else [b, c], **setup}


def test_fair_sharing_schedule_highest_priority_first() -> None:
    setup = _two_tied(99, 101, c_first=False)
    out = one_cycle(setup.pop("workloads"), **setup, **FAIR)
    assert out.reserved == {"eng-alpha/c1": ("c", {"one": {CPU: "on-demand"}})}
    assert out.pending == {
        "eng-alpha/b1": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"b": ["eng-alpha/b1"]}


def test_fair_sharing_schedule_earliest_timestamp_first() -> None:
    setup = _two_tied(101, 101, c_first=True)  # c1 created a second before b1
    out = one_cycle(setup.pop("workloads"), **setup, **FAIR)
    assert out.reserved == {"eng-alpha/c1": ("c", {"one": {CPU: "on-demand"}})}
    assert out.left == {"b": ["eng-alpha/b1"]}


def test_with_fair_sharing_preempt_workload_from_cq_with_the_highest_share() -> None:
    held = [
        W(
            "all-spot",
            "eng-alpha",
            requests={CPU: "100"},
            admitted_to="eng-alpha",
            assignment=[{CPU: ("spot", "100")}],
        )
    ]
    held += [
        W(
            f"alpha{i}",
            "eng-alpha",
            requests={CPU: "20"},
            admitted_to="eng-alpha",
            assignment=[{CPU: ("on-demand", "20")}],
        )
        for i in (1, 2, 3, 4)
    ]
    held += [
        W(
            f"gamma{i}",
            "eng-gamma",
            requests={CPU: q},
            admitted_to="eng-gamma",
            assignment=[{CPU: ("on-demand", q)}],
        )
        for i, q in ((1, "10"), (2, "20"), (3, "20"), (4, "20"))
    ]
    out = one_cycle(
        [*held, W("preemptor", "eng-beta", "main", {CPU: "30"})],
        cluster_queues=[cq("eng-gamma", [("on-demand", [r(CPU, "50", "0")])], cohort="eng")],
        **FAIR,
    )
    # upstream sets each workload's UID to its name; the tie between equal candidates is broken by UID
    assert set(out.preempted.values()) == {"InCohortReclamation"}
    assert len([k for k in out.preempted if k.startswith("eng-alpha/alpha")]) == 1
    assert len([k for k in out.preempted if k.startswith("eng-gamma/gamma")]) == 1
    assert out.pending == {
        "eng-beta/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
            "30 more needed, insufficient unused quota for cpu in flavor spot, 30 more needed. "
            "Pending the preemption of 2 workload(s)",
        )
    }
    assert out.left == {"eng-beta": ["eng-beta/preemptor"]}
