"""``kbatch --etcd-servers URL …``: local CLI commands on a state kept in etcd, beside ``kbatch serve
--etcd-servers`` processes (issue 20). A command is one more API server on etcd with no controllers:
its writes are served to the other processes at once, the elected server's controllers act on them,
and what needs a state directory or a virtual clock is refused with a clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kbatch.testing.etcd import EtcdProcess
from tests.server import test_serve_etcd as on_etcd
from tests.server.test_serve_etcd import JOBS, Server, wait_until

serve = on_etcd.serve  # the fixture: `kbatch serve --etcd-servers` processes on the test's etcd

JOB = json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "from-cli"},
                  "spec": {"completions": 2, "parallelism": 2, "template": {"spec": {
                      "restartPolicy": "Never",
                      "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "1"]}]}}}})


def _kbatch(etcd: EtcdProcess, tmp_path: Path, *args: str, input_: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(tmp_path / "cli"), *args,
                           "--etcd-servers", etcd.url], input=input_, capture_output=True, text=True,
                          timeout=120)


def test_cli_commands_on_etcd_are_served_and_reconciled_by_the_leader(
        etcd: EtcdProcess, tmp_path: Path, serve: Callable[..., Server]) -> None:
    created = _kbatch(etcd, tmp_path, "apply", "-f", "-", input_=JOB)
    assert created.returncode == 0 and "job.batch/from-cli created" in created.stdout, created.stderr
    listed = _kbatch(etcd, tmp_path, "get", "jobs")
    assert listed.returncode == 0 and "from-cli" in listed.stdout, listed.stderr
    assert not (tmp_path / "cli" / "state.kbatch").exists(), "nothing is kept in the state directory"
    server = serve()
    assert server.get(f"{JOBS}/from-cli").status_code == 200, "the server reads what the command wrote"
    added = _kbatch(etcd, tmp_path, "nodes", "add", "--count", "1")
    assert added.returncode == 0, added.stderr

    def complete() -> bool:
        done = _kbatch(etcd, tmp_path, "get", "job", "from-cli", "-o", "json")
        conditions = json.loads(done.stdout).get("status", {}).get("conditions", [])
        return any(c["type"] == "Complete" and c["status"] == "True" for c in conditions)

    wait_until(complete, 90, "the leader's controllers run the Job the CLI created", step=0.5)


def test_what_needs_a_state_directory_or_virtual_time_is_refused_clearly(
        etcd: EtcdProcess, tmp_path: Path) -> None:
    for args, says in ((("advance", "1m"), "real clock"), (("reset",), "etcdctl snapshot"),
                       (("trace",), "state is etcd's"), (("--controllers", "job", "get", "pods"),
                                                         "runs no controllers")):
        run = _kbatch(etcd, tmp_path, *args)
        assert run.returncode == 1 and says in run.stderr, (args, run.stderr)
        assert "Traceback" not in run.stderr


def test_get_watch_on_etcd_prints_what_other_processes_write(etcd: EtcdProcess, tmp_path: Path) -> None:
    """``kbatch --etcd-servers URL get jobs -w`` watches, as ``kubectl get -w`` does: etcd is shared, so
    another process's write is a change to print. It used to print the list and exit, as for a
    local state directory (which no one else can change)."""
    import os
    import signal
    import threading

    first = _kbatch(etcd, tmp_path, "apply", "-f", "-", input_=JOB)
    assert first.returncode == 0, first.stderr
    # -X faulthandler: should the interrupted watcher hang, SIGABRT makes it print every thread's stack
    watcher = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "kbatch.cli", "--state",
                                str(tmp_path / "cli"), "get", "jobs", "-w", "--request-timeout", "2m",
                                "--etcd-servers", etcd.url],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(watcher.stdout.readline, "")),  # type: ignore[union-attr]
                              daemon=True)
    reader.start()
    try:
        wait_until(lambda: any(line.startswith("from-cli") for line in lines), 60, "the initial list")
        second = _kbatch(etcd, tmp_path, "apply", "-f", "-", input_=JOB.replace("from-cli", "later"))
        assert second.returncode == 0, second.stderr
        wait_until(lambda: any(line.startswith("later ") for line in lines), 60,
                   "the Job another process created, as a watch event")
    finally:
        os.kill(watcher.pid, signal.SIGINT)
        try:
            code = watcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            watcher.send_signal(signal.SIGABRT)
            _, stderr = watcher.communicate(timeout=30)
            pytest.fail(f"the watcher did not end on SIGINT; its threads:\n{stderr}")
    reader.join(timeout=10)
    assert code == 0, watcher.stderr.read() if watcher.stderr else ""  # interrupted: a clean end, as kubectl
    assert lines[0].split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
