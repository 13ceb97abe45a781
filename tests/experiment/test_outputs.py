"""What an experiment writes: the same bytes with one worker or several, every point's report and
plots, the summary (table, CSV, JSON, plot); and the library's progress ticks."""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from kbatch.experiment import Tick, load_plan, run
from tests.experiment.test_examples import example


def small() -> dict:
    return example("seed002-fifo.yaml", 6, "3m", {"interval": [12, 20]})


def test_parallel_points_give_the_same_bytes(tmp_path: Path) -> None:
    run(small(), jobs=1, out=tmp_path / "one")
    run(small(), jobs=2, out=tmp_path)
    names = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()
                   and "one" not in p.relative_to(tmp_path).parts)
    for name in names:  # reports, plots and summary, byte for byte
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / name).read_bytes(), name
    assert names == sorted(["summary.json", "summary.csv", "summary.png"]
                           + [f"points/{d}/{f}" for d in ("0-interval=12", "1-interval=20")
                              for f in ("report.json", "utilisation.png", "queue.png", "durations.png",
                                        "gantt.png")])
    for png in tmp_path.rglob("*.png"):
        image = Image.open(io.BytesIO(png.read_bytes())).convert("L")
        assert image.size[0] >= 600 and image.size[1] >= 200
        low, high = image.getextrema()
        assert high - low > 100, f"{png} is blank"
    report = json.loads((tmp_path / "points/0-interval=12/report.json").read_text())
    assert [w["queueing_delay"] for w in report["workloads"]] == [0, 0, 0, 0, 24, 24]  # 72 - 4 * 12
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["x"] == "interval"
    assert [p["label"] for p in summary["points"]] == ["interval=12", "interval=20"]
    csv = (tmp_path / "summary.csv").read_text().splitlines()
    assert csv[0].startswith("point,interval,workloads,finished") and csv[1].startswith("0,12,6,6,")


def test_progress_ticks_reach_the_horizon() -> None:
    ticks: list[Tick] = []
    result = run(small(), jobs=1, progress=ticks.append)
    for point in (0, 1):
        mine = [t for t in ticks if t.point == point]
        assert [t.reached for t in mine] == sorted(t.reached for t in mine)
        assert mine[-1].reached == 180 and mine[-1].horizon == 180
        assert mine[-1].objects > 4 and mine[-1].writes > mine[0].writes
    assert result.rows[0]["finished"] == 6


def test_the_table_reads_like_the_talk() -> None:
    plan = load_plan(small())
    assert plan.parameters == ("interval",)
    table = run(small(), jobs=1, plots=False).table()
    lines = table.splitlines()
    assert lines[0] == "Experiment seed002-fifo (seconds; mean / p90 / max)"
    assert "INTERVAL" in lines[2] and "JCT" in lines[2] and "SCHED LAT" in lines[2]
    row20 = next(line for line in lines if line.startswith("│ 20 "))
    assert "73.0 / 73.0 / 73.0" in row20 and "0.0 / 0.0 / 0.0" in row20
