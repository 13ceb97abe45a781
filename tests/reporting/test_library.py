"""``kbatch.report(cp)`` on a running control plane, and the CLI's start-up without matplotlib."""

from __future__ import annotations

import json
import subprocess
import sys

import kbatch
from kbatch.sim.nodes import NodeTemplate, create_nodes


def _job(name: str, seconds: int, gpus: int) -> str:
    return f"""
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}}}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sleep, "{seconds}"]
        resources: {{requests: {{nvidia.com/gpu: "{gpus}"}}, limits: {{nvidia.com/gpu: "{gpus}"}}}}
"""


def test_report_of_a_control_plane() -> None:
    cp = kbatch.ControlPlane()
    create_nodes(cp, 2, NodeTemplate(gpus=8))
    cp.apply(_job("pair", 40, 8))  # two pods, one node each
    cp.apply(_job("waits", 10, 8))  # waits for both nodes
    cp.advance(200)
    report = kbatch.report(cp)
    pair, waits = report.workloads
    assert (pair.name, pair.pods, pair.completion_time, pair.queueing_delay) == ("pair", 2, 41, 0)
    assert pair.all_running == pair.created
    assert (waits.name, waits.queueing_delay) == ("waits", 40)  # scheduled as soon as pair's pods end
    assert report.end == cp.now()  # open intervals close at the control plane's now
    doc = report.to_dict()
    json.dumps(doc)  # plain records
    assert [w["name"] for w in doc["workloads"]] == ["pair", "waits"] and len(doc["pods"]) == 4
    waits_pods = [p for p in doc["pods"] if p["name"].startswith("waits-")]
    assert doc["workloads"][1]["all_running_s"] == max(p["started_s"] for p in waits_pods)
    assert waits.completion_time >= max(p["finished_s"] for p in waits_pods)  # type: ignore[operator]
    assert kbatch.report([], by="kind").workloads == ()


def test_plain_report_does_not_load_matplotlib(tmp_path) -> None:
    code = ("import sys; from kbatch.cli import main\n"
            "try:\n    main(['--state', sys.argv[1], 'report', '-o', 'json'])\n"
            "except SystemExit:\n    pass\n"
            "print('matplotlib' in sys.modules, 'kbatch.reporting.plots' in sys.modules, file=sys.stderr)")
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip().splitlines()[-1] == "False False"
    assert json.loads(res.stdout)["workloads"] == []
