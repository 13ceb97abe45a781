"""A PreFilter's Skip skips that plugin's Filter for the cycle (upstream ``SkipFilterPlugins`` in
``framework/runtime/framework.go``), in the scheduling cycle and in preemption's what-if; and
DefaultPreemption does not copy a node that has no lower-priority pod (upstream
``SelectVictimsOnNode`` finds no potential victim there)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.algorithm import Algorithm
from kbatch.controllers.scheduler.defaults import default_profile
from kbatch.controllers.scheduler.framework import SKIPPED_FILTERS, Code, CycleState, Status, active_filters
from kbatch.controllers.scheduler.plugins import default_preemption
from kbatch.controllers.scheduler.plugins.default_preemption import NO_VICTIMS, select_victims
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import PodInfo

from .sched_builders import node, place, pod


@dataclass
class Recorder:
    """A PreFilter + Filter plugin that skips the pods named in ``skip`` and rejects every node."""

    skip: set[str]
    name: str = "Recorder"
    node_static: bool = False
    filtered: list[str] = field(default_factory=list)

    def pre_filter(self, state: CycleState, p: PodInfo, snapshot: Snapshot) -> Status | None:
        return Status(Code.SKIP, plugin=self.name) if p.name in self.skip else None

    def filter(self, state: CycleState, p: PodInfo, n: NodeInfo) -> Status | None:
        self.filtered.append(p.name)
        return Status.unschedulable(self.name, "recorded")


def _algorithm(recorder: Recorder, nodes: int = 3) -> Algorithm:
    profile = default_profile()
    profile.pre_filter.append(recorder)
    profile.filter.append(recorder)
    snapshot = Snapshot()
    for i in range(nodes):
        snapshot.set_node(node(f"n{i}"))
    return Algorithm(profile, snapshot, random.Random(0))


def test_a_skipped_filter_does_not_run_and_the_pod_is_placed() -> None:
    recorder = Recorder(skip={"skipped"})
    algo = _algorithm(recorder)
    assert place(algo, pod("skipped", cpu_m=100)) is not None
    assert recorder.filtered == []


def test_a_filter_whose_prefilter_did_not_skip_runs_and_rejects() -> None:
    recorder = Recorder(skip=set())
    algo = _algorithm(recorder)
    decision = algo.schedule(pod("checked", cpu_m=100))
    assert decision.node is None
    assert set(recorder.filtered) == {"checked"} and len(recorder.filtered) >= 3
    assert decision.diagnosis is not None and set(decision.diagnosis.statuses) == {"n0", "n1", "n2"}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 3)), min_size=1, max_size=12))
def test_skips_are_per_pod(pods: list[tuple[bool, int]]) -> None:
    """Each pod runs the filter exactly when its own PreFilter did not skip: a skip never leaks to the
    next pod (the batch and the cached per-skip filter lists included)."""
    names = [f"p{i}" for i in range(len(pods))]
    recorder = Recorder(skip={n for n, (skip, _) in zip(names, pods, strict=True) if skip})
    algo = _algorithm(recorder)
    for name, (skip, cpus) in zip(names, pods, strict=True):
        before = len(recorder.filtered)
        placed = place(algo, pod(name, cpu_m=cpus * 100))
        assert (placed is not None) == skip
        assert (len(recorder.filtered) > before) == (not skip)


def test_active_filters() -> None:
    a, b = Recorder(set(), name="A"), Recorder(set(), name="B")
    assert active_filters([a, b], {}) == [a, b]
    assert active_filters([a, b], {SKIPPED_FILTERS: {"A"}}) == [b]


def test_preemption_what_if_skips_the_skipped_filter() -> None:
    """The recorder rejects every node, but its PreFilter skipped: preemption's fit checks ignore it
    and find the low-priority victim."""
    recorder = Recorder(skip={"high"})
    algo = _algorithm(recorder, nodes=1)
    algo.snapshot.add_pod(pod("low", cpu_m=4000, priority=0), "n0")
    decision = algo.schedule(pod("high", cpu_m=4000, priority=10))
    assert decision.node is None and decision.preemption is not None
    assert decision.preemption.nominated_node == "n0"
    assert [v.name for v in decision.preemption.victims] == ["low"]
    assert recorder.filtered == []


def test_no_lower_priority_pod_means_no_copy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A node whose pods all have the preemptor's priority or more is not cloned, and the answer is
    the one the full evaluation gave: no victims."""
    info = NodeInfo(node("n0", cpu=1))
    for i, priority in enumerate((5, 7, 9)):
        info.add_pod(pod(f"p{i}", cpu_m=300, priority=priority))
    info.add_pod(pod("dying", cpu_m=100, priority=0, terminating=True))
    clones: list[str] = []
    original = NodeInfo.clone
    monkeypatch.setattr(NodeInfo, "clone", lambda self: clones.append(self.name) or original(self))
    profile = default_profile()
    preemptor = pod("big", cpu_m=900, priority=5)
    assert select_victims(profile.filter, {}, preemptor, info) is None
    assert clones == []
    # with a lower-priority pod the node is evaluated (cloned) as before
    info.add_pod(pod("low", cpu_m=100, priority=1))
    assert select_victims(profile.filter, {}, preemptor, info) is None  # evicting it is not enough
    assert clones == ["n0"]


def test_failing_pods_message_is_unchanged_when_no_node_has_victims() -> None:
    algo = _algorithm(Recorder(skip={"x", "a", "b"}), nodes=2)
    for i in range(2):
        assert place(algo, pod(f"{'ab'[i]}", cpu_m=4000, priority=3)) is not None
    decision = algo.schedule(pod("x", cpu_m=4000, priority=3))
    assert decision.node is None and decision.diagnosis is not None
    assert decision.diagnosis.post_filter_message == (
        f"preemption: 0/2 nodes are available: 2 {NO_VICTIMS}.")
    assert default_preemption.NO_VICTIMS == NO_VICTIMS
