"""Aggregates and the cluster series: worked examples and hypothesis properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.reporting import build_report
from kbatch.reporting.metrics import group_key, percentile, summarise
from tests.reporting.builders import T0, job, node, pod

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
values = st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=1, max_size=40)


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([10, 20], 50) == 15
    assert percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) == pytest.approx(9.1)
    assert percentile([3, 1, 2], 0) == 1 and percentile([3, 1, 2], 100) == 3
    s = summarise([4, None, 8, 6])
    assert (s.count, s.mean, s.p50, s.max) == (3, 6, 6, 8)
    assert summarise([None]).count == 0 and summarise([]).mean is None
    with pytest.raises(ValueError):
        percentile([], 50)


@SETTINGS
@given(values, st.floats(0, 100), st.floats(0, 100))
def test_percentiles_are_monotone_and_bounded(xs: list[float], q1: float, q2: float) -> None:
    lo, hi = sorted((q1, q2))
    assert min(xs) <= percentile(xs, lo) <= percentile(xs, hi) <= max(xs)
    s = summarise(xs)
    assert s.p50 <= s.p90 <= s.p99 <= s.max  # type: ignore[operator]
    assert min(xs) - 1e-6 <= s.mean <= max(xs) + 1e-6  # type: ignore[operator]


def test_group_keys() -> None:
    j = job("a", 0, labels={"team": "x"}, ns="ns1")
    report = build_report([j, job("b", 0, ns="ns2")], by="label=team", end=T0)
    assert [(g.group, g.workloads) for g in report.groups] == [("<none>", 1), ("x", 1), ("all", 2)]
    assert [g.group for g in build_report([j], by="namespace", end=T0).groups] == ["ns1", "all"]
    for bad in ("label=", "colour", "label"):
        with pytest.raises(ValueError, match="invalid --by"):
            group_key(bad)


def test_throughput_makespan_and_utilisation_by_hand() -> None:
    # two 4-GPU pods on one 8-GPU node; a second node joins at t=50
    a, b = job("a", 0, started=0, complete=61), job("b", 10, started=10, complete=101)
    objs = [node("n0", -5, gpu=8, cpu="8"), node("n1", 50, gpu=8, cpu="8"), a, b,
            pod("pa", 0, owner=a, node_name="n0", scheduled=0, started=0, finished=60,
                requests={"nvidia.com/gpu": "4", "cpu": "500m"}),
            pod("pb", 10, owner=b, node_name="n0", scheduled=20, started=20, finished=100,
                requests={"nvidia.com/gpu": "4", "cpu": "2"})]
    report = build_report(objs)
    [overall] = report.groups
    assert overall.makespan == 101 and overall.throughput_per_min == pytest.approx(2 * 60 / 101)
    gpu = next(u for u in report.utilisation if u.resource == "nvidia.com/gpu")
    assert [(s.t, s.value) for s in gpu.ratio] == [(0, 0.5), (20, 1.0), (50, 0.5), (60, 0.25), (100, 0.0)]
    assert [(s.t, s.value) for s in gpu.capacity] == [(0, 8), (50, 16)]
    # ∫used = 4*60 + 4*80 = 560 GPU·s; ∫capacity = 8*50 + 16*51 = 1216 GPU·s over the makespan
    assert gpu.mean == pytest.approx(560 / 1216)
    cpu = next(u for u in report.utilisation if u.resource == "cpu")
    assert cpu.used[0].value == 0.5 and max(s.value for s in cpu.used) == 2.5
    assert [u.resource for u in report.utilisation] == ["cpu", "memory", "nvidia.com/gpu"]


@st.composite
def packed_cluster(draw: st.DrawFn) -> list[dict]:
    """Nodes of 8 GPUs; each node runs pods one after another (never more than fits at once)."""
    objs: list[dict] = []
    for n in range(draw(st.integers(1, 3))):
        objs.append(node(f"n{n}", 0, gpu=8))
        t = 0.0
        for i in range(draw(st.integers(0, 5))):
            t += draw(st.floats(0, 30))
            length = draw(st.floats(0.5, 100))
            gpus = draw(st.integers(1, 8))
            created = max(0.0, t - draw(st.floats(0, 20)))
            owner = job(f"j{n}-{i}", created, started=created, complete=t + length + 1)
            objs += [owner, pod(f"p{n}-{i}", created, owner=owner, node_name=f"n{n}", scheduled=t, started=t,
                                finished=t + length, requests={"nvidia.com/gpu": str(gpus)})]
            t += length
    return objs


@SETTINGS
@given(packed_cluster())
def test_utilisation_stays_within_allocatable_and_durations_add_up(objs: list[dict]) -> None:
    report = build_report(objs)
    for u in report.utilisation:
        assert all(0 <= s.value <= 1 + 1e-9 for s in u.ratio), u
        assert u.mean is None or 0 <= u.mean <= 1 + 1e-9
    for w in report.workloads:
        assert w.queueing_delay is not None and w.run_time is not None and w.completion_time is not None
        assert math.isclose(w.queueing_delay + w.run_time, w.completion_time, abs_tol=1e-6)
        assert w.queueing_delay >= 0 and w.scheduling_latency is not None and w.scheduling_latency >= 0
    pending = [s.value for s in report.pending_pods]
    assert all(0 <= v <= len(report.pods) for v in pending)
