"""``kbatch experiment run`` through the real entry point, and the progress bars of long spans: drawn
on a terminal (a pseudo-terminal here), absent when piped, the printed result the same either way."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.cli.conftest import Kbatch
from tests.experiment.test_examples import example

ROOT = Path(__file__).resolve().parents[2]


def small_file(tmp_path: Path) -> Path:
    path = tmp_path / "exp.yaml"
    YAML().dump(example("seed002-fifo.yaml", 5, "4m", {"interval": [10, 20]}), path)
    return path


def test_run_writes_reports_and_prints_the_summary(kb: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = kb("experiment", "run", str(small_file(tmp_path)), "--out", str(out), "--jobs", "1")
    assert res.code == 0, res.err
    assert res.err == f"wrote 13 files under {out}\n"  # piped: no progress bar, only this line
    lines = res.out.splitlines()
    assert lines[0] == "Experiment seed002-fifo (seconds; mean / p90 / max)"
    assert any(line.startswith("│ 20 ") and "5/5" in line for line in lines)
    assert (out / "points/1-interval=20/report.json").is_file() and (out / "summary.png").is_file()
    text = kb.ok("experiment", "run", str(small_file(tmp_path)), "-o", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["interval"] for r in rows] == ["10", "20"]
    assert [float(r["queueing_delay_max"]) for r in rows] == [32.0, 0.0]  # 72 - 4 * 10
    doc = json.loads(kb.ok("experiment", "run", str(small_file(tmp_path)), "-o", "json", "--jobs", "2"))
    assert [p["durations"]["completion_time"]["max"] for p in doc["points"]] == [105.0, 73.0]


def test_a_bad_file_is_one_line_and_nothing_written(kb: Any, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    doc = example("seed002-fifo.yaml", 5, "2m")
    doc["spec"]["workloads"][0]["arrival"] = {"interval": "${interval}", "poisson": {"mean": 3}}
    YAML().dump(doc, path)
    res = kb("experiment", "run", str(path), "--out", str(tmp_path / "out"))
    assert res.code == 1 and res.out == ""
    assert res.err == (f"error: {path}: spec.workloads[0].arrival: give exactly one of interval, poisson, "
                       "trace (got interval, poisson) (sweep point interval=17)\n")
    assert not (tmp_path / "out").exists()
    res = kb("experiment", "run", str(tmp_path / "missing.yaml"))
    assert res.code == 1 and res.err.startswith("error: ") and res.err.count("\n") == 1


def _on_a_terminal(state: Path, *args: str) -> tuple[str, str, int]:
    """Run the CLI in a child process whose stderr is a pseudo-terminal: (stdout, terminal, code)."""
    env = os.environ | {"PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    argv = [sys.executable, "-m", "kbatch", "--state", str(state), *args]
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, env=env, text=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read() if proc.stdout else ""
    code = proc.wait(timeout=300)
    os.close(master)
    return out, b"".join(chunks).decode(errors="replace"), code


def test_long_spans_draw_a_bar_on_a_terminal_and_nothing_when_piped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    piped_kb, tty_state = Kbatch(tmp_path / "a", capsys), tmp_path / "b"
    container = {"name": "c", "image": "busybox", "command": ["sleep", "5400"]}
    pod = {"restartPolicy": "Never", "containers": [container]}
    job = json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
                      "spec": {"template": {"spec": pod}}})
    for kb in (piped_kb, Kbatch(tty_state, capsys)):
        kb.ok("nodes", "add")
        kb.ok("apply", "-f", "-", input_=job)
    piped = piped_kb("wait", "job/pi", "--for", "condition=Complete", "--timeout", "3h")
    drawn = _on_a_terminal(tty_state, "wait", "job/pi", "--for", "condition=Complete", "--timeout", "3h")
    assert (piped.out, piped.err, piped.code) == ("job.batch/pi condition met\n", "", 0)
    assert drawn[0] == piped.out and drawn[2] == 0  # the result is the same
    assert "waiting 3h" in drawn[1] and "objects" in drawn[1]
    piped = piped_kb("advance", "1h")
    drawn = _on_a_terminal(tty_state, "advance", "1h")
    assert (piped.out, piped.err) == ("advanced 1h to 2025-01-01T02:30:01Z\n", "")
    assert drawn[0] == piped.out and "advancing 1h" in drawn[1]
    assert Kbatch(tty_state, capsys).ok("get", "jobs") == piped_kb.ok("get", "jobs")  # the same state


def test_experiment_progress_on_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = small_file(tmp_path)
    piped = Kbatch(tmp_path / "unused", capsys)("experiment", "run", str(path), "--jobs", "2")
    drawn = _on_a_terminal(tmp_path / "unused", "experiment", "run", str(path), "--jobs", "2")
    assert piped.err == "" and drawn[2] == 0
    assert drawn[0] == piped.out  # the same summary
    assert "interval=10" in drawn[1] and "interval=20" in drawn[1] and "of 4m" in drawn[1]


def test_node_capacities_are_quantities_numbers_included(kb: Any, tmp_path: Path) -> None:
    """``nodes: [{cpu: 4}]`` is a quantity, as in any Kubernetes manifest (apimachinery's
    ``Quantity.UnmarshalJSON`` reads a JSON number); a value that is no quantity is one line naming the
    field, not the Node model's validation dump."""
    doc = example("seed002-fifo.yaml", 2, "3m")
    doc["spec"]["nodes"] = [{"count": 4, "gpu": 8, "cpu": 4, "memory": 16}]
    path = tmp_path / "numbers.yaml"
    YAML().dump(doc, path)
    res = kb("experiment", "run", str(path), "-o", "json", "--jobs", "1")
    assert res.code == 0, res.err
    assert [p["finished"] for p in json.loads(res.out)["points"]] == [2, 2, 2, 2]
    doc["spec"]["nodes"] = [{"count": 4, "gpu": 8, "cpu": "lots"}]
    YAML().dump(doc, path)
    res = kb("experiment", "run", str(path))
    assert res.code == 1 and res.out == ""
    assert res.err == (f"error: {path}: spec.nodes[0].cpu: quantities must match the regular expression "
                       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (sweep point interval=17)\n")


def test_an_out_directory_that_cannot_be_written_is_one_line(kb: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = blocker / "sub"  # under a regular file: mkdir fails (ENOTDIR), as for a read-only place
    res = kb("experiment", "run", str(small_file(tmp_path)), "--out", str(out), "--jobs", "1", "--no-plots")
    assert res.code == 1 and res.out == ""
    assert res.err == f"error: cannot write {out}: Not a directory\n"


def test_a_node_the_api_server_refuses_is_one_line_naming_the_node_group(kb: Any, tmp_path: Path) -> None:
    """A node label the API server refuses (``a b``: not a qualified name) printed the Node's
    ``Invalid`` Status without the file or the experiment field; now ``error: FILE: spec.nodes[0]: …``."""
    doc = example("seed002-fifo.yaml", 2, "3m")
    doc["spec"]["nodes"] = [{"count": 1, "gpu": 8, "labels": {"a b": "c"}}]
    path = tmp_path / "labels.yaml"
    YAML().dump(doc, path)
    res = kb("experiment", "run", str(path), "--jobs", "1", "--out", str(tmp_path / "out"))
    assert res.code == 1 and res.out == "" and res.err.count("\n") == 1
    assert res.err.startswith(f'error: {path}: spec.nodes[0]: Node "node-0" is invalid: metadata.labels: '
                              'Invalid value: "a b": ')
    assert not (tmp_path / "out").exists()
