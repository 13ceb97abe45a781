"""Quota released by a finished or evicted workload wakes the scheduler itself.

Upstream (kubernetes-sigs/kueue v0.19.2): the scheduler loops while its heaps hold heads
(``pkg/cache/queue/manager.go`` ``Heads`` blocks only on empty heaps; ``pkg/scheduler/scheduler.go``
``schedule`` backs off 1-10 ms after a cycle that admitted nothing), so a head left in its heap
(StrictFIFO, a preemptor pending the preemption of its targets) sees freed quota at once; the
inadmissible ones come back when the release's ``QueueAssociatedInadmissibleWorkloadsAfter``
notification is delivered, after the requeue batch period (1 s,
``pkg/cache/queue/inadmissible_workloads.go``). kbatch's scheduler runs when woken: the release
wakes it; a LocalQueue status write (which follows every release) does not
(``Manager.UpdateLocalQueue`` broadcasts only when the ClusterQueue changed).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def _single(strategy: str, nominal: str = "4", **spec) -> World:
    return World(flavor("default"),
                 cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]),
                               queueingStrategy=strategy, **spec),
                 local_queue("lq", "cq"))


def _held(strategy: str) -> World:
    """``holder`` takes the whole quota; ``waiting``, created after it, is pending."""
    w = _single(strategy)
    w.apply(workload("holder", "lq", cpu="4"))
    w.cp.run_until_idle()
    w.apply(workload("waiting", "lq", cpu="3"))
    w.cp.run_until_idle()
    assert w.admitted("holder") and not w.reserved("waiting")
    return w


def _cycles(w: World) -> int:
    (scheduler,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    return scheduler.reconciler.cycle


def test_a_strict_fifo_head_is_admitted_at_the_instant_its_quota_is_freed() -> None:
    w = _held("StrictFIFO")
    before = w.cp.now()

    w.finish("holder")  # runs the control plane until idle, the clock where it is

    assert w.cp.now() == before
    assert w.admitted("waiting")


def test_a_preemptor_is_admitted_at_the_instant_its_targets_release_their_quota() -> None:
    w = _single("BestEffortFIFO", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(workload("low", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.apply(workload("high", "lq", cpu="3", priority=5))
    w.cp.run_until_idle()
    assert "Pending the preemption of 1 workload(s)" in w.cond("high", "QuotaReserved").message
    before = w.cp.now()

    assert w.release_evicted() == 1

    assert w.cp.now() == before
    assert w.admitted("high") and not w.reserved("low")


def test_best_effort_fifo_inadmissible_workloads_come_back_after_the_requeue_batch_period() -> None:
    w = _held("BestEffortFIFO")
    w.finish("holder")
    assert not w.reserved("waiting")  # inadmissible: it waits for the release's notification
    w.cp.advance(0.9)
    assert not w.reserved("waiting")
    w.cp.advance(0.1)
    assert w.admitted("waiting")


def test_a_local_queue_status_write_does_not_run_a_cycle() -> None:
    w = _single("StrictFIFO")
    w.apply(workload("holder", "lq", cpu="4"), workload("waiting", "lq", cpu="3"))
    w.cp.run_until_idle()
    w.cp.advance(2)
    cycles = _cycles(w)
    lq = w.lq("lq")
    w.cp.client.patch_status(type(lq), "lq", {"status": {"pendingWorkloads": 7}}, "default")
    w.cp.run_until_idle()
    assert _cycles(w) == cycles
    assert not w.reserved("waiting")


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 4), min_size=2, max_size=6),
    finish_order=st.randoms(use_true_random=False),
)
def test_strict_fifo_never_idles_with_a_head_that_fits(sizes: list[int], finish_order) -> None:
    """Invariant: whenever the control plane is idle (no virtual time passing), the StrictFIFO
    queue's head — the oldest pending workload — does not fit in the free quota."""
    w = _single("StrictFIFO")
    for i, cpu in enumerate(sizes):
        w.apply(workload(f"w{i}", "lq", cpu=str(cpu)))
        w.cp.advance(1)  # distinct creation times: a defined FIFO order
    names = [f"w{i}" for i in range(len(sizes))]
    for _ in range(len(sizes)):
        running = [n for n in names if w.admitted(n) and w.cond(n, "Finished") is None]
        pending = [n for n in names if not w.reserved(n)]
        used = sum(sizes[names.index(n)] for n in running)
        if pending:
            assert sizes[names.index(pending[0])] > 4 - used, (pending[0], used)
        if not running:
            break
        w.finish(finish_order.choice(running))
    assert all(w.admitted(n) for n in names)

