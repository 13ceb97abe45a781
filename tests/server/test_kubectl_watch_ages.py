"""``kubectl get pods -w`` against ``kbatch serve``: the rows of changes an ``advance`` made carry the
ages of the instants they were committed at, as kube-apiserver fills each row's cells when it sends
it, at once (k8s.io/apiserver ``pkg/endpoints/handlers/watch.go``), not the later now they leave at;
``kbatch --server URL get pods -w`` prints the same rows."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
TIMEOUT = 60

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 30"]}]}}


def _watching(cmd: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout],  # type: ignore[union-attr]
                     daemon=True).start()
    return proc, lines


def _next_row(lines: queue.Queue[str], status: str) -> list[str]:
    while True:
        row = lines.get(timeout=TIMEOUT).split()
        if row[:1] == ["p"] and row[2] == status:
            return row


def test_rows_sent_after_an_advance_show_the_ages_of_their_changes(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "state") as server:
        cli = [sys.executable, "-m", "kbatch", "--server", server.url]
        subprocess.run([*cli, "nodes", "add"], check=True, capture_output=True, timeout=TIMEOUT)
        watches = [_watching([KUBECTL, "get", "pods", "-w", f"--request-timeout={TIMEOUT}s"], server.env()),
                   _watching([*cli, "get", "pods", "-w", "--request-timeout", f"{TIMEOUT}s"], server.env())]
        try:
            subprocess.run([KUBECTL, "create", "-f", "-"], env=server.env(), input=json.dumps(POD),
                           check=True, capture_output=True, text=True, timeout=TIMEOUT)
            for _, lines in watches:  # both watches are there before time moves
                assert _next_row(lines, "Pending")[-1] == "0s"
            subprocess.run([*cli, "advance", "2m"], check=True, capture_output=True, timeout=TIMEOUT)
            # committed 30 s after creation (sleep 30), sent once the 2-minute advance returned
            assert [_next_row(lines, "Completed")[-1] for _, lines in watches] == ["30s", "30s"]
        finally:
            for proc, _ in watches:
                proc.kill()
                proc.wait(timeout=TIMEOUT)
