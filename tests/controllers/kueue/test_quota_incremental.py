"""What the scheduler keeps or skips about the quota tree, against computing it afresh.

* ``scheduling/cycle.py``'s ``_fits`` (upstream kubernetes-sigs/kueue ``pkg/scheduler/scheduler.go``
  ``fits``) removes only the preempted workloads whose removal reaches the entry's queue or one of
  its ancestors (:func:`~kbatch.controllers.kueue.scheduling.snapshot.chain_of`): every quota
  answer about that queue must be the one after removing all of them.
* The classical search (``preemption/preemptor.py``, upstream ``classicalPreemptions``) asks
  ``workloadFits`` after every move through a closure that reads the request once: its answers
  must be ``_fits``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode, CQSettings
from kbatch.controllers.kueue.model.quota import (
    Cohort,
    Node,
    Quota,
    Tree,
    add_usage,
    available,
    update_tree,
)
from kbatch.controllers.kueue.scheduling.snapshot import Snapshot, chain_of, cq_borrowing, cq_fits

FR = ("f", "cpu")
LIMIT = st.one_of(st.none(), st.integers(0, 6))


@dataclass(frozen=True)
class _Held:
    """A workload as the removal sees it: its queue and its usage."""

    key: str
    cluster_queue: str
    amount: int

    def usage(self) -> dict[Any, int]:
        return {FR: self.amount}


@st.composite
def _forest(draw: Any) -> tuple[Tree, list[Node], list[ClusterQueueNode]]:
    """Two trees (a root Cohort and a sub-Cohort each) and queues in them or alone."""
    tree = Tree()
    cohorts: list[Cohort] = []
    for t in range(2):
        root, sub = Cohort(f"root{t}", tree), Cohort(f"sub{t}", tree)
        sub.parent = root
        root.child_cohorts[sub.name] = sub
        if draw(st.booleans()):
            sub.quotas[FR] = Quota(draw(st.integers(0, 4)), draw(LIMIT), draw(LIMIT))
        cohorts += [root, sub]
    queues = []
    for i in range(draw(st.integers(1, 6))):
        cq = ClusterQueueNode(CQSettings(f"cq{i}"), tree)
        if draw(st.booleans()):
            cq.quotas[FR] = Quota(draw(st.integers(0, 8)), draw(LIMIT), draw(LIMIT))
        parent = draw(st.sampled_from([None, *cohorts]))
        if parent is not None:
            cq.parent = parent
            parent.child_cqs[cq.name] = cq
        queues.append(cq)
    for node in [*cohorts[::2], *(q for q in queues if q.parent is None)]:
        update_tree(node)
    return tree, [*cohorts, *queues], queues


def _snapshot(tree: Tree, queues: list[ClusterQueueNode]) -> Snapshot:
    cache = SimpleNamespace(
        tree=tree, flavors={}, cluster_queues={q.name: q for q in queues}, schedulable=lambda name: True
    )
    return Snapshot(cache)  # type: ignore[arg-type]


def _answers(queue: ClusterQueueNode, request: int) -> tuple[Any, ...]:
    return available(queue, FR), cq_fits(queue, {FR: request}), cq_borrowing(queue, FR)


@settings(max_examples=300, deadline=None)
@given(
    world=_forest(),
    held=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 5)), max_size=10),
    removed=st.lists(st.integers(0, 9), max_size=6),
    request=st.integers(0, 6),
)
def test_removals_that_cannot_reach_a_queue_are_skipped(
    world: Any, held: list[tuple[int, int]], removed: list[int], request: int
) -> None:
    tree, _, queues = world
    infos = []
    for i, (which, amount) in enumerate(held):
        cq = queues[which % len(queues)]
        add_usage(cq, FR, amount)
        infos.append(_Held(f"w{i}", cq.name, amount))
    chosen = [infos[n % len(infos)] for n in dict.fromkeys(removed)] if infos else []
    snapshot = _snapshot(tree, queues)
    try:
        for cq in queues:
            mark = snapshot.remove_usage_of(chosen)  # type: ignore[arg-type]
            expected = _answers(cq, request)
            snapshot.rollback(mark)
            mark = snapshot.remove_usage_of(chosen, chain_of(cq))  # type: ignore[arg-type]
            assert _answers(cq, request) == expected
            snapshot.rollback(mark)
    finally:
        snapshot.close()


@settings(max_examples=200, deadline=None)
@given(
    world=_forest(),
    moves=st.lists(st.tuples(st.integers(0, 5), st.integers(-4, 5)), max_size=10),
    request=st.integers(0, 6),
)
def test_the_search_fit_is_workload_fits(world: Any, moves: list[tuple[int, int]], request: int) -> None:
    """The classical search's ``_fitter`` (the request read once) answers as ``workloadFits``
    (``_fits``) after every usage move, preempting while borrowing or not."""
    from kbatch.controllers.kueue.model.quota import remove_usage
    from kbatch.controllers.kueue.scheduling.preemption.preemptor import _fits, _fitter

    _, _, queues = world
    for cq in queues:
        ctx: Any = SimpleNamespace(cq=cq, usage={FR: request}, tas=None)
        searches = {borrowing: _fitter(ctx, borrowing) for borrowing in (False, True)}
        for which, delta in moves:
            moved = queues[which % len(queues)]
            if delta >= 0:
                add_usage(moved, FR, delta)
            else:
                remove_usage(moved, FR, min(-delta, moved.usage.get(FR, 0)))
            for borrowing, fits in searches.items():
                assert fits() == _fits(ctx, borrowing)
