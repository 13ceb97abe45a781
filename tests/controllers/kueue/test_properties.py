"""Hypothesis properties of Kueue's quota model, through the whole manager on random queues and
workloads: admitted usage never exceeds nominal quota plus borrowing limit, a cohort never lends
more than its members may lend, the ClusterQueue status reports what the workloads hold, no
preemptible lower-priority workload starves a higher-priority one, and the same inputs give the
same trace. Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/resource_node.go``
(available = guaranteed + the parent's available, capped by the borrowing limit),
``pkg/scheduler/preemption/preemption_test.go`` and ``scheduler_test.go``."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

QUEUE = st.fixed_dictionaries({
    "nominal": st.integers(0, 6),
    "borrowing": st.one_of(st.none(), st.integers(0, 4)),
    "lending": st.one_of(st.none(), st.integers(0, 6)),
    "within": st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]),
    "reclaim": st.sampled_from(["Never", "LowerPriority", "Any"]),
    "strategy": st.sampled_from(["BestEffortFIFO", "StrictFIFO"]),
})
STEP = st.one_of(
    st.tuples(st.just("create"), st.integers(0, 2), st.integers(1, 5), st.integers(0, 3)),
    st.tuples(st.just("finish"), st.integers(0, 20), st.just(0), st.just(0)),
    st.tuples(st.just("wait"), st.just(0), st.just(0), st.just(0)),
)
SCENARIO = st.tuples(st.lists(QUEUE, min_size=1, max_size=3), st.booleans(), st.lists(STEP, max_size=10))
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _world(queues: list[dict], cohort: bool, seed: int = 1) -> World:
    objects = [flavor("default")]
    for i, q in enumerate(queues):
        lending = min(q["lending"], q["nominal"]) if q["lending"] is not None and cohort else None
        borrowing = q["borrowing"] if cohort else None
        objects.append(cluster_queue(
            f"cq{i}", (["cpu"], [("default", [quota("cpu", str(q["nominal"]),
                                                     None if borrowing is None else str(borrowing),
                                                     None if lending is None else str(lending))])]),
            cohort="team" if cohort else None, queueingStrategy=q["strategy"],
            preemption={"withinClusterQueue": q["within"], "reclaimWithinCohort": q["reclaim"]}))
        objects.append(local_queue(f"lq{i}", f"cq{i}"))
    return World(*objects, seed=seed)


def _run(w: World, queues: list[dict], steps: list[tuple], check: bool, cohort: bool) -> None:
    created = 0
    for action, a, b, c in steps:
        if action == "create":
            idx = a % len(queues)
            w.apply(workload(f"w{created}", f"lq{idx}", cpu=str(b), priority=c))
            created += 1
        elif action == "finish":
            admitted = sorted(set(w.names_where("Admitted")) - set(w.names_where("Finished")))
            if admitted:
                w.finish(admitted[a % len(admitted)])
        w.settle(rounds=2)
        if check:
            _check_limits(w, queues, cohort)
    if check:
        w.settle()
        _check_limits(w, queues, cohort)
        _check_status(w, queues)
        if not cohort:
            _check_no_starvation(w, queues)


def _check_limits(w: World, queues: list[dict], cohort: bool) -> None:
    usage = w.usage()
    borrowed = lendable = 0
    for i, q in enumerate(queues):
        used = usage.get(f"cq{i}", 0)
        nominal = q["nominal"] * 1000
        if not cohort:
            assert used <= nominal, (f"cq{i}", used, nominal)
            continue
        if q["borrowing"] is not None:
            assert used <= nominal + q["borrowing"] * 1000, (f"cq{i}", used, q)
        lending = min(q["lending"], q["nominal"]) * 1000 if q["lending"] is not None else nominal
        guaranteed = nominal - lending
        borrowed += max(0, used - guaranteed)
        lendable += lending
    assert borrowed <= lendable, (usage, queues)


def _check_status(w: World, queues: list[dict]) -> None:
    usage = w.usage()
    for i in range(len(queues)):
        status = w.cq(f"cq{i}").status
        total = 0
        for fu in (status.flavors_reservation if status else None) or ():
            for r in fu.resources or ():
                if fu.name == "default" and r.name == "cpu":
                    total += r.total.milli_value()
        assert total == usage.get(f"cq{i}", 0), (f"cq{i}", total, usage)


def _check_no_starvation(w: World, queues: list[dict]) -> None:
    """Alone in its ClusterQueue with preemption of lower priorities, the first pending workload
    (highest priority, then oldest) cannot be admitted even by evicting every lower-priority one."""
    usage = w.usage()
    for i, q in enumerate(queues):
        if q["within"] == "Never":
            continue
        mine = [x for x in w.cp.client.list(w.wl_model()).items if x.spec.queue_name == f"lq{i}"]
        pending = [x for x in mine if not _held(x) and not _finished(x)]
        if not pending:
            continue
        head = min(pending, key=lambda x: (-(x.spec.priority or 0), x.metadata.creation_timestamp,
                                           x.metadata.name))
        need = _cpu(head)
        if need > q["nominal"] * 1000:
            continue
        lower = sum(_cpu(x) for x in mine if _held(x) and (x.spec.priority or 0) < (head.spec.priority or 0))
        free = q["nominal"] * 1000 - usage.get(f"cq{i}", 0)
        assert free + lower < need, (head.metadata.name, need, free, lower)


def _held(wl) -> bool:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == "QuotaReserved" and c.status == "True":
            return not _finished(wl)
    return False


def _finished(wl) -> bool:
    conditions = (wl.status.conditions if wl.status else None) or ()
    return any(c.type == "Finished" and c.status == "True" for c in conditions)


def _cpu(wl) -> int:
    return sum(c.resources.requests["cpu"].milli_value() * (ps.count or 1)
               for ps in wl.spec.pod_sets for c in ps.template.spec.containers)


_SOLO = {"borrowing": None, "lending": None, "reclaim": "Never", "strategy": "BestEffortFIFO"}


@SETTINGS
@given(SCENARIO)
@example(([{**_SOLO, "nominal": 5, "within": "LowerOrNewerEqualPriority"}], False,
          [("create", 0, 1, 0), ("finish", 0, 0, 0)]))  # a finished workload is not pending
def test_admitted_usage_stays_within_nominal_borrowing_and_lending_limits(scenario) -> None:
    queues, cohort, steps = scenario
    _run(_world(queues, cohort), queues, steps, check=True, cohort=cohort)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCENARIO)
def test_same_inputs_give_the_same_trace(scenario) -> None:
    queues, cohort, steps = scenario
    digests = []
    for _ in range(2):
        w = _world(queues, cohort, seed=7)
        _run(w, queues, steps, check=False, cohort=cohort)
        digests.append(w.cp.trace.digest())
    assert digests[0] == digests[1]
