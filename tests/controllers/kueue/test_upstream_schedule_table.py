"""Upstream's scheduling-cycle table, case by case: what one cycle admits, preempts and leaves.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_test.go``, ``TestSchedule``
(``wantAssignments``, ``wantLeft``, ``wantInadmissibleLeft``, the QuotaReserved conditions of
``wantWorkloads`` as ``AdjustWorkloadsForDisabledObservabilityInScheduler`` leaves them with
``UnadmittedWorkloadsObservability`` off, its v0.19.2 default: reason ``Pending``). Case ids are
upstream's.
"""

from __future__ import annotations

from .upstream_schedule import CPU, CycleOutcome, W, one_cycle


def test_admit_in_different_cohorts() -> None:
    out = one_cycle(
        [
            W("new", "sales", "main", pod_sets=[("one", 1, {CPU: "1"})]),
            W("new", "eng-alpha", "main", pod_sets=[("one", 51, {CPU: "1"})]),
        ]
    )
    assert out.reserved == {
        "sales/new": ("sales", {"one": {CPU: "default"}}),
        "eng-alpha/new": ("eng-alpha", {"one": {CPU: "on-demand"}}),
    }


def test_admit_in_same_cohort_with_no_borrowing() -> None:
    out = one_cycle(
        [
            W("new", "eng-alpha", "main", pod_sets=[("one", 40, {CPU: "1"})]),
            W("new", "eng-beta", "main", pod_sets=[("one", 40, {CPU: "1"})]),
        ]
    )
    assert out.reserved == {
        "eng-alpha/new": ("eng-alpha", {"one": {CPU: "on-demand"}}),
        "eng-beta/new": ("eng-beta", {"one": {CPU: "on-demand"}}),
    }


def test_assign_multiple_resources_and_flavors() -> None:
    out = one_cycle(
        [
            W(
                "new",
                "eng-beta",
                "main",
                pod_sets=[("one", 10, {CPU: "6", "example.com/gpu": "1"}), ("two", 40, {CPU: "1"})],
            )
        ]
    )
    assert out.reserved == {
        "eng-beta/new": (
            "eng-beta",
            {"one": {CPU: "on-demand", "example.com/gpu": "model-a"}, "two": {CPU: "spot"}},
        )
    }


def test_cannot_borrow_if_cohort_was_assigned_and_would_result_in_overadmission() -> None:
    out = one_cycle(
        [
            W("new", "eng-alpha", "main", pod_sets=[("one", 45, {CPU: "1"})]),
            W("new", "eng-beta", "main", pod_sets=[("one", 56, {CPU: "1"})]),
        ]
    )
    assert out.reserved == {"eng-alpha/new": ("eng-alpha", {"one": {CPU: "on-demand"}})}
    assert out.pending == {
        "eng-beta/new": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"eng-beta": ["eng-beta/new"]}
    assert out.inadmissible == {}


def test_can_borrow_if_cohort_was_assigned_and_will_not_result_in_overadmission() -> None:
    out = one_cycle(
        [
            W("new", "eng-alpha", "main", pod_sets=[("one", 45, {CPU: "1"})]),
            W("new", "eng-beta", "main", pod_sets=[("one", 55, {CPU: "1"})]),
        ]
    )
    assert set(out.reserved) == {"eng-alpha/new", "eng-beta/new"}


def test_can_borrow_if_needs_reclaim_from_cohort_in_different_flavor() -> None:
    out = one_cycle(
        [
            W("can-reclaim", "eng-alpha", "main", {CPU: "100"}),
            W("needs-to-borrow", "eng-beta", "main", {CPU: "1"}),
            W(
                "user-on-demand",
                "eng-beta",
                requests={CPU: "50"},
                admitted_to="eng-beta",
                assignment=[{CPU: ("on-demand", "50")}],
            ),
            W(
                "user-spot",
                "eng-beta",
                requests={CPU: "1"},
                admitted_to="eng-beta",
                assignment=[{CPU: ("spot", "1")}],
            ),
        ]
    )
    assert out.reserved["eng-beta/needs-to-borrow"] == ("eng-beta", {"main": {CPU: "on-demand"}})
    assert "eng-alpha/can-reclaim" not in out.reserved
    assert out.pending["eng-alpha/can-reclaim"] == (
        "Pending",
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
        "50 more needed, insufficient unused quota for cpu in flavor spot, 1 more needed",
    )
    assert out.left == {"eng-alpha": ["eng-alpha/can-reclaim"]}


def test_workload_exceeds_lending_limit_when_borrow_in_cohort() -> None:
    out = one_cycle(
        [
            W("a", "lend", requests={CPU: "2"}, admitted_to="lend-b", assignment=[{CPU: ("default", "2")}]),
            W("b", "lend", "lend-b-queue", {CPU: "3"}),
        ]
    )
    assert set(out.reserved) == {"lend/a"}
    assert out.pending == {
        "lend/b": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
            "1 more needed",
        )
    }
    assert out.inadmissible == {"lend-b": ["lend/b"]}
    assert out.left == {}


def _custom(name: str, lq: str, *flavors: tuple[str, str]) -> dict:
    from .upstream_tables import cq, r

    doc = cq(name, [(f, [r(CPU, q)]) for f, q in flavors])
    doc["spec"]["queueingStrategy"] = "StrictFIFO"
    return doc


def test_flavors_with_mixed_misconfiguration_and_insufficient_quota() -> None:
    out = one_cycle(
        [
            W(
                "existing-on-demand-job",
                "sales",
                "custom-q",
                {CPU: "10"},
                admitted_to="custom-cq",
                assignment=[{CPU: ("on-demand", "10")}],
            ),
            W("new-job", "sales", "custom-q", {CPU: "10"}),
        ],
        cluster_queues=[_custom("custom-cq", "custom-q", ("spot-tainted", "20"), ("on-demand", "15"))],
        local_queues=[("custom-q", "sales", "custom-cq")],
    )
    # borrowingLimit without a cohort is refused by the CRD rule, so _custom's queues carry none
    assert set(out.reserved) == {"sales/existing-on-demand-job"}
    assert out.pending == {
        "sales/new-job": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
            "on-demand, 5 more needed, untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted",
        )
    }
    assert out.left == {"custom-cq": ["sales/new-job"]}


def test_flavors_with_mixed_taint_mismatch_and_exceeding_limits() -> None:
    out = one_cycle(
        [W("new-job2", "sales", "custom-q2", {CPU: "10"})],
        cluster_queues=[_custom("custom-cq2", "custom-q2", ("spot-tainted", "20"), ("on-demand", "5"))],
        local_queues=[("custom-q2", "sales", "custom-cq2")],
    )
    assert out.pending == {
        "sales/new-job2": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, "
            "previously considered podsets requests (0) + current podset request (10) > "
            "maximum capacity (5), "
            "untolerated taint {key val NoSchedule <nil>} in flavor spot-tainted",
        )
    }
    assert out.left == {"custom-cq2": ["sales/new-job2"]}


def test_flavors_are_structurally_incompatible() -> None:
    out = one_cycle(
        [W("new-job3", "sales", "custom-q3", {CPU: "1"})],
        cluster_queues=[_custom("custom-cq3", "custom-q3", ("spot-tainted", "20"), ("spot-tainted-2", "5"))],
        local_queues=[("custom-q3", "sales", "custom-cq3")],
    )
    assert out.pending == {
        "sales/new-job3": (
            "Pending",
            "couldn't assign flavors to pod set main: untolerated taint {key val NoSchedule <nil>} in "
            "flavor spot-tainted, untolerated taint {key val2 NoSchedule <nil>} in flavor spot-tainted-2",
        )
    }
    assert out.left == {"custom-cq3": ["sales/new-job3"]}


def test_skip_workload_with_missing_or_deleted_cluster_queue() -> None:
    out = one_cycle(
        [W("missing-cq-workload", "sales", "non-existent-queue", pod_sets=[("set", 1, {CPU: "1"})])]
    )
    assert out.reserved == {} and out.left == {} and out.inadmissible == {}


def test_single_cluster_queue_full() -> None:
    out = one_cycle(
        [
            W("new", "sales", "main", pod_sets=[("one", 11, {CPU: "1"})]),
            W(
                "assigned",
                "sales",
                pod_sets=[("one", 40, {CPU: "1"})],
                admitted_to="sales",
                assignment=[{CPU: ("default", "40")}],
            ),
        ]
    )
    assert set(out.reserved) == {"sales/assigned"}
    assert out.pending == {
        "sales/new": (
            "Pending",
            "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor default, "
            "1 more needed",
        )
    }
    assert out.left == {"sales": ["sales/new"]}


def test_failed_to_match_cluster_queue_selector() -> None:
    out = one_cycle([W("new", "sales", "blocked", pod_sets=[("one", 1, {CPU: "1"})])])
    assert out.pending == {"sales/new": ("Pending", "workload namespace doesn't match ClusterQueue selector")}
    assert out.inadmissible == {"eng-alpha": ["sales/new"]}
    assert out.left == {}


def test_preempt_workloads_in_cluster_queue_and_cohort() -> None:
    out = one_cycle(
        [
            W("preemptor", "eng-beta", "main", {CPU: "20"}),
            W(
                "use-all-spot",
                "eng-alpha",
                requests={CPU: "100"},
                admitted_to="eng-alpha",
                assignment=[{CPU: ("spot", "100")}],
            ),
            W(
                "low-1",
                "eng-beta",
                requests={CPU: "30"},
                priority=-1,
                admitted_to="eng-beta",
                assignment=[{CPU: ("on-demand", "30")}],
            ),
            W(
                "low-2",
                "eng-beta",
                requests={CPU: "10"},
                priority=-2,
                admitted_to="eng-beta",
                assignment=[{CPU: ("on-demand", "10")}],
            ),
            W(
                "borrower",
                "eng-alpha",
                requests={CPU: "60"},
                admitted_to="eng-alpha",
                assignment=[{CPU: ("on-demand", "60")}],
            ),
        ]
    )
    assert out.preempted == {"eng-alpha/borrower": "InCohortReclamation", "eng-beta/low-2": "InClusterQueue"}
    assert out.pending == {
        "eng-beta/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
            "on-demand, 20 more needed, insufficient unused quota for cpu in flavor spot, 20 more needed. "
            "Pending the preemption of 2 workload(s)",
        )
    }
    assert out.left == {"eng-beta": ["eng-beta/preemptor"]}
    # the preempted keep their reservation until their release (upstream: "Removal from cache for
    # the preempted workloads is deferred until we receive Workload updates")
    assert set(out.reserved) == {
        "eng-alpha/use-all-spot",
        "eng-beta/low-1",
        "eng-beta/low-2",
        "eng-alpha/borrower",
    }


def test_multiple_cluster_queues_need_preemption() -> None:
    from .upstream_tables import cq, r

    other_alpha = cq("other-alpha", [("on-demand", [r(CPU, "50", "50")])], cohort="other")
    other_beta = cq(
        "other-beta",
        [("on-demand", [r(CPU, "50", "10")])],
        cohort="other",
        preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
    )
    out = one_cycle(
        [
            W("preemptor", "eng-beta", "other", {CPU: "1"}, priority=-1),
            W("pending", "eng-alpha", "other", {CPU: "1"}, priority=1),
            W(
                "use-all",
                "eng-alpha",
                requests={CPU: "100"},
                admitted_to="other-alpha",
                assignment=[{CPU: ("on-demand", "100")}],
            ),
        ],
        cluster_queues=[other_alpha, other_beta],
        local_queues=[("other", "eng-alpha", "other-alpha"), ("other", "eng-beta", "other-beta")],
    )
    assert out.preempted == {"eng-alpha/use-all": "InCohortReclamation"}
    assert out.pending == {
        "eng-alpha/pending": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota "
            "for cpu in flavor on-demand, 1 more needed",
        ),
        "eng-beta/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota "
            "for cpu in flavor on-demand, 1 more needed. Pending the preemption of 1 "
            "workload(s)",
        ),
    }
    assert out.left == {"other-beta": ["eng-beta/preemptor"]}
    assert out.inadmissible == {"other-alpha": ["eng-alpha/pending"]}


def test_cannot_borrow_resource_not_listed_in_cluster_queue() -> None:
    out = one_cycle([W("new", "eng-alpha", "main", {"example.com/gpu": "1"})])
    assert out.pending == {
        "eng-alpha/new": (
            "Pending",
            "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue",
        )
    }
    assert out.left == {"eng-alpha": ["eng-alpha/new"]}


def test_not_enough_resources_to_borrow_fallback_to_next_flavor() -> None:
    out = one_cycle(
        [
            W("new", "eng-alpha", "main", pod_sets=[("one", 60, {CPU: "1"})]),
            W(
                "existing",
                "eng-beta",
                pod_sets=[("one", 45, {CPU: "1"})],
                admitted_to="eng-beta",
                assignment=[{CPU: ("on-demand", "45")}],
            ),
        ]
    )
    assert out.reserved["eng-alpha/new"] == ("eng-alpha", {"one": {CPU: "spot"}})


def test_workload_should_not_fit_in_nonexistent_cluster_queue() -> None:
    out = one_cycle([W("foo", "sales", "cq-nonexistent-queue", {CPU: "1"})])
    assert out.reserved == {} and out.left == {} and out.inadmissible == {}
    # the scheduler never sees it; the workload controller (not running in upstream's unit test) says
    # why: pkg/controller/core/workload_controller.go, reason Inadmissible with the gate off
    assert out.pending == {"sales/foo": ("Inadmissible", "ClusterQueue nonexistent-cq doesn't exist")}


def test_workload_should_not_fit_in_cluster_queue_with_nonexistent_flavor() -> None:
    out = one_cycle([W("foo", "sales", "flavor-nonexistent-queue", {CPU: "1"})])
    assert out.reserved == {} and out.inadmissible == {}
    assert out.left == {"flavor-nonexistent-cq": ["sales/foo"]}


def _co_queues() -> tuple[list[dict], list[tuple[str, str, str]]]:
    from .upstream_tables import cq, r

    pre = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
    cqs = [
        cq(f"cq{i}", [("default", [r("r1", "10", "10"), r("r2", "10", "10")])], cohort="co", preemption=pre)
        for i in (1, 2, 3)
    ]
    return cqs, [(f"lq{i}", "sales", f"cq{i}") for i in (1, 2, 3)]


def _two(r1: str, r2: tuple[str, str]) -> CycleOutcome:
    cqs, lqs = _co_queues()
    return one_cycle(
        [
            W("wl1", "sales", "lq1", {"r1": r1}, priority=-1),
            W("wl2", "sales", "lq2", {r2[0]: r2[1]}, priority=-2),
        ],
        cluster_queues=cqs,
        local_queues=lqs,
    )


def test_two_workloads_can_borrow_different_resources_from_the_same_flavor_in_the_same_cycle() -> None:
    out = _two("16", ("r2", "16"))
    assert out.reserved == {
        "sales/wl1": ("cq1", {"main": {"r1": "default"}}),
        "sales/wl2": ("cq2", {"main": {"r2": "default"}}),
    }


def test_two_workloads_can_borrow_the_same_resources_in_the_same_cycle_if_fits_in_the_cohort_quota() -> None:
    out = _two("16", ("r1", "14"))
    assert set(out.reserved) == {"sales/wl1", "sales/wl2"}


def test_only_one_workload_can_borrow_one_resource_in_the_same_cycle_if_cohort_quota_cannot_fit() -> None:
    out = _two("16", ("r1", "16"))
    assert set(out.reserved) == {"sales/wl1"}
    assert out.pending == {
        "sales/wl2": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"cq2": ["sales/wl2"]}


def test_preemption_while_borrowing_does_not_block_a_borrowing_workload_in_another_cq() -> None:
    """Upstream's names with underscores (cq_a, lq_a, admitted_a) are not valid object names through
    an API server; here with hyphens."""
    from .upstream_tables import cq, r

    pre = {"reclaimWithinCohort": "LowerPriority", "borrowWithinCohort": {"policy": "LowerPriority"}}
    cqs = [
        cq("cq-shared", [("default", [r(CPU, "4", "0")])], cohort="preemption-while-borrowing"),
        cq("cq-a", [("default", [r(CPU, "0", "3")])], cohort="preemption-while-borrowing", preemption=pre),
        cq("cq-b", [("default", [r(CPU, "0")])], cohort="preemption-while-borrowing", preemption=pre),
    ]
    out = one_cycle(
        [
            W("a", "eng-alpha", "lq-a", {CPU: "3"}),
            W("b", "eng-beta", "lq-b", {CPU: "1"}),
            W(
                "admitted-a",
                "eng-alpha",
                "lq-a",
                {CPU: "2"},
                admitted_to="cq-a",
                assignment=[{CPU: ("default", "2")}],
            ),
        ],
        cluster_queues=cqs,
        local_queues=[("lq-a", "eng-alpha", "cq-a"), ("lq-b", "eng-beta", "cq-b")],
    )
    assert out.reserved == {
        "eng-alpha/admitted-a": ("cq-a", {"main": {CPU: "default"}}),
        "eng-beta/b": ("cq-b", {"main": {CPU: "default"}}),
    }
    assert out.pending == {
        "eng-alpha/a": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
            "2 more needed",
        )
    }
    assert out.inadmissible == {"cq-a": ["eng-alpha/a"]}
