"""``kbatch report`` as separate processes on one state directory: a DRA pod's devices count for the
time it held them although its claim was deleted when it finished (read from the state's trace),
per driver and per DeviceClass; ``-f`` files of the final objects cannot know them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.processes import kbatch_ok

ROOT = Path(__file__).resolve().parents[2]


def test_finished_dra_pods_count_per_driver_and_class(tmp_path: Path) -> None:
    state = tmp_path / "state"
    kbatch_ok(state, "nodes", "add", "--count", "2", "--gpu", "4", "--gpu-driver", "gpu.example.com")
    kbatch_ok(state, "apply", "-f", str(ROOT / "examples" / "dra" / "gpu-pod.yaml"))
    kbatch_ok(state, "advance", "2m")  # the pod runs 30 s; its claim is deleted after
    assert json.loads(kbatch_ok(state, "get", "resourceclaims", "-A", "-o", "json"))["items"] == []
    report = json.loads(kbatch_ok(state, "report", "-o", "json"))
    utilisation = report["cluster"]["utilisation"]
    for resource in ("devices/gpu.example.com", "deviceclass/gpu"):
        assert utilisation[resource]["used"] == [[0, 1], [30, 0]], resource
        assert utilisation[resource]["capacity"] == [[0, 8]]
    table = kbatch_ok(state, "report", "--summary")
    assert "deviceclass/gpu utilisation" in table and "devices/gpu.example.com utilisation" in table
    objects = kbatch_ok(state, "get", "pods,nodes,resourceslices,deviceclasses", "-A", "-o", "json")
    (tmp_path / "run.json").write_text(objects)
    from_files = json.loads(kbatch_ok(state, "report", "-f", str(tmp_path / "run.json"), "-o", "json"))
    assert "devices/gpu.example.com" not in from_files["cluster"]["utilisation"]  # the claim is gone there
