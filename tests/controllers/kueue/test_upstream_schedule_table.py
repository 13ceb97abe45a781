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


def _others(*specs: tuple[str, str, dict | None], flavor: str = "on-demand") -> list[dict]:
    from .upstream_tables import cq, r

    return [cq(n, [(flavor, [r(CPU, q)])], cohort="other", preemption=p) for n, q, p in specs]


OTHER_LQS = [("other", ns, f"other-{ns.split('-')[1]}") for ns in ("eng-alpha", "eng-beta", "eng-gamma")]
ANY_LP = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
LP = {"withinClusterQueue": "LowerPriority"}
# upstream's case sets borrowWithinCohort without reclaimWithinCohort, which the CRD's rule refuses
# through an API server (reclaimWithinCohort defaults to Never); with LowerPriority the other
# queues' workloads are still no candidates (none of them borrows)
LP_BWC = {
    "withinClusterQueue": "LowerPriority",
    "reclaimWithinCohort": "LowerPriority",
    "borrowWithinCohort": {"policy": "LowerPriority"},
}


def _held(name: str, ns: str, cq_name: str, cpu: str, priority: int, flavor: str = "on-demand") -> W:
    return W(
        name,
        ns,
        "other",
        {CPU: cpu},
        priority=priority,
        admitted_to=cq_name,
        assignment=[{CPU: (flavor, cpu)}],
    )


def test_minimal_preemptions_when_target_queue_is_exhausted() -> None:
    out = one_cycle(
        [
            _held("a1", "eng-alpha", "other-alpha", "1", -2),
            _held("a2", "eng-alpha", "other-alpha", "1", -2),
            _held("a3", "eng-alpha", "other-alpha", "1", -1),
            _held("b1", "eng-beta", "other-beta", "1", 0),
            _held("b2", "eng-beta", "other-beta", "1", 0),
            _held("b3", "eng-beta", "other-beta", "1", 0),
            W("incoming", "eng-alpha", "other", {CPU: "2"}, priority=0),
        ],
        cluster_queues=_others(
            ("other-alpha", "2", ANY_LP), ("other-beta", "2", None), ("other-gamma", "2", None)
        ),
        local_queues=OTHER_LQS,
    )
    assert out.preempted == {"eng-alpha/a1": "InClusterQueue", "eng-alpha/a2": "InClusterQueue"}
    assert out.pending == {
        "eng-alpha/incoming": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
            "2 more needed. Pending the preemption of 2 workload(s)",
        )
    }
    assert out.left == {"other-alpha": ["eng-alpha/incoming"]}


def test_a_workload_is_only_eligible_to_do_preemptions_if_it_fits_fully_within_nominal_quota() -> None:
    out = one_cycle(
        [
            _held("a1", "eng-alpha", "other-alpha", "1", -1),
            _held("b1", "eng-beta", "other-beta", "1", -1),
            W("incoming", "eng-alpha", "other", {CPU: "3"}, priority=1),
        ],
        cluster_queues=_others(("other-alpha", "2", ANY_LP), ("other-beta", "2", None)),
        local_queues=OTHER_LQS[:2],
    )
    assert out.preempted == {}
    assert out.pending == {
        "eng-alpha/incoming": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
            "1 more needed",
        )
    }
    assert out.inadmissible == {"other-alpha": ["eng-alpha/incoming"]}


def test_multiple_preemptions_without_borrowing() -> None:
    out = one_cycle(
        [
            _held("a1", "eng-alpha", "other-alpha", "2", 0, "default"),
            _held("b1", "eng-beta", "other-beta", "2", 0, "default"),
            W("preemptor", "eng-alpha", "other", {CPU: "2"}, priority=100),
            W("preemptor", "eng-beta", "other", {CPU: "2"}, priority=100),
        ],
        cluster_queues=_others(("other-alpha", "2", LP), ("other-beta", "2", LP), flavor="default"),
        local_queues=OTHER_LQS[:2],
    )
    assert out.preempted == {"eng-alpha/a1": "InClusterQueue", "eng-beta/b1": "InClusterQueue"}
    msg = (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
        "2 more needed. Pending the preemption of 1 workload(s)"
    )
    assert out.pending == {"eng-alpha/preemptor": ("Pending", msg), "eng-beta/preemptor": ("Pending", msg)}
    assert out.left == {"other-alpha": ["eng-alpha/preemptor"], "other-beta": ["eng-beta/preemptor"]}


def test_multiple_preemptions_preemption_possible_after_earlier_workload_fits() -> None:
    out = one_cycle(
        [
            _held("b1", "eng-beta", "other-beta", "2", 0, "default"),
            W("fit", "eng-alpha", "other", {CPU: "1"}, priority=100),
            W("preemptor", "eng-beta", "other", {CPU: "2"}, priority=99),
        ],
        cluster_queues=_others(("other-alpha", "1", LP), ("other-beta", "2", LP), flavor="default"),
        local_queues=OTHER_LQS[:2],
    )
    assert out.reserved["eng-alpha/fit"] == ("other-alpha", {"main": {CPU: "default"}})
    assert out.preempted == {"eng-beta/b1": "InClusterQueue"}
    assert out.pending == {
        "eng-beta/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
            "1 more needed. Pending the preemption of 1 workload(s)",
        )
    }
    assert out.left == {"other-beta": ["eng-beta/preemptor"]}


def test_multiple_preemptions_skip_preemption_when_shared_limited_resource() -> None:
    from .upstream_tables import cq, r

    out = one_cycle(
        [
            _held("a1", "eng-alpha", "other-alpha", "2", 0, "default"),
            _held("b1", "eng-beta", "other-beta", "2", 0, "default"),
            W("preemptor", "eng-alpha", "other", {CPU: "3"}, priority=100),
            W("pretending-preemptor", "eng-beta", "other", {CPU: "3"}, priority=99),
        ],
        cluster_queues=[
            *_others(("other-alpha", "2", LP_BWC), ("other-beta", "2", LP_BWC), flavor="default"),
            cq("resource-bank", [("default", [r(CPU, "1")])], cohort="other"),
        ],
        local_queues=OTHER_LQS[:2],
    )
    assert out.preempted == {"eng-alpha/a1": "InClusterQueue"}
    assert out.pending == {
        "eng-alpha/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for "
            "cpu in flavor default, 2 more needed. Pending the preemption of 1 workload(s)",
        ),
        "eng-beta/pretending-preemptor": (
            "Pending",
            "Workload no longer fits after processing another workload",
        ),
    }
    assert out.left == {
        "other-alpha": ["eng-alpha/preemptor"],
        "other-beta": ["eng-beta/pretending-preemptor"],
    }


LP_LP = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"}


def _gpu(
    name: str, ns: str, cq_name: str, flavor: str, gpu: str, priority: int | None = None, q: str = "other"
) -> W:
    return W(
        name, ns, q, {"gpu": gpu}, priority=priority, admitted_to=cq_name, assignment=[{"gpu": (flavor, gpu)}]
    )


def _gpu_queues(alpha_pre: dict | None, beta_pre: dict | None) -> dict:
    from .upstream_tables import cq, r

    return {
        "cluster_queues": [
            cq(
                "other-alpha",
                [("on-demand", [r("gpu", "10")]), ("spot", [r("gpu", "10")])],
                cohort="other",
                preemption=alpha_pre,
            ),
            cq(
                "other-beta",
                [("on-demand", [r("gpu", "0")]), ("spot", [r("gpu", "0")])],
                cohort="other",
                preemption=beta_pre,
            ),
        ],
        "local_queues": OTHER_LQS[:2],
    }


def test_prefer_reclamation_over_cq_priority_based_preemption() -> None:
    out = one_cycle(
        [
            _gpu("a1", "eng-alpha", "other-alpha", "on-demand", "5", 50),
            _gpu("b1", "eng-beta", "other-beta", "spot", "5", 50),
            W("preemptor", "eng-alpha", "other", {"gpu": "6"}, priority=100),
        ],
        **_gpu_queues(LP_LP, LP_LP),
    )
    assert out.preempted == {"eng-beta/b1": "InCohortReclamation"}
    assert out.pending == {
        "eng-alpha/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, "
            "1 more needed, insufficient unused quota for gpu in flavor spot, 1 more needed. "
            "Pending the preemption of 1 workload(s)",
        )
    }
    assert out.left == {"other-alpha": ["eng-alpha/preemptor"]}


def test_prefer_first_preemption_flavor_when_second_requires_both_reclaim_and_cq_priority_preemption() -> (
    None
):
    out = one_cycle(
        [
            _gpu("a1", "eng-alpha", "other-alpha", "on-demand", "5", 50),
            _gpu("a2", "eng-alpha", "other-alpha", "spot", "5", 50),
            _gpu("b1", "eng-beta", "other-beta", "spot", "5", 50),
            W("preemptor", "eng-alpha", "other", {"gpu": "6"}, priority=100),
        ],
        **_gpu_queues(LP_LP, None),
    )
    assert out.preempted == {"eng-alpha/a1": "InClusterQueue"}
    assert out.pending["eng-alpha/preemptor"] == (
        "Pending",
        "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, "
        "1 more needed, insufficient unused quota for gpu in flavor spot, 6 more needed. "
        "Pending the preemption of 1 workload(s)",
    )


def test_prefer_first_preemption_flavor_when_second_flavor_also_requires_cq_preemption() -> None:
    out = one_cycle(
        [
            _gpu("a1", "eng-alpha", "other-alpha", "on-demand", "6", 50),
            _gpu("a2", "eng-alpha", "other-alpha", "spot", "5", 50),
            _gpu("b1", "eng-beta", "other-beta", "spot", "5", 9001),
            W("preemptor", "eng-alpha", "other", {"gpu": "5"}, priority=100),
        ],
        **_gpu_queues(LP_LP, None),
    )
    assert out.preempted == {"eng-alpha/a1": "InClusterQueue"}
    assert out.pending["eng-alpha/preemptor"] == (
        "Pending",
        "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, "
        "1 more needed, insufficient unused quota for gpu in flavor spot, 5 more needed. "
        "Pending the preemption of 1 workload(s)",
    )


def test_workload_requiring_reclamation_prioritized_over_workload_in_another_full_cq() -> None:
    """Upstream's CQ1..CQ3 and WL1, WL2, Admitted-Workload-N are lowercased (object names)."""
    from .upstream_tables import cq, r

    cqs = [
        cq("cq1", [("on-demand", [r("gpu", "10")])], cohort="other"),
        cq(
            "cq2",
            [("on-demand", [r("gpu", "10")])],
            cohort="other",
            preemption={"reclaimWithinCohort": "Any"},
        ),
        cq("cq3", [("on-demand", [r("gpu", "0")])], cohort="other"),
    ]
    out = one_cycle(
        [
            _gpu("admitted-workload-1", "eng-alpha", "cq1", "on-demand", "5", q="lq"),
            W("wl1", "eng-alpha", "lq", {"gpu": "10"}),
            W("wl2", "eng-beta", "lq", {"gpu": "10"}, later=1),
            _gpu("admitted-workload-2", "eng-gamma", "cq3", "on-demand", "5", 0, q="lq"),
            _gpu("admitted-workload-3", "eng-gamma", "cq3", "on-demand", "5", 1, q="lq"),
        ],
        cluster_queues=cqs,
        local_queues=[("lq", "eng-alpha", "cq1"), ("lq", "eng-beta", "cq2"), ("lq", "eng-gamma", "cq3")],
    )
    assert out.preempted == {"eng-gamma/admitted-workload-2": "InCohortReclamation"}
    assert out.pending == {
        "eng-alpha/wl1": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for gpu "
            "in flavor on-demand, 5 more needed",
        ),
        "eng-beta/wl2": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for gpu "
            "in flavor on-demand, 5 more needed. Pending the preemption of 1 workload(s)",
        ),
    }
    assert out.left == {"cq2": ["eng-beta/wl2"]}
    assert out.inadmissible == {"cq1": ["eng-alpha/wl1"]}


def _ab(reclaim: str) -> dict:
    from .upstream_tables import cq, r

    return {
        "cluster_queues": [
            cq(
                "clusterqueuea",
                [("on-demand", [r("gpu", "2")])],
                cohort="root",
                preemption={"reclaimWithinCohort": reclaim},
            ),
            cq("clusterqueueb", [("on-demand", [r("gpu", "0")])], cohort="root"),
        ],
        "local_queues": [("lq", "eng-alpha", "clusterqueuea"), ("lq", "eng-beta", "clusterqueueb")],
    }


def _ab_workloads() -> list[W]:
    return [
        _gpu("a1-admitted", "eng-alpha", "clusterqueuea", "on-demand", "1", q="lq"),
        W("a2-pending", "eng-alpha", "lq", {"gpu": "2"}),
        W("b1-pending", "eng-beta", "lq", {"gpu": "1"}),
    ]


def test_capacity_not_blocked_when_lending_cluster_queue_can_reclaim() -> None:
    """Upstream's ClusterQueueA/B lowercased."""
    out = one_cycle(_ab_workloads(), **_ab("Any"))
    assert out.reserved["eng-beta/b1-pending"] == ("clusterqueueb", {"main": {"gpu": "on-demand"}})
    assert out.pending == {
        "eng-alpha/a2-pending": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for gpu in flavor on-demand, "
            "1 more needed",
        )
    }
    assert out.left == {}
    assert out.inadmissible == {"clusterqueuea": ["eng-alpha/a2-pending"]}


def test_capacity_blocked_when_lending_cluster_queue_not_guaranteed_to_reclaim() -> None:
    """Both upstream cases, ReclaimWithinCohort=LowerPriority and =Never."""
    for reclaim in ("LowerPriority", "Never"):
        out = one_cycle(_ab_workloads(), **_ab(reclaim))
        assert set(out.reserved) == {"eng-alpha/a1-admitted"}, reclaim
        assert out.pending == {
            "eng-alpha/a2-pending": (
                "Pending",
                "couldn't assign flavors to pod set main: insufficient unused quota "
                "for gpu in flavor on-demand, 1 more needed",
            ),
            "eng-beta/b1-pending": ("Pending", "Workload no longer fits after processing another workload"),
        }, reclaim
        assert out.left == {"clusterqueueb": ["eng-beta/b1-pending"]}, reclaim
        assert out.inadmissible == {"clusterqueuea": ["eng-alpha/a2-pending"]}, reclaim


def test_in_a_hierarchical_cohort_workload_borrowing_less_is_scheduled_first() -> None:
    from .upstream_tables import cohort, cq, r

    out = one_cycle(
        [
            W("guaranteed", "eng-alpha", "lq-guaranteed", pod_sets=[("one", 1, {CPU: "4"})], priority=0),
            W("best-effort", "eng-alpha", "lq-best-effort", pod_sets=[("one", 1, {CPU: "4"})], priority=3),
        ],
        cohorts=[cohort("root"), cohort("guaranteed", "root", [("default", [r(CPU, "4")])])],
        cluster_queues=[
            cq("guaranteed", [("default", [r(CPU, "0")])], cohort="guaranteed"),
            cq("best-effort", [("default", [r(CPU, "0")])], cohort="root"),
        ],
        local_queues=[
            ("lq-guaranteed", "eng-alpha", "guaranteed"),
            ("lq-best-effort", "eng-alpha", "best-effort"),
        ],
    )
    assert out.reserved == {"eng-alpha/guaranteed": ("guaranteed", {"one": {CPU: "default"}})}
    assert out.pending == {
        "eng-alpha/best-effort": ("Pending", "Workload no longer fits after processing another workload")
    }
    assert out.left == {"best-effort": ["eng-alpha/best-effort"]}


def test_do_not_assign_flavor_if_there_are_no_candidates_for_preemption() -> None:
    from .upstream_tables import cq, r

    cq1 = cq(
        "cq1",
        [("on-demand", [r(CPU, "0", "1")]), ("spot", [r(CPU, "0", "1")])],
        cohort="cohort",
        preemption={
            "withinClusterQueue": "LowerPriority",
            "reclaimWithinCohort": "Any",
            "borrowWithinCohort": {"policy": "LowerPriority"},
        },
    )
    cq1["spec"]["flavorFungibility"] = {"whenCanPreempt": "MayStopSearch", "whenCanBorrow": "MayStopSearch"}
    cq2 = cq("cq2", [("on-demand", [r(CPU, "1")]), ("spot", [r(CPU, "1")])], cohort="cohort")
    out = one_cycle(
        [
            W(
                "admitted",
                "eng-alpha",
                "lq2",
                {CPU: "1"},
                priority=0,
                admitted_to="cq2",
                assignment=[{CPU: ("on-demand", "1")}],
            ),
            W("new", "eng-alpha", "lq1", {CPU: "1"}, priority=100),
        ],
        cluster_queues=[cq1, cq2],
        local_queues=[("lq1", "eng-alpha", "cq1"), ("lq2", "eng-alpha", "cq2")],
    )
    assert out.reserved["eng-alpha/new"] == ("cq1", {"main": {CPU: "spot"}})
    assert out.preempted == {}


def _variable(
    name: str, ns: str, q: str, count: int, minimum: int, requests: dict, priority: int | None = None
) -> W:
    x = W(name, ns, q, pod_sets=[("one", count, requests)], priority=priority)
    doc = x.doc
    x.doc = lambda: _with_min(doc(), minimum)  # type: ignore[method-assign]
    return x


def _with_min(doc: dict, minimum: int) -> dict:
    doc["spec"]["podSets"][0]["minCount"] = minimum
    return doc


def test_partial_admission_single_variable_pod_set() -> None:
    """Upstream's "partial admission multiple variable pod sets" and "... disabled, multiple variable
    pod sets" are left out: the Workload webhook refuses more than one pod set with minCount."""
    out = one_cycle([_variable("new", "sales", "main", 50, 20, {CPU: "2"})])
    assert out.reserved == {"sales/new": ("sales", {"one": {CPU: "default"}})}
    assert out.counts == {"sales/new": {"one": 25}}


def test_partial_admission_single_variable_pod_set_preempt_first() -> None:
    for count in (20, 30):  # "..., preempt first" and "..., preempt with partial admission"
        out = one_cycle(
            [
                _variable("new", "eng-beta", "main", count, 10, {"example.com/gpu": "1"}, priority=4),
                W(
                    "old",
                    "eng-beta",
                    pod_sets=[("one", 10, {"example.com/gpu": "1"})],
                    priority=-4,
                    admitted_to="eng-beta",
                    assignment=[{"example.com/gpu": ("model-a", "10")}],
                ),
            ]
        )
        assert out.preempted == {"eng-beta/old": "InClusterQueue"}, count
        assert out.pending == {
            "eng-beta/new": (
                "Pending",
                "couldn't assign flavors to pod set one: insufficient unused quota for example.com/gpu in "
                "flavor model-a, 10 more needed. Pending the preemption of 1 workload(s)",
            )
        }, count
        assert out.left == {"eng-beta": ["eng-beta/new"]}, count


def test_admit_to_second_flavor_when_first_needs_preemption_when_can_preempt_try_next_flavor() -> None:
    from .upstream_tables import cq, r

    q = cq(
        "preempt-attempts-cq",
        [("on-demand", [r(CPU, "1")]), ("spot", [r(CPU, "1")])],
        preemption={"withinClusterQueue": "LowerPriority"},
    )
    q["spec"]["flavorFungibility"] = {"whenCanPreempt": "TryNextFlavor"}
    out = one_cycle(
        [
            W(
                "blocker",
                "eng-alpha",
                "preempt-attempts-lq",
                {CPU: "1"},
                priority=50,
                admitted_to="preempt-attempts-cq",
                assignment=[{CPU: ("on-demand", "1")}],
            ),
            W("test-wl", "eng-alpha", "preempt-attempts-lq", {CPU: "1"}, priority=100),
        ],
        cluster_queues=[q],
        local_queues=[("preempt-attempts-lq", "eng-alpha", "preempt-attempts-cq")],
    )
    assert out.reserved["eng-alpha/test-wl"] == ("preempt-attempts-cq", {"main": {CPU: "spot"}})
    assert out.preempted == {}


def test_admit_workload_with_zero_quantity_request_for_resource_not_in_cluster_queue() -> None:
    out = one_cycle([W("zero-resource-wl", "sales", "main", {CPU: "1", "example.com/gpu": "0"})])
    assert out.reserved == {"sales/zero-resource-wl": ("sales", {"main": {CPU: "default"}})}


def test_preempt_when_workload_requests_zero_of_a_resource_not_defined_in_cluster_queue() -> None:
    from .upstream_tables import cq, r

    q = cq(
        "preempt-zero-gpu-cq",
        [("default", [r(CPU, "4")])],
        preemption={"withinClusterQueue": "LowerPriority"},
    )
    out = one_cycle(
        [
            W("preemptor", "sales", "preempt-zero-gpu-lq", {CPU: "2", "example.com/gpu": "0"}),
            W(
                "low-priority",
                "sales",
                "preempt-zero-gpu-lq",
                {CPU: "4"},
                priority=-1,
                admitted_to="preempt-zero-gpu-cq",
                assignment=[{CPU: ("default", "4")}],
            ),
        ],
        cluster_queues=[q],
        local_queues=[("preempt-zero-gpu-lq", "sales", "preempt-zero-gpu-cq")],
    )
    assert out.preempted == {"sales/low-priority": "InClusterQueue"}
    assert out.pending == {
        "sales/preemptor": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
            "2 more needed. Pending the preemption of 1 workload(s)",
        )
    }
    assert out.left == {"preempt-zero-gpu-cq": ["sales/preemptor"]}
    # upstream's wantEvents; the Warning's reason is "Pending" with UnadmittedWorkloadsObservability
    # off (AdjustEventsForDisabledObservabilityInScheduler)
    assert out.events["sales/low-priority"] == [("Normal", "EvictedDueToPreempted"), ("Normal", "Preempted")]
    assert out.events["sales/preemptor"] == [("Normal", "PreemptedWorkload"), ("Warning", "Pending")]


def _preference(prefix: str, preference: str) -> dict:
    from .upstream_tables import cq, r

    q = cq(
        f"{prefix}-cq",
        [("on-demand", [r(CPU, "5", "0")]), ("spot", [r(CPU, "0", "5")])],
        cohort=f"{prefix}-cohort",
        preemption={"withinClusterQueue": "LowerPriority"},
    )
    q["spec"]["flavorFungibility"] = {
        "whenCanBorrow": "TryNextFlavor",
        "whenCanPreempt": "TryNextFlavor",
        "preference": preference,
    }
    lender = cq(
        f"{prefix}-lender", [("on-demand", [r(CPU, "0")]), ("spot", [r(CPU, "5")])], cohort=f"{prefix}-cohort"
    )
    return {"cluster_queues": [q, lender], "local_queues": [(f"{prefix}-queue", "default", f"{prefix}-cq")]}


def test_preemption_over_borrowing_preference_preempts_in_first_flavor_instead_of_borrowing_in_second() -> (
    None
):
    out = one_cycle(
        [
            W(
                "low-pob",
                "default",
                "pob-queue",
                {CPU: "5"},
                priority=-1,
                admitted_to="pob-cq",
                assignment=[{CPU: ("on-demand", "5")}],
            ),
            W("high-pob", "default", "pob-queue", {CPU: "5"}, priority=0),
        ],
        **_preference("pob", "PreemptionOverBorrowing"),
    )
    assert out.preempted == {"default/low-pob": "InClusterQueue"}
    assert out.pending == {
        "default/high-pob": (
            "Pending",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
            "5 more needed. Pending the preemption of 1 workload(s)",
        )
    }
    assert out.left == {"pob-cq": ["default/high-pob"]}


def test_borrowing_over_preemption_preference_borrows_in_second_flavor_instead_of_preempting_in_first() -> (
    None
):
    out = one_cycle(
        [
            W(
                "low-bop",
                "default",
                "bop-queue",
                {CPU: "5"},
                priority=-1,
                admitted_to="bop-cq",
                assignment=[{CPU: ("on-demand", "5")}],
            ),
            W("high-bop", "default", "bop-queue", {CPU: "5"}, priority=0),
        ],
        **_preference("bop", "BorrowingOverPreemption"),
    )
    assert out.preempted == {}
    assert out.reserved["default/high-bop"] == ("bop-cq", {"main": {CPU: "spot"}})


def test_preemption_over_borrowing_prefers_a_fitting_second_flavor_to_one_without_candidates() -> None:
    """Upstream: "PreemptionOverBorrowing preference: select fitting second flavor over first flavor
    with no preemption candidates"."""
    from .upstream_tables import cohort, cq, r

    q = cq(
        "nopc-cq",
        [("on-demand", [r(CPU, "5", "0")]), ("spot", [r(CPU, "0")])],
        cohort="nopc-mid",
        preemption={"withinClusterQueue": "LowerPriority"},
    )
    q["spec"]["flavorFungibility"] = {
        "whenCanBorrow": "TryNextFlavor",
        "whenCanPreempt": "TryNextFlavor",
        "preference": "PreemptionOverBorrowing",
    }
    sibling = cq("nopc-sibling", [("on-demand", [r(CPU, "5")]), ("spot", [r(CPU, "0")])], cohort="nopc-mid")
    out = one_cycle(
        [
            W(
                "admitted-nopc",
                "default",
                "nopc-queue",
                {CPU: "5"},
                priority=0,
                admitted_to="nopc-cq",
                assignment=[{CPU: ("on-demand", "5")}],
            ),
            W("pending-nopc", "default", "nopc-queue", {CPU: "5"}, priority=0),
        ],
        cohorts=[
            cohort("nopc-root", None, [("on-demand", [r(CPU, "0")]), ("spot", [r(CPU, "5")])]),
            cohort("nopc-mid", "nopc-root"),
        ],
        cluster_queues=[q, sibling],
        local_queues=[("nopc-queue", "default", "nopc-cq")],
    )
    assert out.reserved["default/pending-nopc"] == ("nopc-cq", {"main": {CPU: "spot"}})
    assert out.preempted == {}


def test_hierarchical_cohort_respects_lending_limit_when_borrowing() -> None:
    for lending, request, admitted in (("3", "4", False), ("5", "5", True)):  # ... allows borrowing up to it
        from .upstream_tables import cohort, cq, r

        lender = cq("cq-lender", [("on-demand", [r(CPU, "10", None, lending)])], cohort="child")
        borrower = cq("cq-borrower", [("on-demand", [r(CPU, "5", "10")])], cohort="child")
        for doc in (lender, borrower):
            doc["spec"]["namespaceSelector"] = {
                "matchExpressions": [{"key": "dep", "operator": "In", "values": ["eng"]}]
            }
        out = one_cycle(
            [
                W(
                    "wl-existing",
                    "eng-alpha",
                    requests={CPU: "5"},
                    admitted_to="cq-borrower",
                    assignment=[{CPU: ("on-demand", "5")}],
                ),
                W("wl-pending", "eng-alpha", "lq-borrower", {CPU: request}),
            ],
            cohorts=[cohort("root"), cohort("child", "root")],
            cluster_queues=[lender, borrower],
            local_queues=[
                ("lq-lender", "eng-alpha", "cq-lender"),
                ("lq-borrower", "eng-alpha", "cq-borrower"),
            ],
        )
        if admitted:
            assert out.reserved["eng-alpha/wl-pending"] == ("cq-borrower", {"main": {CPU: "on-demand"}})
        else:
            assert out.pending == {
                "eng-alpha/wl-pending": (
                    "Pending",
                    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                    "on-demand, 1 more needed",
                )
            }
            assert out.inadmissible == {"cq-borrower": ["eng-alpha/wl-pending"]}


def test_no_overadmission_while_borrowing() -> None:
    from .upstream_tables import cq, r

    gamma = cq(
        "eng-gamma",
        [("on-demand", [r(CPU, "50", "10")]), ("spot", [r(CPU, "0", "100")])],
        cohort="eng",
        preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
    )
    out = one_cycle(
        [
            W(
                "existing",
                "eng-gamma",
                pod_sets=[("borrow-on-demand", 51, {CPU: "1"}), ("use-all-spot", 100, {CPU: "1"})],
                admitted_to="eng-gamma",
                assignment=[{CPU: ("on-demand", "51")}, {CPU: ("spot", "100")}],
            ),
            W("new", "eng-beta", "main", pod_sets=[("one", 50, {CPU: "1"})]),
            W("new-alpha", "eng-alpha", "main", pod_sets=[("one", 1, {CPU: "1"})], later=1),
            W("new-gamma", "eng-gamma", "main", pod_sets=[("one", 50, {CPU: "1"})], later=1),
        ],
        cluster_queues=[gamma],
        local_queues=[("main", "eng-gamma", "eng-gamma")],
    )
    assert set(out.reserved) == {"eng-gamma/existing", "eng-beta/new", "eng-alpha/new-alpha"}
    assert out.pending == {
        "eng-gamma/new-gamma": (
            "Pending",
            "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor on-demand, "
            "41 more needed, insufficient unused quota for cpu in flavor spot, 50 more needed",
        )
    }
    assert out.inadmissible == {"eng-gamma": ["eng-gamma/new-gamma"]}


def test_not_enough_resources() -> None:
    out = one_cycle([W("new", "sales", "main", pod_sets=[("one", 1, {CPU: "100"})])])
    assert out.pending == {
        "sales/new": (
            "Pending",
            "couldn't assign flavors to pod set one: insufficient quota for cpu in flavor default, "
            "previously considered podsets requests (0) + current podset request (100) > "
            "maximum capacity (50)",
        )
    }
    assert out.left == {"sales": ["sales/new"]}


def test_container_resource_requests_exceed_limits() -> None:
    out = one_cycle([W("new", "sales", "main", pod_sets=[("one", 1, {CPU: "200m"})], limits={CPU: "100m"})])
    assert out.pending == {
        "sales/new": (
            "Pending",
            "resources validation failed: spec.podSets[0].template.spec.containers[0]: "
            'Invalid value: ["cpu"]: requests must not exceed its limits',
        )
    }
    assert out.left == {"sales": ["sales/new"]}
    assert out.events["sales/new"] == [("Warning", "Pending")]


def _overflow(quota_cpu: str, pod_sets: list[tuple[str, int, dict[str, str]]]) -> CycleOutcome:
    from .upstream_tables import cq, r

    return one_cycle(
        [W("vuln-wl", "default", "overflow-queue", pod_sets=pod_sets)],
        cluster_queues=[cq("overflow-cq", [("default", [r(CPU, quota_cpu)])])],
        local_queues=[("overflow-queue", "default", "overflow-cq")],
    )


def test_prevent_integer_overflow_when_sum_of_requests_over_podsets_exceeds_maxint64() -> None:
    out = _overflow("10000", [("ps1", 1, {CPU: "1000000m"}), ("ps2", 1, {CPU: "9223372036854775000m"})])
    assert out.reserved == {}
    assert out.inadmissible == {"overflow-cq": ["default/vuln-wl"]}
    assert out.pending == {
        "default/vuln-wl": (
            "Pending",
            "couldn't assign flavors to pod set ps2: insufficient quota for cpu in flavor default, "
            "previously considered podsets requests (1k) + current podset request (9223372036854775) > "
            "maximum capacity (10k)",
        )
    }
    assert out.events["default/vuln-wl"] == [("Warning", "Pending")]


def test_prevent_integer_overflow_in_resourcevalue_conversion_to_millivalue() -> None:
    """The outcome is upstream's; the message is not: upstream clamps the request to MaxInt64
    milli-cores (``resources.ResourceValue``, "9223372036854775807m"), kbatch's integers keep the
    request exact ("9223372036854776") — see docs/kueue.md, differences."""
    out = _overflow("10", [("ps1", 1, {CPU: "9223372036854776"})])
    assert out.reserved == {}
    assert out.inadmissible == {"overflow-cq": ["default/vuln-wl"]}
    reason, message = out.pending["default/vuln-wl"]
    assert reason == "Pending"
    assert message.startswith(
        "couldn't assign flavors to pod set ps1: insufficient quota for cpu in flavor default, previously "
        "considered podsets requests (0) + current podset request ("
    )
    assert message.endswith(") > maximum capacity (10)")
    assert out.events["default/vuln-wl"] == [("Warning", "Pending")]


def test_use_second_flavor_when_the_first_has_no_preemption_candidates_may_stop_search() -> None:
    """Upstream: "use second flavor when the first has no preemption candidates; WhenCanPreempt:
    MayStopSearch" (its borrowing limits on a queue without a cohort are dropped: an API server refuses
    them, and without a cohort they change nothing)."""
    from .upstream_tables import cq, r

    other = cq(
        "other-alpha",
        [("on-demand", [r(CPU, "50")]), ("spot", [r(CPU, "100")])],
        preemption={"withinClusterQueue": "LowerPriority"},
    )
    other["spec"]["flavorFungibility"] = {"whenCanPreempt": "MayStopSearch"}
    out = one_cycle(
        [
            W("admitted", "eng-alpha", "other", {CPU: "50"}, admitted_to="other-alpha",
              assignment=[{CPU: ("on-demand", "50")}]),
            W("new", "eng-alpha", "other", {CPU: "20"}),
        ],
        cluster_queues=[other],
        local_queues=[("other", "eng-alpha", "other-alpha")],
    )
    assert out.reserved["eng-alpha/new"] == ("other-alpha", {"main": {CPU: "spot"}})
    assert out.counts["eng-alpha/new"] == {"main": 1}
