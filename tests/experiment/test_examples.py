"""examples/experiments/ reproduce seed 002's studies and a Kueue borrowing study; every Job's numbers
are checked against the closed-form FIFO model (kbatch.experiment.fifo) within 2 s. Counts and
horizons are cut down for time; the files themselves run in full with `kbatch experiment run`.

A Job reports ``Complete`` 1 s after its pod ends (the Job controller's ``syncJobBatchPeriod``), so
the model's completion is the hold plus 1 s for plain Jobs; under Kueue the quota is held until the
Workload finishes (73 s) and the waiting workloads are requeued 1 s later (hold 74 s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from kbatch.experiment import fifo_jobs, run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "experiments"
TOLERANCE = 2.0


def example(name: str, count: int, horizon: str, sweep: dict[str, Any] | None = None) -> dict[str, Any]:
    doc = YAML(typ="safe").load((EXAMPLES / name).read_text())
    doc["spec"]["workloads"][0]["count"] = count
    doc["spec"]["horizon"] = horizon
    if sweep is not None:
        doc["spec"]["sweep"] = sweep
    return doc


def jobs_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    jobs = [w for w in report["workloads"] if w["kind"] == "Job"]
    return sorted(jobs, key=lambda w: int(w["name"].rsplit("-", 1)[1]))


def assert_fifo(report: dict[str, Any], interval: float, servers: int, hold: float,
                completion: float) -> None:
    jobs = jobs_of(report)
    model = fifo_jobs([k * interval for k in range(len(jobs))], servers, hold, completion)
    for job, expected in zip(jobs, model, strict=True):
        assert job["outcome"] == "Succeeded", job["name"]
        assert abs(job["queueing_delay"] - expected.wait) <= TOLERANCE, (job["name"], job, expected)
        assert abs(job["completion_time"] - expected.completion_time) <= TOLERANCE, (job["name"], expected)


def test_seed_002_one_pod_jobs_queue_below_18_seconds() -> None:
    result = run(example("seed002-fifo.yaml", 16, "8m"), jobs=1, plots=False)
    by_interval = {dict(p.params)["interval"]: p for p in result.points}
    assert sorted(by_interval) == [17, 18, 19, 20]
    for interval, point in by_interval.items():
        assert_fifo(point.report, interval, servers=4, hold=72, completion=73)
    rows = {r["params"]["interval"]: r for r in result.rows}
    # the talk's table at 20 s: JCT 72 s (+1 s: the Job's Complete condition), latency 0
    assert rows[20]["durations"]["completion_time"]["mean"] == 73
    assert rows[20]["durations"]["scheduling_latency"]["max"] == 0
    assert rows[18]["durations"]["scheduling_latency"]["max"] == 0  # 4 nodes x 18 s = 72 s: just no queue
    assert rows[17]["durations"]["scheduling_latency"]["max"] == 12  # floor(15/4) * (72 - 4 * 17)
    assert rows[17]["finished"] == rows[17]["workloads"] == 16


def test_seed_002_coscheduling_no_queueing_from_36_seconds() -> None:
    result = run(example("seed002-coscheduling.yaml", 8, "8m", {"interval": [30, 36, 40]}), jobs=1,
                 plots=False)
    for point in result.points:
        interval = dict(point.params)["interval"]
        jobs = jobs_of(point.report)
        assert len(jobs) == 8 and all(j["pods"] == 2 for j in jobs)
        assert [w["kind"] for w in point.report["workloads"]] == ["Job"] * 8  # the PodGroups are the gangs
        if interval >= 36:
            assert_fifo(point.report, interval, servers=2, hold=72, completion=73)
        else:  # the gangs queue; FIFO is a lower bound (the Coscheduler can let a later gang pass)
            model = fifo_jobs([k * interval for k in range(8)], 2, 72, 73)
            assert max(j["queueing_delay"] for j in jobs) > 0
            assert sum(j["queueing_delay"] for j in jobs) >= sum(m.wait for m in model) - TOLERANCE
            assert all(j["completion_time"] >= j["queueing_delay"] + 73 for j in jobs)


def test_kueue_borrowing_doubles_the_servers() -> None:
    result = run(example("kueue-borrowing.yaml", 10, "10m"), jobs=1, plots=False)
    assert [p.label for p in result.points] == [f"borrowingLimit={b},interval={i}" for b in (0, 16)
                                                for i in (20, 40)]
    for point in result.points:
        params = dict(point.params)
        servers = 4 if params["borrowingLimit"] else 2  # 16 GPUs of quota = two 8-GPU Jobs; 32 borrowed
        assert_fifo(point.report, params["interval"], servers, hold=74, completion=73)
        assert {j["queue"] for j in jobs_of(point.report)} == {"team-a"}
    waits = {p.label: max(j["queueing_delay"] for j in jobs_of(p.report)) for p in result.points}
    assert waits["borrowingLimit=0,interval=20"] > 100 and waits["borrowingLimit=16,interval=20"] == 0


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_file_is_valid(name: str) -> None:
    from kbatch.experiment import load_plan

    plan = load_plan(EXAMPLES / name)
    assert plan.points and all(p.arrivals for p in plan.points)
