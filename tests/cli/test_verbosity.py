"""Controller logs stay off the terminal unless ``-v`` asks for them (``kbatch/cli/verbosity.py``).

Upstream a failed reconcile is logged by kube-controller-manager (``klog``), not printed to the
kubectl user, who sees the controller's events; kubectl's ``-v, --v Level`` turns on logs. A user
running jobset's ``site/static/examples/simple/exclusive-placement.yaml`` on unlabelled nodes saw
dozens of ``job: reconcile ... failed (...); retry in ...`` lines from ``kbatch advance``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.cli import main
from kbatch.cli.verbosity import log_level
from tests.cli.runners import ROOT, TIMEOUT

EXCLUSIVE = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: exclusive-placement
  annotations:
    alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool
spec:
  replicatedJobs:
  - name: workers
    replicas: 3
    template:
      spec:
        parallelism: 3
        completions: 3
        template:
          spec:
            containers:
            - {name: sleep, image: busybox, command: [sleep], args: [1000s]}
"""
RETRY = "failed (Forbidden: admission webhook"


def _run(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


@pytest.fixture
def stuck(tmp_path: Path, capsys: Any) -> str:
    """A state whose Job controller keeps failing: the followers wait for leaders that cannot be
    placed (no node has the topology key)."""
    state = str(tmp_path / "state")
    manifest = tmp_path / "js.yaml"
    manifest.write_text(EXCLUSIVE)
    assert _run("--state", state, "nodes", "add", "--count", "3") == 0
    assert _run("--state", state, "apply", "-f", str(manifest)) == 0
    capsys.readouterr()
    return state


def _process(*args: str) -> subprocess.CompletedProcess[str]:
    """A separate ``kbatch`` process: pytest's own log capture cannot hide what it prints."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kbatch.cli", *args], capture_output=True, text=True,
                          env=env, timeout=TIMEOUT, check=False)


def test_advance_prints_no_controller_logs_by_default(stuck: str) -> None:
    quiet = _process("--state", stuck, "advance", "30s")
    assert quiet.returncode == 0 and quiet.stdout.startswith("advanced 30s")
    assert quiet.stderr == ""
    loud = _process("--state", stuck, "advance", "30s", "-v", "1")
    assert loud.returncode == 0 and RETRY in loud.stderr


# kubectl (pflag) takes the shorthand with "=" too: -v=4 (spf13/pflag parseSingleShortArg)
@pytest.mark.parametrize("flag", [["-v", "1"], ["--v=2"], ["--v", "1"], ["-v=1"]])
def test_v_shows_the_failed_reconciles(stuck: str, capsys: Any, flag: list[str]) -> None:
    assert _run("--state", stuck, "advance", "30s", *flag) == 0
    err = capsys.readouterr().err
    assert RETRY in err and "retry in" in err
    assert _run("--state", stuck, "advance", "30s") == 0  # the next command is quiet again
    assert capsys.readouterr().err == ""


def test_log_levels_follow_klog_verbosity() -> None:
    levels = [log_level(v) for v in range(7)]
    assert levels == sorted(levels, reverse=True)  # more -v never shows less
    assert log_level(0) > log_level(0, component=True) == log_level(1)


def test_v_with_equals_before_the_command(stuck: str, capsys: Any) -> None:
    assert _run("-v=1", "--state", stuck, "advance", "30s") == 0
    assert RETRY in capsys.readouterr().err
