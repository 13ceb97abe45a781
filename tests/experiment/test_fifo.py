"""The closed-form FIFO model the examples are checked against: the recursion, the D/D/c closed form
and the invariants of a FIFO queue over identical servers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.experiment.fifo import fifo_jobs, fixed_interval_start

servers = st.integers(1, 6)
hold = st.integers(0, 200).map(float)
arrivals = st.lists(st.integers(0, 2000), max_size=40).map(lambda xs: [float(x) for x in sorted(xs)])


@given(st.integers(1, 60).map(float), servers, hold, st.integers(1, 60))
def test_fixed_interval_closed_form_is_the_recursion(interval: float, c: int, h: float, n: int) -> None:
    jobs = fifo_jobs([k * interval for k in range(n)], c, h)
    assert [j.start for j in jobs] == [fixed_interval_start(k, interval, c, h) for k in range(n)]


@given(arrivals, servers, hold)
def test_fifo_invariants(times: list[float], c: int, h: float) -> None:
    jobs = fifo_jobs(times, c, h, completion=h + 1)
    starts = [j.start for j in jobs]
    assert all(j.start >= j.arrival and j.wait >= 0 for j in jobs)
    assert starts == sorted(starts)  # served in arrival order
    assert all(j.completion_time == j.wait + h + 1 for j in jobs)
    for j in jobs:  # never more than c jobs hold a server at once
        assert sum(1 for o in jobs if o.start <= j.start < o.end) <= c
    for k, j in enumerate(jobs):  # work conserving: a job waits only behind a busy system or its predecessor
        if j.wait > 0:
            freed = {o.end for o in jobs[:k]}
            assert j.start in freed or (k > 0 and j.start == jobs[k - 1].start)


@given(arrivals, servers, hold)
def test_more_servers_never_wait_longer(times: list[float], c: int, h: float) -> None:
    fewer, more = fifo_jobs(times, c, h), fifo_jobs(times, c + 1, h)
    assert all(b.wait <= a.wait for a, b in zip(fewer, more, strict=True))


def test_seed_002_numbers() -> None:
    # 4 x 8-GPU nodes, 8-GPU sleep-72 Jobs: no queue at 18 s and above, a growing one below
    at18 = fifo_jobs([k * 18.0 for k in range(50)], 4, 72, completion=73)
    assert {j.wait for j in at18} == {0} and {j.completion_time for j in at18} == {73}
    at17 = fifo_jobs([k * 17.0 for k in range(50)], 4, 72, completion=73)
    assert [j.wait for j in at17[:9]] == [0, 0, 0, 0, 4, 4, 4, 4, 8] and at17[49].wait == 48
    # two-pod gangs: two servers of two nodes, no queue from 36 s
    assert {j.wait for j in fifo_jobs([k * 36.0 for k in range(20)], 2, 72)} == {0}
    assert fifo_jobs([k * 35.0 for k in range(20)], 2, 72)[19].wait > 0


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="must not decrease"):
        fifo_jobs([2.0, 1.0], 1, 1)
    with pytest.raises(ValueError, match="servers >= 1"):
        fifo_jobs([1.0], 0, 1)
