"""The metrics registry: counters and histograms with labels, Prometheus text exposition."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.metrics import MetricsRegistry, exponential_buckets, format_value


def test_counter_series_render_sorted_with_escaped_labels() -> None:
    reg = MetricsRegistry()
    c = reg.counter("x_total", "Help with \\ and\nnewline", ("a", "b"))
    c.labels("z", "1").inc(2)
    c.labels('q"uote', "back\\slash").inc()
    assert reg.render() == (
        "# HELP x_total Help with \\\\ and\\nnewline\n"
        "# TYPE x_total counter\n"
        'x_total{a="q\\"uote",b="back\\\\slash"} 1\n'
        'x_total{a="z",b="1"} 2\n')


def test_counter_rejects_decrease_and_wrong_label_count() -> None:
    c = MetricsRegistry().counter("y_total", "h", ("a",))
    with pytest.raises(ValueError, match="cannot decrease"):
        c.labels("v").inc(-1)
    with pytest.raises(ValueError, match="label values"):
        c.labels("v", "w")


def test_registering_again_returns_the_family_or_refuses_another_shape() -> None:
    reg = MetricsRegistry()
    first = reg.counter("z_total", "h", ("a",))
    assert reg.counter("z_total", "h", ("a",)) is first
    with pytest.raises(ValueError, match="another shape"):
        reg.counter("z_total", "h", ("b",))
    with pytest.raises(ValueError, match="another shape"):
        reg.histogram("z_total", "h", ("a",))


def test_empty_families_are_not_rendered_and_inc_zero_creates_a_series() -> None:
    reg = MetricsRegistry()
    c = reg.counter("w_total", "h", ("a",))
    assert reg.render() == ""
    c.labels("v").inc(0)
    assert 'w_total{a="v"} 0' in reg.render()


def test_histogram_exposition() -> None:
    reg = MetricsRegistry()
    h = reg.histogram("d_seconds", "d", ("m",), exponential_buckets(0.5, 2, 2))
    h.labels("I").observe(0.5)
    h.labels("I").observe(3)
    assert reg.render().splitlines()[2:] == [
        'd_seconds_bucket{m="I",le="0.5"} 1',
        'd_seconds_bucket{m="I",le="1"} 1',
        'd_seconds_bucket{m="I",le="+Inf"} 2',
        'd_seconds_sum{m="I"} 3.5',
        'd_seconds_count{m="I"} 2',
    ]


def test_format_value_is_go_like() -> None:
    assert [format_value(v) for v in (1.0, 0.25, float("inf"))] == ["1", "0.25", "+Inf"]


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 1000)), max_size=40))
def test_counter_value_is_the_sum_of_its_increments(incs: list[tuple[str, int]]) -> None:
    c = MetricsRegistry().counter("p_total", "h", ("k",))
    for key, amount in incs:
        c.labels(key).inc(amount)
    for key in "abc":
        assert c.value(key) == sum(n for k, n in incs if k == key)


@given(st.lists(st.floats(0, 100, allow_nan=False), max_size=50))
def test_histogram_buckets_are_cumulative_and_end_at_the_count(values: list[float]) -> None:
    reg = MetricsRegistry()
    h = reg.histogram("q_seconds", "h", (), exponential_buckets(0.1, 3, 5))
    for v in values:
        h.labels().observe(v)
    buckets = [int(line.rsplit(" ", 1)[1]) for line in reg.render().splitlines() if "_bucket" in line]
    if not values:
        assert buckets == []
        return
    assert buckets == sorted(buckets) and buckets[-1] == len(values)
    bounds = exponential_buckets(0.1, 3, 5)
    assert buckets[:-1] == [sum(1 for v in values if v <= b) for b in bounds]


def test_a_gauge_is_set_and_a_collector_refreshes_it_before_each_render() -> None:
    reg = MetricsRegistry()
    g = reg.gauge("queue_depth", "Depth", ("queue",))
    depth = {"a": 3}

    def collect() -> None:
        g.clear()
        for queue, n in depth.items():
            g.labels(queue).set(n)

    reg.add_collector(collect)
    assert reg.render().splitlines() == ["# HELP queue_depth Depth", "# TYPE queue_depth gauge",
                                         'queue_depth{queue="a"} 3']
    depth.pop("a")
    depth["b"] = float("inf")
    assert reg.render().splitlines()[-1] == 'queue_depth{queue="b"} +Inf'  # a's series is gone
    assert g.value("a") is None and reg.gauge("queue_depth", "Depth", ("queue",)) is g
    with pytest.raises(ValueError):
        reg.counter("queue_depth", "Depth", ("queue",))  # same name, another type
