"""A shared claim's devices per instant: ``1/k`` to each of the ``k`` pods running then, when the
claim's history says they reserved it; the devices counted once over their busy time (a property);
without the reservations, ``1/n`` over each pod's whole run (the rule kept)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.reporting import build_report
from kbatch.reporting.sharing import Run, Share, attribute
from tests.reporting.builders import T0, custom, node, pod
from tests.reporting.test_device_classes import CLASSES, DRIVER, slice_of, using

GPU = f"devices/{DRIVER}"


def _at(seconds: float) -> Any:
    return T0 + timedelta(seconds=seconds)


def _run(pod_name: str, start: float, end: float) -> Run:
    return Run(pod_name, _at(start), _at(end))


def _shares(shares: list[Share]) -> list[tuple[str, float, float, float]]:
    return [(s.pod, (s.start - T0).total_seconds(), (s.end - T0).total_seconds(), s.fraction) for s in shares]


# (runs, expected shares (pod, from, to, fraction)): the attribution's table
CASES = [
    ([("a", 0, 10)], [("a", 0, 10, 1.0)]),
    ([("a", 0, 10), ("b", 0, 10)], [("a", 0, 10, 0.5), ("b", 0, 10, 0.5)]),
    ([("a", 0, 20), ("b", 10, 50)], [("a", 0, 10, 1.0), ("a", 10, 20, 0.5), ("b", 10, 20, 0.5),
                                     ("b", 20, 50, 1.0)]),
    ([("a", 0, 10), ("b", 10, 20)], [("a", 0, 10, 1.0), ("b", 10, 20, 1.0)]),  # one after the other
    ([("a", 0, 10), ("b", 30, 40)], [("a", 0, 10, 1.0), ("b", 30, 40, 1.0)]),  # idle in between
    ([("a", 0, 30), ("b", 0, 10), ("c", 20, 30)], [("a", 0, 10, 0.5), ("a", 10, 20, 1.0), ("a", 20, 30, 0.5),
                                                   ("b", 0, 10, 0.5), ("c", 20, 30, 0.5)]),
    ([("a", 0, 10), ("a", 5, 15)], [("a", 0, 15, 1.0)]),  # one pod listed twice is one consumer
    ([("a", 5, 5)], []),  # never ran
]


@pytest.mark.parametrize(("runs", "expected"), CASES)
def test_attribution_table(runs: list[tuple[str, float, float]], expected: list[Any]) -> None:
    assert _shares(attribute([_run(*r) for r in runs])) == expected


def _busy(runs: list[tuple[str, int, int]]) -> float:
    covered = set()
    for _pod, a, b in runs:
        covered |= set(range(a, b))  # integer seconds: the union's measure
    return float(len(covered))


@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 60), st.integers(0, 60)), max_size=12))
def test_summed_attribution_is_the_busy_time(spans: list[tuple[str, int, int]]) -> None:
    runs = [(p, min(a, b), max(a, b)) for p, a, b in spans]
    shares = attribute([_run(*r) for r in runs])
    total = sum(s.fraction * (s.end - s.start).total_seconds() for s in shares)
    assert total == pytest.approx(_busy(runs))
    for t in range(61):  # at each instant a pod runs, the shares of the pods running add up to one
        held = sum(s.fraction for s in shares if s.start <= _at(t + 0.5) < s.end)
        assert held == pytest.approx(1.0 if any(a <= t < b for _p, a, b in runs) else 0.0)
    for s in shares:  # only while it runs
        assert any(p == s.pod and _at(a) <= s.start and s.end <= _at(b) for p, a, b in _merged(runs))


def _merged(runs: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for p, a, b in sorted(runs):
        if out and out[-1][0] == p and a <= out[-1][2]:
            out[-1] = (p, out[-1][1], max(out[-1][2], b))
        else:
            out.append((p, a, b))
    return out


def _claim(*reserved: str) -> dict[str, Any]:
    results = [{"request": "r", "driver": DRIVER, "pool": "node-0", "device": "gpu-0"}]
    obj = custom("resource.k8s.io/v1", "ResourceClaim", "shared", 0, status={
        "allocation": {"devices": {"results": results}, "allocationTimestamp": "2025-01-01T00:00:00Z"},
        "reservedFor": [{"resource": "pods", "name": p, "uid": f"uid-{p}"} for p in reserved]})
    obj["metadata"]["uid"] = "claim-uid"
    return obj


def _world() -> list[dict[str, Any]]:
    # a runs 0-20 s, b 10-50 s, c (the end of the report) 0-60 s on a claim of its own
    return [*CLASSES, node("node-0"), slice_of("node-0", ["A100", "A100"]),
            using(pod("a", 0, scheduled=0, started=0, finished=20), "shared"),
            using(pod("b", 10, scheduled=10, started=10, finished=50), "shared"),
            pod("c", 0, scheduled=0, started=0, finished=60)]


def _used(report: Any, resource: str = GPU) -> list[tuple[float, float]]:
    [u] = [u for u in report.utilisation if u.resource == resource]
    return [(s.t, s.value) for s in u.used]


def _device_seconds(report: Any) -> dict[str, float]:
    return {p.name: p.device_seconds.get(GPU, 0.0) for p in report.pods}


def test_with_its_history_a_shared_claim_is_held_whole_while_any_of_its_pods_runs() -> None:
    history = [_claim("a"), _claim("a", "b"), _claim("b")]  # reservedFor as the pods came and went
    report = build_report(_world(), history=history)
    assert _used(report) == [(0, 1), (50, 0)] and _used(report, "deviceclass/a100") == [(0, 1), (50, 0)]
    assert _device_seconds(report) == {"a": 15.0, "b": 35.0, "c": 0.0}  # 10 + 10/2, 10/2 + 30
    [u] = [u for u in report.utilisation if u.resource == GPU]
    assert u.mean == pytest.approx(50 / (2 * 60))
    # the final claim alone, still reserved for both (a live claim): the same, per instant
    assert _used(build_report([*_world(), _claim("a", "b")])) == [(0, 1), (50, 0)]


def test_without_the_reservations_each_of_n_pods_counts_1_over_n_for_its_whole_run() -> None:
    report = build_report([*_world(), _claim()])  # allocated, reserved for no pod: no history of who
    assert _used(report) == [(0, 0.5), (10, 1), (20, 0.5), (50, 0)]
    assert _device_seconds(report) == {"a": 10.0, "b": 20.0, "c": 0.0}
    # one of the two known to have reserved it is not enough to tell when the other held it
    assert _used(build_report([*_world(), _claim("b")])) == [(0, 0.5), (10, 1), (20, 0.5), (50, 0)]


def test_shares_per_node_group_follow_their_pods() -> None:
    history = [_claim("a", "b")]
    report = build_report([*_world()], history=history, node_group="zone")
    [(group, series)] = report.utilisation_by_node_group
    assert group == "<none>" and [(s.t, s.value) for s in next(
        u for u in series if u.resource == GPU).used] == [(0, 1), (50, 0)]
