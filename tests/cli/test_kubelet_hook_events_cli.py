"""The kubelet's kill events as ``kbatch describe pod`` shows them, each command a separate process
on one state directory: ``Killing`` "Stopping container main" when the delete reaches the kubelet,
``FailedPreStopHook`` only when the hook fails, three seconds later (upstream
``kuberuntime_container.go`` ``killContainer``, ``executePreStopHook``)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok

POD = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: main
    image: busybox
    command: [sh, -c, "sleep 3600"]
    lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 3; exit 1"]}}}
"""


def _events(state: Path) -> str:
    """The ``Events:`` section of ``kbatch describe pod p``."""
    described = kbatch_ok(state, "describe", "pod", "p")
    return described[described.index("Events:"):]


def test_describe_shows_killing_at_the_delete_and_the_failed_hook_when_it_fails(tmp_path: Path) -> None:
    kbatch_ok(tmp_path, "nodes", "add", "--count", "1")
    (tmp_path / "pod.yaml").write_text(POD)
    kbatch_ok(tmp_path, "apply", "-f", str(tmp_path / "pod.yaml"))
    kbatch_ok(tmp_path, "advance", "5s")
    kbatch_ok(tmp_path, "delete", "pod", "p")
    kbatch_ok(tmp_path, "advance", "2s")
    early = _events(tmp_path)
    assert "Killing" in early and "Stopping container main" in early
    assert "FailedPreStopHook" not in early
    kbatch_ok(tmp_path, "advance", "2s")
    late = _events(tmp_path)
    assert "FailedPreStopHook" in late and "PreStopHook failed" in late
