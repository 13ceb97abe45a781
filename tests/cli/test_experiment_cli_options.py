"""``kbatch experiment run`` as separate processes: ``--stop-when-finished``, ``--by``/``--group`` and a
parameter swept inside a mapping key, on one file; bad groupings are one line and exit code 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.cli.processes import kbatch_ok, kbatch_process
from tests.experiment.test_summary_group import teams


def _file(tmp_path: Path) -> Path:
    doc = teams()
    for generator in doc["spec"]["workloads"]:  # the label's key is swept: team / squad
        job = generator["template"]
        job["metadata"]["labels"] = {"${key}": job["metadata"]["labels"]["team"]}
    doc["spec"]["sweep"] = {"key": ["team", "squad"], "n": [1]}
    doc["spec"]["summary"] = {"x": "n"}
    path = tmp_path / "exp.yaml"
    YAML().dump(doc, path)
    return path


def test_early_stop_and_one_group_from_the_command_line(tmp_path: Path) -> None:
    path, state = _file(tmp_path), tmp_path / "state"
    full = json.loads(kbatch_ok(state, "experiment", "run", str(path), "-o", "json", "--jobs", "1"))
    early = json.loads(kbatch_ok(state, "experiment", "run", str(path), "-o", "json", "--jobs", "1",
                                 "--stop-when-finished"))
    assert [p["stopped_early"] for p in early["points"]] == [True, True]
    assert [p["stopped_early"] for p in full["points"]] == [False, False]
    for e, f in zip(early["points"], full["points"], strict=True):
        assert {**e, "stopped_early": False} == f  # no metric moved
    by_team = json.loads(kbatch_ok(state, "experiment", "run", str(path), "-o", "json", "--jobs", "1",
                                   "--by", "label=team", "--group", "b"))
    # the point whose label key is "team" has b's three Jobs; the "squad" point has no team label
    assert [(p["label"], p["workloads"]) for p in by_team["points"]] == [("key=team,n=1", 3),
                                                                         ("key=squad,n=1", 0)]
    table = kbatch_ok(state, "experiment", "run", str(path), "--jobs", "1", "--by", "label=squad",
                      "--group", "a", "--stop-when-finished")
    assert table.splitlines()[0] == "Experiment teams, group a of label=squad (seconds; mean / p90 / max)"


def test_early_stop_is_the_same_under_any_hash_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, outputs = _file(tmp_path), []
    for seed in ("1", "2"):  # separate interpreters: no dict or set order may decide the stop
        monkeypatch.setenv("PYTHONHASHSEED", seed)
        out = str(tmp_path / f"out-{seed}")
        outputs.append(kbatch_ok(tmp_path / "state", "experiment", "run", str(path), "-o", "json", "--jobs",
                                 "1", "--stop-when-finished", "--out", out, "--no-plots"))
    assert outputs[0] == outputs[1] and '"stopped_early": true' in outputs[0]
    for report in sorted((tmp_path / "out-1").rglob("report.json")):
        twin = tmp_path / "out-2" / report.relative_to(tmp_path / "out-1")
        assert report.read_bytes() == twin.read_bytes()


def test_a_bad_grouping_is_one_line(tmp_path: Path) -> None:
    res = kbatch_process(tmp_path / "state", "experiment", "run", str(_file(tmp_path)), "--by", "label=team")
    assert res.returncode == 1 and res.stdout == "" and "Traceback" not in res.stderr
    assert res.stderr == (f"error: {tmp_path / 'exp.yaml'}: spec.summary: give by and group together (the "
                          "group is one value of by) (sweep point key=team,n=1)\n")
