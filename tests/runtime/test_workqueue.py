"""The work queue: client-go's guarantees, example by example and under random operation sequences."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    Queue,
    RateLimitingQueue,
    max_of,
)


def _fire(clock: VirtualClock, timers: TimerQueue, to: float) -> None:
    while (t := timers.pop_due(to)) is not None:
        clock.jump_to(t.deadline)
        t.fire()
    clock.jump_to(to)


def test_fifo_and_duplicates_collapse() -> None:
    q: Queue[str] = Queue()
    for item in ["a", "b", "a", "c", "b"]:
        q.add(item)
    assert len(q) == 3
    assert [q.get(), q.get(), q.get(), q.get()] == ["a", "b", "c", None]


def test_never_handed_out_twice_and_readd_while_processing() -> None:
    q: Queue[str] = Queue()
    q.add("a")
    assert q.get() == "a"
    q.add("a")  # re-added while processing: waits for done()
    q.add("a")
    assert len(q) == 0 and q.get() is None
    q.done("a")
    assert len(q) == 1 and q.get() == "a"
    q.done("a")
    assert q.get() is None
    q.check_invariants()


def test_shutdown_ignores_adds() -> None:
    q: Queue[str] = Queue()
    q.add("a")
    q.shutdown()
    q.add("b")
    assert q.get() == "a" and q.get() is None


def test_add_after_earliest_deadline_wins() -> None:
    clock, timers = VirtualClock(), TimerQueue()
    q: RateLimitingQueue[str] = RateLimitingQueue(clock, timers)
    q.add_after("a", 10)
    q.add_after("a", 20)  # later: ignored
    assert q.waiting_deadline("a") == 10
    q.add_after("a", 5)  # earlier: wins
    assert q.waiting_deadline("a") == 5
    _fire(clock, timers, 4.9)
    assert len(q) == 0
    _fire(clock, timers, 5)
    assert q.get() == "a"
    _fire(clock, timers, 30)
    q.done("a")
    assert len(q) == 0, "the superseded deadlines must not fire"


def test_exponential_backoff_and_forget() -> None:
    rl = ItemExponentialFailureRateLimiter(0.005, 1000)
    delays = [rl.when("x") for _ in range(20)]
    assert delays[:4] == [0.005, 0.01, 0.02, 0.04]
    assert delays[-1] == 1000 and max(delays) == 1000
    assert rl.num_requeues("x") == 20
    rl.forget("x")
    assert rl.num_requeues("x") == 0 and rl.when("x") == 0.005


def test_bucket_limits_bursts_in_virtual_time() -> None:
    clock = VirtualClock()
    rl = BucketRateLimiter(clock, qps=10, burst=2)
    assert [rl.when(i) for i in range(4)] == [0.0, 0.0, pytest.approx(0.1), pytest.approx(0.2)]
    clock.advance(10)
    assert rl.when("z") == 0.0


def test_max_of_takes_the_longest() -> None:
    clock = VirtualClock()
    rl = max_of(ItemExponentialFailureRateLimiter(1, 100), BucketRateLimiter(clock, 10, 100))
    assert rl.when("a") == 1 and rl.when("a") == 2 and rl.num_requeues("a") == 2
    rl.forget("a")
    assert rl.num_requeues("a") == 0


ITEMS = st.sampled_from(["a", "b", "c", "d"])


class QueueMachine(RuleBasedStateMachine):
    """Random add/get/done/add_after/add_rate_limited/forget/advance; the invariant always holds and
    no item is ever handed out while it is being processed."""

    def __init__(self) -> None:
        super().__init__()
        self.clock, self.timers = VirtualClock(), TimerQueue()
        self.q: RateLimitingQueue[str] = RateLimitingQueue(
            self.clock, self.timers, ItemExponentialFailureRateLimiter(1, 8)
        )
        self.held: list[str] = []
        self.order: list[str] = []  # model of the FIFO: first-add order of waiting items

    @rule(item=ITEMS)
    def add(self, item: str) -> None:
        was_waiting = item in self.order
        self.q.add(item)
        if not was_waiting and item not in self.held:
            self.order.append(item)

    @rule()
    def get(self) -> None:
        item = self.q.get()
        if item is None:
            assert not self.order
            return
        assert item not in self.held, "handed out twice at once"
        assert item == self.order.pop(0), "not FIFO"
        self.held.append(item)

    @precondition(lambda self: self.held)
    @rule(data=st.data())
    def done(self, data: st.DataObject) -> None:
        item = data.draw(st.sampled_from(self.held))
        self.held.remove(item)
        self.q.done(item)
        if self.q.is_dirty(item):
            self.order.append(item)

    @rule(item=ITEMS, delay=st.integers(0, 5))
    def add_after(self, item: str, delay: int) -> None:
        before = self.q.waiting_deadline(item)
        self.q.add_after(item, delay)
        if delay == 0:
            self._note_add(item)
        else:
            after = self.q.waiting_deadline(item)
            want = self.clock.now() + delay if before is None else min(before, self.clock.now() + delay)
            assert after == want

    @rule(item=ITEMS)
    def add_rate_limited(self, item: str) -> None:
        self.q.add_rate_limited(item)

    @rule(item=ITEMS)
    def forget(self, item: str) -> None:
        self.q.forget(item)
        assert self.q.num_requeues(item) == 0

    @rule(step=st.integers(0, 6))
    def advance(self, step: int) -> None:
        target = self.clock.now() + step
        while (t := self.timers.pop_due(target)) is not None:
            self.clock.jump_to(t.deadline)
            waiting = [i for i in "abcd" if self.q.waiting_deadline(i) == t.deadline]
            t.fire()
            for item in waiting:
                if self.q.waiting_deadline(item) is None:
                    self._note_add(item)
        self.clock.jump_to(target)

    def _note_add(self, item: str) -> None:
        if item not in self.order and item not in self.held:
            self.order.append(item)

    @invariant()
    def queue_invariant(self) -> None:
        self.q.check_invariants()
        assert len(self.q) == len(self.order)


TestQueueMachine = QueueMachine.TestCase
