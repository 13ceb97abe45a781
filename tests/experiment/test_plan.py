"""Experiment files: the sweep, substitution, arrival processes, and bad files refused with the field path."""

from __future__ import annotations

import copy
import itertools
import statistics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.experiment import ExperimentError, load_plan
from kbatch.experiment.arrivals import poisson
from kbatch.experiment.generators import render
from kbatch.experiment.sweep import substitute, sweep_points

JOB = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": {
    "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "5"]}]}}}}


def doc(**spec: Any) -> dict[str, Any]:
    workload = {"name": "w", "count": 3, "arrival": {"interval": 10}, "template": JOB}
    base: dict[str, Any] = {"nodes": [{"count": 1}], "horizon": "10m", "workloads": [workload]}
    return copy.deepcopy({"apiVersion": "kbatch.dev/v1alpha1", "kind": "Experiment",
                          "metadata": {"name": "t"}, "spec": base | spec})


def test_sweep_is_the_product_in_file_order() -> None:
    points = sweep_points({"a": [1, 2], "b": {"from": 10, "to": 30, "step": 10}})
    assert [p.params for p in points] == [(("a", a), ("b", b)) for a in (1, 2) for b in (10, 20, 30)]
    assert points[4].label == "a=2,b=20" and points[4].directory(6) == "4-a=2,b=20"
    assert [p.params for p in sweep_points(None)] == [()]


@pytest.mark.parametrize("name", ["a", "_b2", "replicas"])
def test_a_parameter_name_ending_in_a_newline_is_refused(name: str) -> None:
    """A name is letters, digits and _ (a quoted YAML key may end in a newline; ``${...}`` could never
    name it). The check used ``$``, which Python also matches before a final newline."""
    assert [p.params for p in sweep_points({name: [1]})] == [((name, 1),)]
    with pytest.raises(ExperimentError) as err:
        sweep_points({name + "\n": [1]})
    assert err.value.path == f"spec.sweep.{name}\n"
    assert err.value.message == "a parameter name is letters, digits and _, not a digit first"


def test_substitution_keeps_types_and_reserved_names() -> None:
    out = substitute({"x": "${a}", "y": "n-${a}s", "z": ["${i}", "${name}"]}, {"a": 17})
    assert out == {"x": 17, "y": "n-17s", "z": ["${i}", "${name}"]}
    with pytest.raises(ExperimentError) as err:
        substitute({"spec": {"k": ["${nope}"]}}, {"a": 1})
    assert err.value.path == "spec.k[0]" and "nope" in err.value.message


def test_points_resolve_and_generators_name_workloads() -> None:
    d = doc(sweep={"interval": [5, 20]})
    d["spec"]["workloads"][0]["arrival"] = {"interval": "${interval}"}
    plan = load_plan(d)
    assert [[a.at for a in p.arrivals] for p in plan.points] == [[0, 5, 10], [0, 20, 40]]
    generator = plan.points[0].experiment.spec.workloads[0]
    [manifest] = render(generator, 2)
    assert manifest["metadata"] == {"name": "w-2", "namespace": "default"}


@given(st.integers(0, 2**32), st.floats(1, 100))
def test_poisson_is_seeded_and_increasing(seed: int, mean: float) -> None:
    times = poisson(50, mean, seed)
    assert times == poisson(50, mean, seed)
    assert all(b > a for a, b in itertools.pairwise(times)) and times[0] > 0


def test_poisson_mean_gap() -> None:
    times = poisson(4000, 20.0, 7)
    gaps = [b - a for a, b in zip([0.0, *times], times, strict=False)]
    assert 19 < statistics.fmean(gaps) < 21


def test_trace_file_relative_to_the_experiment(tmp_path: Path) -> None:
    (tmp_path / "arrivals.txt").write_text("# seconds or durations\n0\n1m\n30s\n\n90 # late\n")
    d = doc()
    d["spec"]["workloads"][0] |= {"arrival": {"trace": {"file": "arrivals.txt"}}}
    d["spec"]["workloads"][0].pop("count")
    from ruamel.yaml import YAML

    YAML().dump(d, tmp_path / "exp.yaml")
    [point] = load_plan(tmp_path / "exp.yaml").points
    assert [a.at for a in point.arrivals] == [0, 30, 60, 90]


BAD = [
    ("missing nodes", lambda d: d["spec"].pop("nodes"), "spec.nodes", "required value"),
    ("unknown field", lambda d: d["spec"]["nodes"][0].update(gpus=8), "spec.nodes[0].gpus", "unknown field"),
    ("zero count", lambda d: d["spec"]["workloads"][0].update(count=0), "spec.workloads[0].count",
     "greater"),
    ("two processes", lambda d: d["spec"]["workloads"][0]["arrival"].update(poisson={"mean": 3}),
     "spec.workloads[0].arrival", "exactly one of"),
    ("bad duration", lambda d: d["spec"].update(horizon="soon"), "spec.horizon", "invalid duration"),
    ("same names", lambda d: d["spec"]["workloads"][0]["template"].update(metadata={"name": "fixed"}),
     "spec.workloads[0].template[0].metadata.name", "${i}"),
    ("no kind", lambda d: d["spec"]["workloads"][0]["template"].pop("kind"),
     "spec.workloads[0].template[0].kind", "required"),
    ("bad sweep", lambda d: d["spec"].update(sweep={"interval": []}), "spec.sweep.interval", "non-empty"),
    ("reserved", lambda d: d["spec"].update(sweep={"i": [1]}), "spec.sweep.i", "reserved"),
    ("bad range", lambda d: d["spec"].update(sweep={"x": {"from": 3, "to": 1, "step": 1}}), "spec.sweep.x.to",
     "less than"),
    ("unknown x", lambda d: d["spec"].update(summary={"x": "nope"}), "spec.summary.x", "not a parameter"),
    ("bad metric", lambda d: d["spec"].update(summary={"metrics": ["speed"]}), "spec.summary.metrics[0]", ""),
    ("unknown param", lambda d: d["spec"].update(horizon="${later}"), "spec.horizon", "unknown parameter"),
    ("bad kind", lambda d: d.update(kind="Job"), "kind", ""),
]


@pytest.mark.parametrize(("case", "change", "path", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_files_name_the_field(case: str, change: Any, path: str, message: str) -> None:
    d = doc()
    change(d)
    with pytest.raises(ExperimentError) as err:
        load_plan(d)
    assert err.value.path == path and message in err.value.message


def test_bad_yaml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="invalid YAML"):
        load_plan("a: [\nb: 1\n")
    with pytest.raises(ExperimentError, match="cannot read"):
        load_plan(tmp_path / "missing.yaml")
