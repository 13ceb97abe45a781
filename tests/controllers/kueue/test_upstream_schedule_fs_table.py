"""Upstream's fair-sharing scheduling-cycle table, case by case.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_fs_test.go``,
``TestScheduleForFairSharing`` (the same fixtures as ``TestSchedule``, fair sharing on, one cycle).
Case ids are upstream's; names with underscores are hyphenated (object names).
"""

from __future__ import annotations

from .upstream_schedule import CPU, W, one_cycle
from .upstream_tables import cohort, cq, r

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


# -- hierarchical cohorts (object names are lowercase here: upstream's "Cohort-A" is "cohort-a") --------
def _one_cpu(name: str, queue: str, cpu: str, held_by: str | None = None, flavor: str = "on-demand") -> W:
    """A one-pod workload in eng-alpha; ``held_by``: the ClusterQueue it already holds quota in."""
    return W(
        name,
        "eng-alpha",
        queue,
        pod_sets=[("one", 1, {CPU: cpu})],
        admitted_to=held_by,
        assignment=[{CPU: (flavor, cpu)}] if held_by else None,
    )


def _on_demand(name: str, cohort_name: str, quota: str) -> dict:
    return cq(name, [("on-demand", [r(CPU, quota)])], cohort=cohort_name)


NO_LONGER_FITS = ("Pending", "Workload no longer fits after processing another workload")


def test_with_fair_sharing_hierarchical_nominal_first_prefers_non_borrowing_subtree() -> None:
    """root ← cohort-a (10 on-demand) ← cq-a (0); root ← cohort-b ← cq-b (5), cq-c (0, holding 10):
    wl-a fits in its subtree's quota, wl-b would borrow; wl-a wins and wl-b no longer fits."""
    out = one_cycle(
        [_one_cpu("c0", "lq-c", "10", "cq-c"), _one_cpu("wl-a", "lq-a", "5"), _one_cpu("wl-b", "lq-b", "5")],
        cohorts=[
            cohort("root"),
            cohort("cohort-a", "root", [("on-demand", [r(CPU, "10")])]),
            cohort("cohort-b", "root"),
        ],
        cluster_queues=[
            _on_demand("cq-a", "cohort-a", "0"),
            _on_demand("cq-b", "cohort-b", "5"),
            _on_demand("cq-c", "cohort-b", "0"),
        ],
        local_queues=[(f"lq-{q}", "eng-alpha", f"cq-{q}") for q in "abc"],
        **FAIR,
    )
    assert out.reserved["eng-alpha/wl-a"] == ("cq-a", {"one": {CPU: "on-demand"}})
    assert out.counts["eng-alpha/wl-a"] == {"one": 1}
    assert out.pending == {"eng-alpha/wl-b": NO_LONGER_FITS}
    assert out.left == {"cq-b": ["eng-alpha/wl-b"]}


def test_with_fair_sharing_hierarchical_nominal_first_with_deeper_nesting() -> None:
    """root ← cohort-a ← sub-a (10) ← cq-a (0); root ← cohort-b ← cq-b (5), cq-c (0, holding 10)."""
    out = one_cycle(
        [_one_cpu("c0", "lq-c", "10", "cq-c"), _one_cpu("wl-a", "lq-a", "5"), _one_cpu("wl-b", "lq-b", "5")],
        cohorts=[
            cohort("root"),
            cohort("cohort-a", "root"),
            cohort("sub-a", "cohort-a", [("on-demand", [r(CPU, "10")])]),
            cohort("cohort-b", "root"),
        ],
        cluster_queues=[
            _on_demand("cq-a", "sub-a", "0"),
            _on_demand("cq-b", "cohort-b", "5"),
            _on_demand("cq-c", "cohort-b", "0"),
        ],
        local_queues=[(f"lq-{q}", "eng-alpha", f"cq-{q}") for q in "abc"],
        **FAIR,
    )
    assert out.reserved["eng-alpha/wl-a"] == ("cq-a", {"one": {CPU: "on-demand"}})
    assert out.pending == {"eng-alpha/wl-b": NO_LONGER_FITS}
    assert out.left == {"cq-b": ["eng-alpha/wl-b"]}


def test_with_fair_sharing_hierarchical_nominal_first_with_mixed_cq_and_cohort_quotas() -> None:
    """cohort-a (10) ← cq-a1 (5), cq-a2 (3, holding 6); cohort-b (10) ← cq-b (5), cq-c (3, holding 20):
    wl-a1 keeps cohort-a within its subtree quota (13/18), wl-b would take cohort-b to 24/18."""
    out = one_cycle(
        [
            _one_cpu("a2-admitted", "lq-a2", "6", "cq-a2"),
            _one_cpu("c-admitted", "lq-c", "20", "cq-c"),
            _one_cpu("wl-a1", "lq-a1", "7"),
            _one_cpu("wl-b", "lq-b", "4"),
        ],
        cohorts=[
            cohort("root"),
            cohort("cohort-a", "root", [("on-demand", [r(CPU, "10")])]),
            cohort("cohort-b", "root", [("on-demand", [r(CPU, "10")])]),
        ],
        cluster_queues=[
            _on_demand("cq-a1", "cohort-a", "5"),
            _on_demand("cq-a2", "cohort-a", "3"),
            _on_demand("cq-b", "cohort-b", "5"),
            _on_demand("cq-c", "cohort-b", "3"),
        ],
        local_queues=[
            ("lq-a1", "eng-alpha", "cq-a1"),
            ("lq-a2", "eng-alpha", "cq-a2"),
            ("lq-b", "eng-alpha", "cq-b"),
            ("lq-c", "eng-alpha", "cq-c"),
        ],
        **FAIR,
    )
    assert out.reserved["eng-alpha/wl-a1"] == ("cq-a1", {"one": {CPU: "on-demand"}})
    assert out.pending == {"eng-alpha/wl-b": NO_LONGER_FITS}
    assert out.left == {"cq-b": ["eng-alpha/wl-b"]}


def test_with_fair_sharing_hierarchical_nominal_first_per_flavor_ignores_cross_flavor_borrowing() -> None:
    """cohort-a (10 on-demand) ← cq-a (0, 0; holding 5 spot); cohort-b (10 spot) ← cq-b (5 on-demand,
    0 spot; holding 8 on-demand): both request on-demand; cohort-a does not borrow on-demand."""
    two = [("on-demand", [r(CPU, "0")]), ("spot", [r(CPU, "0")])]
    out = one_cycle(
        [
            _one_cpu("spot-admitted", "lq-a", "5", "cq-a", flavor="spot"),
            _one_cpu("od-admitted", "lq-b", "8", "cq-b"),
            _one_cpu("wl-a", "lq-a", "4"),
            _one_cpu("wl-b", "lq-b", "4"),
        ],
        cohorts=[
            cohort("root"),
            cohort("cohort-a", "root", [("on-demand", [r(CPU, "10")])]),
            cohort("cohort-b", "root", [("spot", [r(CPU, "10")])]),
        ],
        cluster_queues=[
            cq("cq-a", two, cohort="cohort-a"),
            cq("cq-b", [("on-demand", [r(CPU, "5")]), ("spot", [r(CPU, "0")])], cohort="cohort-b"),
        ],
        local_queues=[("lq-a", "eng-alpha", "cq-a"), ("lq-b", "eng-alpha", "cq-b")],
        **FAIR,
    )
    assert out.reserved["eng-alpha/wl-a"] == ("cq-a", {"one": {CPU: "on-demand"}})
    assert out.pending == {"eng-alpha/wl-b": NO_LONGER_FITS}
    assert out.left == {"cq-b": ["eng-alpha/wl-b"]}


def test_hierarchical_fair_sharing_schedule_workload_which_wins_tournament() -> None:
    """a (200) ← b ← d (holding 10), e (holding 20); a ← c ← f, g (holding 100): d1 (70) wins."""
    out = one_cycle(
        [
            _one_cpu("d0", "lq-d", "10", "d"),
            _one_cpu("e0", "lq-e", "20", "e"),
            _one_cpu("g0", "lq-g", "100", "g"),
            _one_cpu("d1", "lq-d", "70"),
            _one_cpu("e1", "lq-e", "61"),
            _one_cpu("f1", "lq-f", "1"),
            _one_cpu("g1", "lq-g", "1"),
        ],
        cohorts=[cohort("a", None, [("on-demand", [r(CPU, "200")])]), cohort("b", "a"), cohort("c", "a")],
        cluster_queues=[
            _on_demand("d", "b", "0"),
            _on_demand("e", "b", "0"),
            _on_demand("f", "c", "0"),
            _on_demand("g", "c", "0"),
        ],
        local_queues=[(f"lq-{q}", "eng-alpha", q) for q in "defg"],
        **FAIR,
    )
    assert out.reserved["eng-alpha/d1"] == ("d", {"one": {CPU: "on-demand"}})
    assert out.pending == {f"eng-alpha/{n}": NO_LONGER_FITS for n in ("e1", "f1", "g1")}
    assert out.left == {"e": ["eng-alpha/e1"], "f": ["eng-alpha/f1"], "g": ["eng-alpha/g1"]}


# -- preemption within one cycle -------------------------------------------------------------------------
def _other(name: str, quota: list, preemption: dict | None) -> dict:
    return cq(name, [("default", quota)], cohort="other", preemption=preemption)


OTHER_QUEUES = [
    ("other", "eng-alpha", "other-alpha"),
    ("other", "eng-beta", "other-beta"),
    ("other", "eng-gamma", "other-gamma"),
]


def _held(name: str, ns: str, requests: dict[str, str], held_by: str, usage: dict[str, str]) -> W:
    return W(
        name,
        ns,
        "other",
        requests=requests,
        priority=0,
        admitted_to=held_by,
        assignment=[{res: ("default", q) for res, q in usage.items()}],
    )


def test_multiple_preemptions_within_cq_when_fair_sharing_through_the_api() -> None:
    """Upstream's case builds its ClusterQueues without API defaulting: ``reclaimWithinCohort`` stays
    empty, which ``canPreemptWhileBorrowing`` (flavorassigner.go) reads as "not Never" under fair
    sharing, so each preemptor may preempt while borrowing and a1, b1, c1 are preempted. Through an
    API server the CRD defaults it to ``Never``: a preemptor needing 3 cpu over its nominal 2 is then
    borrowing, ``FindHeightOfLowestSubtreeThatFits`` finds no subtree to reclaim in, and the flavor
    assigner answers NoFit, as kbatch does here (a cluster would do the same)."""
    within = {"withinClusterQueue": "LowerPriority"}
    out = one_cycle(
        [
            _held("a1", "eng-alpha", {CPU: "3"}, "other-alpha", {CPU: "3"}),
            _held("b1", "eng-beta", {CPU: "3"}, "other-beta", {CPU: "3"}),
            _held("c1", "eng-gamma", {CPU: "3"}, "other-gamma", {CPU: "3"}),
            *(
                W("preemptor", ns, "other", requests={CPU: "3"}, priority=100)
                for ns in ("eng-alpha", "eng-beta", "eng-gamma")
            ),
        ],
        cluster_queues=[
            *(_other(f"other-{x}", [r(CPU, "2")], within) for x in ("alpha", "beta", "gamma")),
            _other("resource-bank", [r(CPU, "3")], None),
        ],
        local_queues=OTHER_QUEUES,
        **FAIR,
    )
    assert out.preempted == {}
    no_fit = (
        "Pending",
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
        "default, 3 more needed",
    )
    assert out.pending == {f"{ns}/preemptor": no_fit for ns in ("eng-alpha", "eng-beta", "eng-gamma")}


def test_multiple_preemptions_within_cq_when_fair_sharing_reclaiming_within_the_cohort() -> None:
    """The same with ``reclaimWithinCohort: LowerPriority`` set, so that preempting while borrowing is
    allowed under fair sharing as in upstream's case: each preemptor takes its own queue's lower
    priority workload (in-queue candidates come first), as upstream expects."""
    pre = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"}
    out = one_cycle(
        [
            _held("a1", "eng-alpha", {CPU: "3"}, "other-alpha", {CPU: "3"}),
            _held("b1", "eng-beta", {CPU: "3"}, "other-beta", {CPU: "3"}),
            _held("c1", "eng-gamma", {CPU: "3"}, "other-gamma", {CPU: "3"}),
            *(
                W("preemptor", ns, "other", requests={CPU: "3"}, priority=100)
                for ns in ("eng-alpha", "eng-beta", "eng-gamma")
            ),
        ],
        cluster_queues=[
            *(_other(f"other-{x}", [r(CPU, "2")], pre) for x in ("alpha", "beta", "gamma")),
            _other("resource-bank", [r(CPU, "3")], None),
        ],
        local_queues=OTHER_QUEUES,
        **FAIR,
    )
    assert out.preempted == {k: "InClusterQueue" for k in ("eng-alpha/a1", "eng-beta/b1", "eng-gamma/c1")}
    waiting = (
        "Pending",
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
        "default, 3 more needed. Pending the preemption of 1 workload(s)",
    )
    assert out.pending == {f"{ns}/preemptor": waiting for ns in ("eng-alpha", "eng-beta", "eng-gamma")}


def test_multiple_preemptions_skip_overlapping_preemption_targets() -> None:
    """RecomputeAssignmentUponPreemptionTargetsOverlap off (its default): the second preemptor, whose
    targets overlap the first's, is skipped this cycle."""
    pre = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}
    out = one_cycle(
        [
            _held("a1", "eng-alpha", {"alpha-resource": "1"}, "other-alpha", {"alpha-resource": "1"}),
            _held("b1", "eng-beta", {"beta-resource": "1"}, "other-beta", {"beta-resource": "1"}),
            _held("c1", "eng-gamma", {CPU: "9", "gamma-resource": "1"}, "other-gamma", {CPU: "9"}),
            W("preemptor", "eng-alpha", "other", requests={CPU: "3", "alpha-resource": "1"}, priority=100),
            W(
                "pretending-preemptor",
                "eng-beta",
                "other",
                requests={CPU: "3", "beta-resource": "1"},
                priority=99,
            ),
        ],
        cluster_queues=[
            *(
                _other(f"other-{x}", [r(CPU, "0"), r(f"{x}-resource", "1")], pre)
                for x in ("alpha", "beta", "gamma")
            ),
            _other("resource-bank", [r(CPU, "9")], None),
        ],
        local_queues=OTHER_QUEUES,
        **FAIR,
    )
    assert out.preempted == {"eng-alpha/a1": "InClusterQueue", "eng-gamma/c1": "InCohortFairSharing"}
    assert out.pending == {
        "eng-alpha/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for alpha-resource in flavor "
            "default, 1 more needed, insufficient unused quota for cpu in flavor default, 3 more needed. "
            "Pending the preemption of 2 workload(s)",
        ),
        "eng-beta/pretending-preemptor": (
            "Pending",
            "Workload has overlapping preemption targets with another workload",
        ),
    }
    assert out.left == {
        "other-alpha": ["eng-alpha/preemptor"],
        "other-beta": ["eng-beta/pretending-preemptor"],
    }


def test_not_enough_resources_with_fair_sharing_enabled() -> None:
    out = one_cycle([W("new", "sales", "main", pod_sets=[("one", 1, {CPU: "100"})])], **FAIR)
    assert out.pending == {
        "sales/new": (
            "Pending",
            "couldn't assign flavors to pod set one: insufficient quota for cpu in flavor default, "
            "previously considered podsets requests (0) + current podset request (100) > "
            "maximum capacity (50)",
        )
    }
    assert out.left == {"sales": ["sales/new"]} and out.inadmissible == {}  # StrictFIFO keeps its head


def _fungible(doc: dict, **fungibility: str) -> dict:
    doc["spec"]["flavorFungibility"] = fungibility
    return doc


def _simple(
    name: str,
    ns: str,
    queue: str,
    res: str,
    qty: str,
    held_by: str | None = None,
    flavor: str = "",
    priority: int | None = None,
) -> W:
    """``Request(res, qty)`` and, with ``held_by``, ``SimpleReserveQuota(held_by, flavor)``."""
    return W(
        name,
        ns,
        queue,
        requests={res: qty},
        priority=priority,
        admitted_to=held_by,
        assignment=[{res: (flavor, qty)}] if held_by else None,
    )


def test_with_fair_sharing_prefer_reclamation_over_cq_priority_based_preemption() -> None:
    """Upstream: "... prefer reclamation over cq priority based preemption; with preemption while
    borrowing": on-demand needs in-queue priority preemption, spot a reclaim in the cohort; reclaiming
    is preferred, so b1 (other-beta, spot) is the target."""
    two = [("on-demand", [r("gpu", "7")]), ("spot", [r("gpu", "7")])]
    out = one_cycle(
        [
            _simple("a1", "eng-alpha", "other", "gpu", "5", "other-alpha", "on-demand", priority=50),
            _simple("b1", "eng-beta", "other", "gpu", "5", "other-beta", "spot", priority=50),
            W("preemptor", "eng-alpha", "other", requests={"gpu": "8"}, priority=100),
        ],
        cluster_queues=[
            cq(
                "other-alpha",
                two,
                cohort="other",
                preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
            ),
            cq("other-beta", [("on-demand", [r("gpu", "3")]), ("spot", [r("gpu", "3")])], cohort="other"),
        ],
        local_queues=OTHER_QUEUES[:2],
        **FAIR,
    )
    assert out.preempted == {"eng-beta/b1": "InCohortFairSharing"}
    assert out.pending == {
        "eng-alpha/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, "
            "3 more needed, insufficient unused quota for gpu in flavor spot, 3 more needed. Pending the "
            "preemption of 1 workload(s)",
        )
    }
    assert out.left == {"other-alpha": ["eng-alpha/preemptor"]}


def _most_local_capacity(**world: object) -> object:
    return one_cycle(
        [
            _simple("a1", "default", "queue1", "gpu", "8", "queue1", "on-demand"),  # on-demand in the parent
            _simple("a2", "default", "queue1", "gpu", "3", "queue1", "spot"),  # spot in the queue
            _simple("a3", "default", "queue1", "gpu", "1"),
        ],
        cohorts=[
            cohort("root-cohort", None, [("on-demand", [r("gpu", "2")]), ("spot", [r("gpu", "0")])]),
            cohort(
                "child-cohort", "root-cohort", [("on-demand", [r("gpu", "5")]), ("spot", [r("gpu", "7")])]
            ),
        ],
        cluster_queues=[
            _fungible(
                cq(
                    "queue1",
                    [("on-demand", [r("gpu", "3")]), ("spot", [r("gpu", "3")])],
                    cohort="child-cohort",
                    preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
                ),
                whenCanPreempt="TryNextFlavor",
                whenCanBorrow="TryNextFlavor",
            )
        ],
        local_queues=[("queue1", "default", "queue1")],
        **world,
    )


def test_prefer_flavor_with_most_local_capacity() -> None:
    out = _most_local_capacity(**FAIR)
    assert out.reserved["default/a3"] == ("queue1", {"main": {"gpu": "spot"}})  # type: ignore[attr-defined]


def test_prefer_flavor_with_most_local_capacity_without_fair_sharing() -> None:
    out = _most_local_capacity()
    assert out.reserved["default/a3"] == ("queue1", {"main": {"gpu": "spot"}})  # type: ignore[attr-defined]


def test_fair_sharing_in_cq_preemption_for_cq_without_cohort() -> None:
    """Upstream's regression case for a nil-pointer panic: in-queue preemption with fair sharing in a
    ClusterQueue without a cohort."""
    out = one_cycle(
        [
            W(
                "nc-low",
                "default",
                "no-cohort-queue",
                requests={CPU: "4"},
                priority=-1,
                admitted_to="no-cohort-cq",
                assignment=[{CPU: ("default", "4")}],
            ),
            W("nc-high", "default", "no-cohort-queue", requests={CPU: "4"}, priority=100),
        ],
        cluster_queues=[
            cq(
                "no-cohort-cq",
                [("default", [r(CPU, "4")])],
                preemption={"withinClusterQueue": "LowerPriority"},
            )
        ],
        local_queues=[("no-cohort-queue", "default", "no-cohort-cq")],
        **FAIR,
    )
    assert out.preempted == {"default/nc-low": "InClusterQueue"}
    assert out.pending == {
        "default/nc-high": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for "
            "cpu in flavor default, 4 more needed. Pending the preemption of 1 workload(s)",
        )
    }
    assert out.left == {"no-cohort-cq": ["default/nc-high"]}
    assert out.events["default/nc-low"] == [("Normal", "EvictedDueToPreempted"), ("Normal", "Preempted")]
    assert out.events["default/nc-high"] == [("Normal", "PreemptedWorkload"), ("Warning", "Pending")]


def test_preemption_over_borrowing_with_fair_sharing_preempts_in_the_first_flavor() -> None:
    """Upstream: "PreemptionOverBorrowing with fair sharing: preempt in first flavor instead of
    borrowing in second"."""
    out = one_cycle(
        [
            W(
                "fs-low-pob",
                "default",
                "fs-pob-queue",
                requests={CPU: "5"},
                priority=-1,
                admitted_to="fs-pob-cq",
                assignment=[{CPU: ("on-demand", "5000m")}],
            ),
            W("fs-high-pob", "default", "fs-pob-queue", requests={CPU: "5"}, priority=0),
        ],
        cluster_queues=[
            _fungible(
                cq(
                    "fs-pob-cq",
                    [("on-demand", [r(CPU, "5", "0")]), ("spot", [r(CPU, "0", "5")])],
                    cohort="fs-pob-cohort",
                    preemption={"withinClusterQueue": "LowerPriority"},
                ),
                whenCanBorrow="TryNextFlavor",
                whenCanPreempt="TryNextFlavor",
                preference="PreemptionOverBorrowing",
            ),
            cq(
                "fs-pob-lender",
                [("on-demand", [r(CPU, "0")]), ("spot", [r(CPU, "5")])],
                cohort="fs-pob-cohort",
            ),
        ],
        local_queues=[("fs-pob-queue", "default", "fs-pob-cq")],
        **FAIR,
    )
    assert out.preempted == {"default/fs-low-pob": "InClusterQueue"}
    assert out.pending == {
        "default/fs-high-pob": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota "
            "for cpu in flavor on-demand, 5 more needed. Pending the preemption of 1 "
            "workload(s)",
        )
    }
    assert out.left == {"fs-pob-cq": ["default/fs-high-pob"]}
