"""The nomination memo changes no output: random worlds run with it and without it, byte for byte.

``scheduling/nomination_memo.py`` hands a head the nomination it got in an earlier cycle when nothing
nomination reads has changed. Upstream (kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler.go``
``nominate``) nominates afresh every cycle, so the memo is acceptable only if it is invisible: the
same admissions, flavors, preemption targets in the same order, status messages and reasons, and
events. Each scenario is a random cohort forest (explicit Cohorts with quotas and parents, implicit
ones), ClusterQueues with two flavors (one tainted and labelled), nominal/borrowing/lending limits,
preemption policies (``withinClusterQueue``, ``reclaimWithinCohort``, ``borrowWithinCohort`` with a
priority threshold), flavor fungibility, and a stream of workloads (priorities, counts with minimum
counts for partial admission, tolerations and node selectors) with finishes, deletions, quota
changes and time passing; it runs twice and the whole trace (every write, events included) must be
the same line for line.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import pickle
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.scheduling import cycle as cycle_mod
from kbatch.controllers.kueue.scheduling.assignment import (
    Assignment,
    Attempt,
    FlavorAssignment,
    LastState,
    PodSetAssignment,
    Status,
)
from kbatch.controllers.kueue.scheduling.nomination_memo import NominationMemo, copy_assignment
from kbatch.runtime.pickling import ImagePickler

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

KUEUE = "kueue.x-k8s.io/v1beta2"
LIMIT = st.one_of(st.none(), st.integers(0, 4))
QUEUE = st.fixed_dictionaries({
    "cohort": st.sampled_from([None, "a", "b", "c", "a1", "b1"]),
    "f0": st.tuples(st.integers(0, 6), LIMIT, LIMIT),
    "f1": st.one_of(st.none(), st.tuples(st.integers(0, 4), LIMIT, LIMIT)),
    "within": st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]),
    "reclaim": st.sampled_from(["Never", "LowerPriority", "Any"]),
    "borrow": st.sampled_from(["off", "any", 0, 3]),  # borrowWithinCohort: off, no threshold, threshold
    "borrow_ff": st.sampled_from(["MayStopSearch", "TryNextFlavor"]),
    "preempt_ff": st.sampled_from(["MayStopSearch", "TryNextFlavor"]),
    "strategy": st.sampled_from(["BestEffortFIFO", "StrictFIFO", "StrictFIFO"]),  # a head kept: renominated
})
COHORTS = st.fixed_dictionaries({
    "a1": st.sampled_from([None, "a"]),  # a1's parent (None: a root)
    "b1": st.sampled_from([None, "b", "a"]),
    "a_quota": st.one_of(st.none(), st.integers(0, 3)),
})
CREATE = st.tuples(st.just("create"), st.integers(0, 5), st.integers(1, 4), st.integers(0, 3),
                   st.integers(1, 3), st.booleans(), st.sampled_from([None, "tol", "sel"]))
STEP = st.one_of(
    CREATE, CREATE, CREATE,  # mostly workloads arriving: heads that wait are what the memo serves
    st.tuples(st.just("finish"), st.integers(0, 30)),
    st.tuples(st.just("delete"), st.integers(0, 30)),
    st.tuples(st.just("quota"), st.integers(0, 5), st.integers(0, 6)),
    st.tuples(st.just("wait"), st.sampled_from([0.0, 0.5, 2.0])),
    st.tuples(st.just("stop"), st.integers(0, 5), st.booleans()),
    st.tuples(st.just("taint"), st.booleans()),
    st.tuples(st.just("retry")),
    st.tuples(st.just("recreate"), st.integers(0, 30), st.integers(1, 4), st.integers(0, 3)),
)
# queues, cohorts, steps, fair sharing on
SCENARIO = st.tuples(st.lists(QUEUE, min_size=2, max_size=6), COHORTS,
                     st.lists(STEP, min_size=6, max_size=24),
                     st.booleans())
FAIR_SHARING = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare",
                                                         "LessThanInitialShare"]}}


def _group(q: dict[str, Any], f0_nominal: int | None = None) -> tuple[list[str], list[Any]]:
    flavors = []
    for name in ("f0", "f1"):
        spec = q[name]
        if spec is None:
            continue
        nominal, borrowing, lending = spec
        if name == "f0" and f0_nominal is not None:
            nominal = f0_nominal
        if q["cohort"] is None:
            borrowing = lending = None
        lending = None if lending is None else min(lending, nominal)
        flavors.append((name, [quota("cpu", str(nominal), None if borrowing is None else str(borrowing),
                                     None if lending is None else str(lending))]))
    return ["cpu"], flavors


def _cluster_queue(
    i: int, q: dict[str, Any], f0_nominal: int | None = None, stop: bool = False
) -> dict[str, Any]:
    preemption: dict[str, Any] = {"withinClusterQueue": q["within"], "reclaimWithinCohort": q["reclaim"]}
    if q["borrow"] != "off" and q["reclaim"] != "Never":  # the CRD requires reclaiming to borrow
        preemption["borrowWithinCohort"] = {"policy": "LowerPriority"} | (
            {"maxPriorityThreshold": q["borrow"]} if isinstance(q["borrow"], int) else {})
    return cluster_queue(
        f"cq{i}", _group(q, f0_nominal), cohort=q["cohort"], queueingStrategy=q["strategy"],
        preemption=preemption,
        flavorFungibility={"whenCanBorrow": q["borrow_ff"], "whenCanPreempt": q["preempt_ff"]},
        stopPolicy="Hold" if stop else "None",
    )


def _cohort(name: str, parent: str | None, nominal: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if nominal is not None:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"],
                                   "flavors": [{"name": "f0", "resources": [quota("cpu", str(nominal))]}]}]
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def _spot(tainted: bool) -> dict[str, Any]:
    return flavor("f1", labels={"pool": "spot"},
                  taints=[{"key": "spot", "value": "1", "effect": "NoSchedule"}] if tainted else None)


def _objects(queues: list[dict[str, Any]], cohorts: dict[str, Any]) -> list[Any]:
    objects: list[Any] = [
        flavor("f0"),
        _spot(True),
        _cohort("a", None, cohorts["a_quota"]),
        _cohort("a1", cohorts["a1"], None),
        _cohort("b1", cohorts["b1"], None),
    ]
    for i, q in enumerate(queues):
        objects.append(_cluster_queue(i, q))
        objects.append(local_queue(f"lq{i}", f"cq{i}"))
    return objects


def _workload(n: int, step: tuple[Any, ...], queues: int) -> dict[str, Any]:
    _, idx, cpu, priority, count, partial, placement = step
    doc = workload(
        f"w{n}", f"lq{idx % queues}", cpu=str(cpu), priority=priority, count=count,
        min_count=1 if partial and count > 1 else None,
        tolerations=[{"key": "spot", "operator": "Exists"}] if placement == "tol" else None,
        node_selector={"pool": "spot"} if placement == "sel" else None,
    )
    return doc


def _scheduler(w: World) -> Any:
    (controller,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    return controller.reconciler


def _checked(original: Any) -> Any:
    """``_assignments`` that also nominates afresh and asserts the two agree: every reuse is held to
    what upstream computes, not only those that change the trace."""

    def assignments(e: Any, cq: Any, inputs: Any) -> Any:
        got = original(e, cq, inputs)
        last = e.last
        if last is not None and cycle_mod._outdated(last, cq, inputs.cycle, e.info,
                                                    inputs.config.preserve_scan_progress):
            last = None
        fresh = cycle_mod._nominate_afresh(e, cq, last, inputs)
        assert got[0] == fresh[0], (e.info.key, got[0], fresh[0])
        assert [(t.info.key, t.info.uid, t.reason) for t in got[1]] == [
            (t.info.key, t.info.uid, t.reason) for t in fresh[1]], e.info.key
        assert all(a.info is b.info for a, b in zip(got[1], fresh[1], strict=True))
        return got

    return assignments


def _run(scenario: Any, memo: bool) -> tuple[list[str], str, NominationMemo]:
    if not memo:
        return _play(scenario, memo)
    with mock.patch.object(cycle_mod, "_assignments", _checked(cycle_mod._assignments)):
        return _play(scenario, memo)


def _play(scenario: Any, memo: bool) -> tuple[list[str], str, NominationMemo]:
    queues, cohorts, steps, fair = scenario
    w = World(*_objects(queues, cohorts), seed=3, kueue_config=FAIR_SHARING if fair else None)
    scheduler = _scheduler(w)
    scheduler.memo = NominationMemo(enabled=memo)
    created = 0
    nominal: dict[int, int | None] = {}
    stopped: dict[int, bool] = {}
    for step in steps:
        action = step[0]
        if action == "create":
            w.apply(_workload(created, step, len(queues)))
            created += 1
        elif action in ("finish", "delete"):
            live = sorted(set(w.names_where("Admitted")) - set(w.names_where("Finished")))
            every = sorted(wl.metadata.name or "" for wl in w.cp.client.list(Workload).items)
            names = live if action == "finish" else every
            if names:
                name = names[step[1] % len(names)]
                if action == "finish":
                    w.finish(name)
                else:
                    w.cp.client.delete(Workload, name, "default")
        elif action in ("quota", "stop"):
            idx = step[1] % len(queues)
            if action == "quota":
                nominal[idx] = step[2]
            else:
                stopped[idx] = step[2]
            w.apply(_cluster_queue(idx, queues[idx], nominal.get(idx), stopped.get(idx, False)))
        elif action == "recreate":  # a pending workload's name, another workload (new uid, requests)
            names = sorted(_pending(w))
            if names:
                name = names[step[1] % len(names)]
                queue = w.wl(name).spec.queue_name  # type: ignore[union-attr]
                w.cp.client.delete(Workload, name, "default")
                w.cp.run_until_idle()
                if name not in _pending(w):
                    w.apply(workload(name, queue or "lq0", cpu=str(step[2]), priority=step[3]))
        elif action == "retry":  # what an unrelated queue event does: inadmissible heads retried
            scheduler.mgr.notify_retry_inadmissible([f"cq{i}" for i in range(len(queues))])
            w.cp.run_until_idle()
        elif action == "taint":
            w.apply(_spot(step[1]))
        else:
            w.cp.advance(step[1])
        w.settle(rounds=2)
    w.settle()
    return w.cp.trace.lines(), w.cp.trace.digest(), scheduler.memo


def _pending(w: World) -> set[str]:
    """The workloads that exist and hold no quota."""
    every = {wl.metadata.name or "" for wl in w.cp.client.list(Workload).items}
    return every - set(w.names_where("QuotaReserved"))


def _first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"line {i}:\n with memo    {x}\n without memo {y}"
    return f"lengths {len(a)} != {len(b)}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCENARIO)
def test_the_memo_changes_no_write_event_or_decision(scenario: Any) -> None:
    with_lines, with_digest, memo = _run(scenario, memo=True)
    event("the memo was used" if memo.hits else "the memo was not used")  # --hypothesis-show-statistics
    without_lines, without_digest, _ = _run(scenario, memo=False)
    assert with_lines == without_lines, _first_difference(with_lines, without_lines)
    assert with_digest == without_digest


def test_the_memo_is_used_when_an_unrelated_cohort_changes() -> None:
    """Not vacuous: a head waiting in one cohort is not nominated again while only another cohort's
    workloads come and go."""
    base = {"f0": (2, None, None), "f1": None, "within": "Never", "reclaim": "Never", "borrow": "off",
            "borrow_ff": "MayStopSearch", "preempt_ff": "TryNextFlavor"}
    queues = [base | {"cohort": "a", "strategy": "BestEffortFIFO"},
              base | {"cohort": "b1", "strategy": "StrictFIFO"}]
    cohorts = {"a1": None, "b1": None, "a_quota": None}
    steps: list[tuple[Any, ...]] = [("create", 1, 2, 0, 1, False, None), ("create", 1, 2, 0, 1, False, None)]
    for i in range(4):
        steps += [("create", 0, 2, 0, 1, False, None), ("wait", 0.5), ("finish", i)]
    _, _, memo = _run((queues, cohorts, steps, False), memo=True)
    assert memo.hits > 0


def test_the_memo_is_not_saved_with_the_control_plane() -> None:
    """A later CLI process loads the image without the memo: nothing an earlier process kept can
    be matched against numbers (revisions) the loaded tree hands out again."""
    memo = NominationMemo()
    memo.hits = 3
    memo._entries["x"] = object()  # type: ignore[assignment]
    for dump in (pickle.dumps, _image):
        loaded = pickle.loads(dump(memo))
        assert loaded._entries == {} and loaded.hits == 0 and loaded.enabled
    assert not pickle.loads(_image(NominationMemo(enabled=False))).enabled


def _image(obj: Any) -> bytes:
    """As the CLI saves a control plane (``kbatch/runtime/pickling.py``)."""
    out = io.BytesIO()
    ImagePickler(out).dump(obj)
    return out.getvalue()


def test_a_workload_recreated_under_the_same_name_is_nominated_afresh() -> None:
    """The memo's entry is by workload key; the new workload (another uid, another request) must
    not get the old one's nomination while the tree stays the same."""
    base = {"f0": (2, None, None), "f1": None, "within": "Never", "reclaim": "Never", "borrow": "off",
            "borrow_ff": "MayStopSearch", "preempt_ff": "TryNextFlavor", "cohort": "a"}
    # BestEffortFIFO: w1 is nominated once, then waits in the inadmissible list with its entry
    queues = [base | {"strategy": "BestEffortFIFO"}, base | {"cohort": "b", "strategy": "BestEffortFIFO"}]
    cohorts = {"a1": None, "b1": None, "a_quota": None}
    steps: list[tuple[Any, ...]] = [
        ("create", 0, 2, 0, 1, False, None), ("create", 0, 2, 0, 1, False, None),
        ("recreate", 0, 1, 0), ("create", 1, 1, 0, 1, False, None),  # a new w1, nominated again
    ]
    with_lines, _, memo = _run((queues, cohorts, steps, False), memo=True)
    without_lines, _, _ = _run((queues, cohorts, steps, False), memo=False)
    assert with_lines == without_lines, _first_difference(with_lines, without_lines)
    assert memo.misses >= 2  # both w1s were nominated


def test_a_copied_assignment_equals_its_original_and_shares_nothing_mutable() -> None:
    """``copy_assignment`` names every mutable field of the assignment's dataclasses: a field added
    later fails here until the copy knows it."""
    fa = FlavorAssignment("f0", 1, tried_flavor_idx=0, borrow=1)
    attempt = Attempt("f0", 1, 1, "Preempt", ["r"], "x")
    ps = PodSetAssignment("main", {"cpu": fa}, Status(["r"], None, "x"), {"cpu": 1000}, 1, [attempt])
    a = Assignment([ps], 1, {("f0", "cpu"): 1000}, LastState([{"cpu": 0}], 2, 3, "h"), "x", None)
    known = {
        Assignment: {"pod_sets", "borrowing", "usage", "last_state", "no_fit_reason", "forced_mode"},
        # ``topology`` is a frozen Placement, ``delayed`` a string: the copy may share them
        PodSetAssignment: {
            "name", "flavors", "status", "requests", "count", "attempts", "topology", "delayed"
        },
        FlavorAssignment: {"name", "mode", "tried_flavor_idx", "borrow"},
        Attempt: {"flavor", "mode", "borrow", "possibility", "reasons", "no_fit_reason"},
        Status: {"reasons", "err", "no_fit_reason"},
        LastState: {"tried", "cq_generation", "cycle", "scheduling_hash"},
    }
    for cls, names in known.items():
        assert {f.name for f in dataclasses.fields(cls)} == names, cls
    b = copy_assignment(a)
    assert b == a == copy.deepcopy(a)
    assert not _mutables(a) & _mutables(b)


def _mutables(obj: Any) -> set[int]:
    """The ids of every list, dict and dataclass instance reachable from ``obj``."""
    out: set[int] = set()
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, dict)) or dataclasses.is_dataclass(o):
            out.add(id(o))
        if isinstance(o, list):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
        elif dataclasses.is_dataclass(o):
            stack.extend(getattr(o, f.name) for f in dataclasses.fields(o))
    return out


def test_a_flavor_that_loses_its_taint_is_considered_again() -> None:
    """A head that no flavor took (f0 has no quota, f1 a taint it does not tolerate) is nominated
    again when f1's taint goes: the ResourceFlavors are part of every entry's key."""
    q = {"f0": (0, None, None), "f1": (2, None, None), "within": "Never", "reclaim": "Never",
         "borrow": "off", "borrow_ff": "MayStopSearch", "preempt_ff": "TryNextFlavor", "cohort": "a",
         "strategy": "BestEffortFIFO"}
    steps: list[tuple[Any, ...]] = [("create", 0, 1, 0, 1, False, None), ("taint", False), ("retry",)]
    with_lines, _, _ = _run(([q], {"a1": None, "b1": None, "a_quota": None}, steps, False), memo=True)
    without_lines, _, _ = _run(([q], {"a1": None, "b1": None, "a_quota": None}, steps, False), memo=False)
    assert with_lines == without_lines, _first_difference(with_lines, without_lines)
    assert any('"Admitted"' in line and "w0" in line for line in without_lines)


def test_an_admission_elsewhere_in_the_cohort_renominates_a_waiting_head() -> None:
    """A StrictFIFO head that needs to borrow waits; another queue of its cohort admits a workload
    (its usage and workloads change, no generation does): the head's message must say what is
    missing now, not before."""
    base = {"f0": (2, None, None), "f1": None, "within": "Never", "reclaim": "Never", "borrow": "off",
            "borrow_ff": "MayStopSearch", "preempt_ff": "TryNextFlavor", "cohort": "a"}
    queues = [base | {"strategy": "StrictFIFO"}, base | {"strategy": "BestEffortFIFO"}]
    cohorts = {"a1": None, "b1": None, "a_quota": None}
    steps: list[tuple[Any, ...]] = [
        ("create", 0, 2, 0, 1, False, None), ("create", 0, 3, 0, 1, False, None),  # w1: 1 more needed
        ("create", 1, 1, 0, 1, False, None),  # w2 admitted in cq1: w1 now needs 2 more
    ]
    with_lines, _, _ = _run((queues, cohorts, steps, False), memo=True)
    without_lines, _, _ = _run((queues, cohorts, steps, False), memo=False)
    assert with_lines == without_lines, _first_difference(with_lines, without_lines)
    assert any("2 more needed" in line for line in without_lines)


def test_an_admitted_workload_leaves_the_memo() -> None:
    """An admitted head is no head while it holds quota: its entry (an assignment copy and its
    targets) is dropped at admission instead of waiting out the stale sweep."""
    base = {"f0": (2, None, None), "f1": None, "within": "Never", "reclaim": "Never", "borrow": "off",
            "borrow_ff": "MayStopSearch", "preempt_ff": "TryNextFlavor", "cohort": None,
            "strategy": "BestEffortFIFO"}
    steps: list[tuple[Any, ...]] = [("create", 0, 2, 0, 1, False, None), ("create", 0, 2, 0, 1, False, None)]
    _, _, memo = _run(([base], {"a1": None, "b1": None, "a_quota": None}, steps, False), memo=True)
    assert sorted(memo._entries) == ["default/w1"]  # w0 admitted; w1 waits for its quota


def test_the_stale_sweep_runs_once_per_keep_period() -> None:
    """Entries unused for 64 cycles go at the next sweep, which runs every 64th cycle: a sweep per
    cycle read every entry every cycle (a quarter of a second per 1,000 cycles of the
    ``kueue_bench`` baseline at ``--scale 0.3``)."""
    w = World(cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "2")])])), local_queue("lq", "cq"),
              flavor("default"), seed=1)
    scheduler = _scheduler(w)
    memo = scheduler.memo
    snapshot = mock.Mock(flavors={}, lq_usage=None, cache=scheduler.mgr.cache)
    memo.cycle(snapshot, scheduler.mgr.cycle_config, scheduler.mgr.preemptor, w.cp.clock.now_datetime(), 1)
    entry = mock.Mock(used=0)
    memo._entries["default/old"] = entry
    for cycle in range(2, 128):
        memo.cycle(snapshot, scheduler.mgr.cycle_config, scheduler.mgr.preemptor, w.cp.clock.now_datetime(),
                   cycle)
        assert "default/old" in memo._entries, cycle  # unused since cycle 0; the sweep is at 128
    memo.cycle(snapshot, scheduler.mgr.cycle_config, scheduler.mgr.preemptor, w.cp.clock.now_datetime(), 128)
    assert "default/old" not in memo._entries
