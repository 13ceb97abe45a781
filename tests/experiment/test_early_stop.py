"""``stopWhenFinished``: a point stops at the first tick after the last arrival at which every workload
of its report has finished, and its report ends at the last finish. The early report is the full
horizon's, cut there: every workload, pod and aggregate record equal, the utilisation means and
peaks equal, every step series equal before the end (a property over random small runs). A point
whose workloads do not all finish runs to the horizon, as without the flag. Same bytes in any
worker layout."""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.experiment import run
from tests.experiment.test_examples import example


def _sleeping_job(seconds: int, gpus: int) -> dict[str, Any]:
    resources = {"limits": {"nvidia.com/gpu": str(gpus)}} if gpus else {"requests": {"cpu": "1"}}
    container = {"name": "c", "image": "busybox", "command": ["sleep", str(seconds)], "resources": resources}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "${name}"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}


def experiment(count: int, interval: int, seconds: int, *, gpus: int = 8, nodes: int = 2,
               horizon: str = "20m", stop: bool = True, bare_pod: bool = False) -> dict[str, Any]:
    template = _sleeping_job(seconds, gpus)
    if bare_pod:
        template = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "${name}"},
                    "spec": template["spec"]["template"]["spec"]}
    return {"apiVersion": "kbatch.dev/v1alpha1", "kind": "Experiment", "metadata": {"name": "early"},
            "spec": {"nodes": [{"count": nodes, "gpu": 8}], "horizon": horizon, "stopWhenFinished": stop,
                     "workloads": [{"name": "w", "count": count, "arrival": {"interval": interval},
                                    "template": template}]}}


def _seconds(report: dict[str, Any]) -> float:
    return (datetime.fromisoformat(report["end"]) - datetime.fromisoformat(report["origin"])).total_seconds()


def _before(steps: list[list[float]], end: float) -> list[list[float]]:
    return [s for s in steps if s[0] < end]


def _series(cluster: dict[str, Any]) -> dict[str, list[list[float]]]:
    out = {"pending_pods": cluster["pending_pods"], "pending_workloads": cluster["pending_workloads"]}
    for resource, u in cluster["utilisation"].items():
        out |= {f"{resource}.{k}": u[k] for k in ("ratio", "used", "capacity")}
    return out


def assert_cut_of(early: dict[str, Any], full: dict[str, Any]) -> None:
    """``early`` is ``full`` ended at its last finish: no metric differs."""
    end = _seconds(early)
    finishes = [w["finished_s"] for w in early["workloads"]]
    assert finishes and end == max(finishes)
    for key in ("origin", "workloads", "pods", "summary"):
        assert early[key] == full[key], key
    e, f = early["cluster"], full["cluster"]
    assert e["makespan"] == f["makespan"]
    means = [{r: u["mean"] for r, u in c["utilisation"].items()} for c in (e, f)]
    assert means[0] == means[1]
    es, fs = _series(e), _series(f)
    assert es.keys() == fs.keys()
    for name in es:
        assert _before(es[name], end) == _before(fs[name], end), name
        assert max(v for _, v in es[name]) == max(v for _, v in fs[name]), name  # the peak


def test_a_finished_sweep_stops_at_the_last_finish() -> None:
    doc = example("seed002-fifo.yaml", 6, "30m", {"interval": [12, 20]})
    full = run(copy.deepcopy(doc), jobs=1, plots=False)
    early = run(doc, jobs=1, plots=False, stop_when_finished=True)
    for e, f in zip(early.points, full.points, strict=True):
        assert e.stopped_early and not f.stopped_early
        assert_cut_of(e.report, f.report)
        assert _seconds(e.report) < 200 < _seconds(f.report)  # 6 Jobs of 73 s, not the 30 m horizon
    for e, f in zip(early.rows, full.rows, strict=True):
        assert {**e, "stopped_early": False} == f and e["stopped_early"] is True


def test_bare_pods_finish_with_their_last_container() -> None:
    full = run(experiment(3, 10, 30, bare_pod=True, stop=False), jobs=1, plots=False).points[0]
    early = run(experiment(3, 10, 30, bare_pod=True), jobs=1, plots=False).points[0]
    assert early.stopped_early
    assert [w["kind"] for w in early.report["workloads"]] == ["Pod"] * 3
    assert_cut_of(early.report, full.report)


def test_an_unfinished_workload_runs_the_horizon() -> None:
    # a Job asking for 16 GPUs on 8-GPU nodes never runs: the point runs to its horizon, unchanged
    stuck = experiment(2, 10, 5, gpus=16, horizon="5m")
    early = run(stuck, jobs=1, plots=False).points[0]
    plain = run(experiment(2, 10, 5, gpus=16, horizon="5m", stop=False), jobs=1, plots=False).points[0]
    assert not early.stopped_early and early.report == plain.report
    assert _seconds(early.report) == 300


def test_no_stop_before_the_last_arrival() -> None:
    # the first Job ends long before the second arrives: the point still waits for the second
    result = run(experiment(2, 300, 5, horizon="20m"), jobs=1, plots=False).points[0]
    assert result.stopped_early and len(result.report["workloads"]) == 2
    assert _seconds(result.report) == max(w["finished_s"] for w in result.report["workloads"]) > 300


def test_early_stops_give_the_same_bytes_in_any_layout(tmp_path: Path) -> None:
    doc = experiment(4, 7, 20, nodes=1)
    doc["spec"]["sweep"] = {"gpu": [4, 8]}
    doc["spec"]["workloads"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["resources"] = {
        "limits": {"nvidia.com/gpu": "${gpu}"}}
    run(copy.deepcopy(doc), jobs=1, out=tmp_path / "one", plots=False)
    run(doc, jobs=2, out=tmp_path / "two", plots=False)
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert len(files) == 4
    for rel in files:
        assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes(), rel
    assert '"stopped_early": true' in (tmp_path / "one" / "summary.json").read_text()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(1, 4), interval=st.integers(1, 40), seconds=st.integers(1, 90),
       gpus=st.sampled_from([0, 4, 8]), nodes=st.integers(1, 2))
def test_early_stop_changes_no_metric(count: int, interval: int, seconds: int, gpus: int, nodes: int) -> None:
    full = run(experiment(count, interval, seconds, gpus=gpus, nodes=nodes, stop=False), jobs=1,
               plots=False).points[0]
    early = run(experiment(count, interval, seconds, gpus=gpus, nodes=nodes), jobs=1, plots=False).points[0]
    assert early.stopped_early  # these all finish within the horizon
    assert_cut_of(early.report, full.report)
