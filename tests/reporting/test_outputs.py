"""The report's outputs: JSON and CSV records, the table, the PNG plots and the HTML page."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path

import pytest

from kbatch.reporting import build_report
from kbatch.reporting.plots import PLOTS, write_plots
from kbatch.reporting.render import render
from tests.reporting.builders import job, node, pod


def _report():
    a, b = job("a", 0, started=0, complete=73), job("b", 5, started=5, complete=150)
    return build_report([node("node-0", gpu=8), node("node-1", gpu=8), a, b,
                         pod("a-x", 0, owner=a, node_name="node-0", scheduled=0, started=0, finished=72,
                             requests={"nvidia.com/gpu": "8"}),
                         pod("b-x", 5, owner=b, node_name="node-1", scheduled=40, started=41, finished=149,
                             requests={"nvidia.com/gpu": "4", "cpu": "1"}, restarts=2)], by="namespace")


def test_json_is_plain_records() -> None:
    doc = json.loads(render(_report(), "json"))
    rows = {w["name"]: w for w in doc["workloads"]}
    assert rows["a"]["completion_time"] == 73 and rows["b"]["queueing_delay"] == 35
    assert rows["b"]["first_scheduled"] == "2025-01-01T00:00:40Z" and rows["b"]["first_scheduled_s"] == 40
    assert rows["b"]["restarts"] == 2
    assert [g["group"] for g in doc["summary"]] == ["default", "all"]
    assert doc["summary"][1]["durations"]["completion_time"]["p50"] == pytest.approx((73 + 145) / 2)
    assert doc["cluster"]["makespan"] == 150
    assert doc["cluster"]["utilisation"]["nvidia.com/gpu"]["ratio"][0] == [0, 0.5]


def test_csv_has_one_row_per_workload() -> None:
    rows = list(csv.DictReader(io.StringIO(render(_report(), "csv"))))
    assert [(r["name"], r["outcome"], r["completion_time"]) for r in rows] == [("a", "Succeeded", "73.0"),
                                                                                 ("b", "Succeeded", "145.0")]
    assert rows[0]["queue"] == ""


def test_table_shows_workloads_aggregates_and_cluster() -> None:
    text = render(_report(), "table")
    assert "Workloads (seconds)" in text and "Aggregates (seconds) by namespace" in text
    assert re.search(r"│ default\s+│ b\s+│ Job\s+│ Succeeded │ 1\s+│ -\s+│\s+145\.0 │\s+35\.0 │", text)
    assert "makespan" in text and "150.0 s" in text and "nvidia.com/gpu utilisation" in text
    assert "Workloads" not in render(_report(), "table", workloads=False)
    from kbatch.reporting.render import render_table

    short = render_table(_report(), max_rows=1)
    assert "│ a " in short and "│ b " not in short and "... and 1 more workloads (-o csv" in short
    with pytest.raises(ValueError, match="allowed formats are: table,json,csv"):
        render(_report(), "yaml")


def _check_png(data: bytes) -> None:
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size[0] >= 600 and image.size[1] >= 200
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 20  # lines, text and fills, not a blank canvas
    white = sum(n for n, c in colours if c == (255, 255, 255))
    assert white < 0.97 * image.size[0] * image.size[1]


def test_plots_render(tmp_path: Path) -> None:
    paths = write_plots(_report(), tmp_path / "plots")
    assert [p.name for p in paths] == [f"{name}.png" for name in PLOTS]
    for path in paths:
        _check_png(path.read_bytes())


def test_plots_of_an_empty_report_still_render(tmp_path: Path) -> None:
    for path in write_plots(build_report([]), tmp_path):
        _check_png(path.read_bytes())


def test_html_is_self_contained() -> None:
    from kbatch.reporting.html import render_html

    page = render_html(_report())
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert not re.search(r"(src|href)=\"(?!data:)", page)  # nothing loaded from elsewhere
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == len(PLOTS)
    for data in images:
        _check_png(base64.b64decode(data))
    assert "<td>b</td>" in page and "145.00" in page


def test_utilisation_per_node_group(tmp_path: Path) -> None:
    from tests.reporting.builders import node as make_node

    a100, h100 = make_node("a", gpu=8), make_node("h", gpu=4)
    a100["metadata"]["labels"] = {"flavor": "a100"}
    h100["metadata"]["labels"] = {"flavor": "h100"}
    j = job("j", 0, started=0, complete=11)
    report = build_report([a100, h100, make_node("plain", cpu="2"), j,
                           pod("p", 0, owner=j, node_name="h", scheduled=0, started=0, finished=10,
                               requests={"nvidia.com/gpu": "2"})], node_group="flavor")
    groups = {g: {u.resource: u for u in series} for g, series in report.utilisation_by_node_group}
    assert sorted(groups) == ["<none>", "a100", "h100"]
    assert groups["h100"]["nvidia.com/gpu"].ratio[0].value == 0.5
    assert groups["a100"]["nvidia.com/gpu"].ratio[0].value == 0
    assert next(u for u in report.utilisation if u.resource == "nvidia.com/gpu").ratio[0].value == 2 / 12
    doc = json.loads(render(report, "json"))
    assert doc["cluster"]["utilisation_by_node_group"]["h100"]["nvidia.com/gpu"]["mean"] == pytest.approx(
        10 / 11 * 0.5, abs=1e-6)  # records round to 6 decimals
    assert "nvidia.com/gpu utilisation [flavor=h100]" in render(report, "table")
    paths = write_plots(report, tmp_path)
    assert paths[-1].name == "utilisation_by_node_group.png"
    _check_png(paths[-1].read_bytes())
