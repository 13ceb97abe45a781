"""``spec.summary.by``/``group`` (``--by``/``--group``): each point's row reads one group of its report's
aggregates; the utilisation stays the cluster's; a group a point lacks reads as empty; bad values are
refused at their field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.experiment import ExperimentError, load_plan, run
from kbatch.experiment.summary import summary_csv, summary_row
from tests.experiment.test_early_stop import _sleeping_job


def teams(**summary: Any) -> dict[str, Any]:
    def generator(team: str, seconds: int, count: int) -> dict[str, Any]:
        job = _sleeping_job(seconds, 8)
        job["metadata"]["labels"] = {"team": team}
        return {"name": team, "count": count, "arrival": {"interval": 100}, "template": job}

    return {"apiVersion": "kbatch.dev/v1alpha1", "kind": "Experiment", "metadata": {"name": "teams"},
            "spec": {"nodes": [{"count": 2, "gpu": 8}], "horizon": "10m", "sweep": {"n": [1, 2]},
                     "workloads": [generator("a", 10, 2), generator("b", "${n}0", 3)],
                     "summary": {"x": "n", **summary}}}


def test_rows_read_one_group() -> None:
    result = run(teams(by="label=team", group="b"), jobs=1, plots=False)
    assert [r["group"] for r in result.rows] == ["b", "b"]
    assert [r["workloads"] for r in result.rows] == [3, 3]  # b's three, not all five
    assert [r["durations"]["completion_time"]["mean"] for r in result.rows] == [11.0, 21.0]
    everything = run(teams(), jobs=1, plots=False)
    assert [r["workloads"] for r in everything.rows] == [5, 5] and everything.rows[0]["group"] == "all"
    assert [r["utilisation"] for r in result.rows] == [r["utilisation"] for r in everything.rows]
    assert result.points[0].report["by"] == "label=team"
    assert result.table().splitlines()[0] == ("Experiment teams, group b of label=team "
                                              "(seconds; mean / p90 / max)")
    assert result.to_dict()["by"] == "label=team" and result.to_dict()["group"] == "b"
    header = summary_csv(result.rows).splitlines()[0].split(",")
    assert header[:3] == ["point", "n", "workloads"] and header[-2:] == ["group", "stopped_early"]


def test_the_library_and_cli_override_the_file() -> None:
    plan = load_plan(teams(by="label=team", group="b"), summary={"group": "a"})
    assert plan.points[0].experiment.spec.summary.group == "a"
    result = run(teams(), jobs=1, plots=False, summary={"by": "label=team", "group": "a"})
    assert [r["durations"]["completion_time"]["mean"] for r in result.rows] == [11.0, 11.0]


def test_a_group_without_workloads_reads_as_empty() -> None:
    report = {"summary": [{"group": "a", "workloads": 2, "finished": 2}, {"group": "all", "workloads": 2}]}
    row = summary_row(0, "default", (), report, group="c")
    assert row["workloads"] == 0 and row["durations"]["completion_time"]["mean"] is None


@pytest.mark.parametrize(("summary", "path", "message"), [
    ({"by": "colour", "group": "x"}, "spec.summary", 'invalid by "colour"'),
    ({"by": "label=team"}, "spec.summary", "together"),
    ({"group": "b"}, "spec.summary", "together"),
])
def test_bad_groupings_name_the_field(summary: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(ExperimentError) as err:
        load_plan(copy.deepcopy(teams(**summary)))
    assert err.value.path == path and message in err.value.message
