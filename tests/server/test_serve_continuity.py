"""``kbatch serve`` on a state directory continues the saved control plane and leaves it for the next
command to continue (issue 15): CLI commands, a served stretch and CLI commands again are the same run
as the same steps through the CLI alone — the same pods at the same times."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from kbatch.server.process import ServeProcess

CLOCK_PATH = "/apis/kbatch.dev/v1alpha1/clock"
POD = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sleeper", "namespace": "default"},
                  "spec": {"restartPolicy": "Never",
                           "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]}})


def _kbatch(state: Path, *args: str, input_: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), *args], input=input_,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _outcome(state: Path) -> tuple[str, str]:
    pods = _kbatch(state, "get", "pods", "-o", "json")
    return pods, _kbatch(state, "trace", "--digest")


def _without_versions(pods: str) -> object:
    doc = json.loads(pods)
    for item in doc["items"]:
        item["metadata"].pop("resourceVersion", None)
        for field in item["metadata"].get("managedFields") or ():
            field.pop("time", None)
    doc.get("metadata", {}).pop("resourceVersion", None)
    return doc


def test_a_pod_running_across_a_served_stretch_finishes_as_in_one_cli_run(tmp_path: Path) -> None:
    served, plain = tmp_path / "served", tmp_path / "plain"
    for state in (served, plain):
        _kbatch(state, "nodes", "add", "--count", "1")
        _kbatch(state, "apply", "-f", "-", input_=POD)
        _kbatch(state, "advance", "10m")
    server = ServeProcess(served, "--clock", "virtual").start()
    try:
        answer = httpx.post(server.url + CLOCK_PATH, json={"advance": "10m"}, timeout=60)
    finally:
        assert server.stop() == 0, "".join(server.output)
    assert answer.status_code == 200, answer.text
    _kbatch(plain, "advance", "10m")
    for state in (served, plain):
        _kbatch(state, "advance", "45m")
    pods, _ = _outcome(served)
    pod = json.loads(pods)["items"][0]
    assert pod["status"]["phase"] == "Succeeded", "started at 0:00, a 60-minute sleep is over at 1:05"
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated["startedAt"] == "2025-01-01T00:00:00Z"
    assert terminated["finishedAt"] == "2025-01-01T01:00:00Z"
    # kbatch serve points kube-public/cluster-info at its URL when it starts (one more write than the
    # CLI alone makes): resourceVersions and the digest differ by that write, nothing else does
    assert _without_versions(pods) == _without_versions(_outcome(plain)[0])
