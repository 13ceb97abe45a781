"""``kubectl logs -f`` (the real kubectl, v1.32 here) against ``kbatch serve``: the log streams as
virtual time moves and the stream ends when the container does.

kubectl asks for ``pods/NAME/log?follow=true`` and prints what arrives until the body ends
(k8s.io/kubectl ``pkg/cmd/logs/logs.go``, ``DefaultConsumeRequest``); the kubelet writes each line as
the container writes it and ends the stream when the container stops running
(k8s.io/kubernetes ``pkg/kubelet/kuberuntime/logs/logs.go`` ``ReadLogs``). Each test reads kubectl's
first line before moving the clock, so kubectl is connected and following when time moves.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, TIMEOUT, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

TALKER = "echo one; sleep 10; echo two; sleep 10; echo three"


def kb(served: Any, *args: str) -> None:
    try:
        main(["--server", served.url, *args])
    except SystemExit as exit_:
        assert not exit_.code, args


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    kb(served, "nodes", "add", "--count", "1")
    return served


class Follower:
    """``kubectl ARGS`` in the background, its stdout read line by line with a bounded wait."""

    def __init__(self, served: Any, *args: str) -> None:
        self.proc = subprocess.Popen([KUBECTL, *args], env=served.env(), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put("")  # EOF: kubectl's body ended

    def line(self) -> str:
        return self.lines.get(timeout=TIMEOUT)

    def finish(self) -> tuple[int, str]:
        _, err = self.proc.communicate(timeout=TIMEOUT)
        return self.proc.returncode, err


def _pod(name: str, script: str) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                       "spec": {"restartPolicy": "Never", "containers": [
                           {"name": "c", "image": "busybox", "command": ["sh", "-c", script]}]}})


def test_logs_follow_streams_lines_as_virtual_time_moves_and_ends_with_the_container(cluster: Any) -> None:
    kubectl(cluster, "create", "-f", "-", input_=_pod("talker", TALKER))
    kb(cluster, "advance", "1s")
    follower = Follower(cluster, "logs", "-f", "talker")
    try:
        assert follower.line() == "one\n"
        kb(cluster, "advance", "10s")
        assert follower.line() == "two\n"
        kb(cluster, "advance", "10s")
        assert follower.line() == "three\n"
        kb(cluster, "advance", "10s")  # the command has ended: the container terminates
        assert follower.line() == ""
        assert follower.finish() == (0, "")
    finally:
        follower.proc.kill()


def test_logs_follow_a_job_with_tail_and_timestamps(cluster: Any) -> None:
    kubectl(cluster, "create", "job", "chatty", "--image=busybox", "--", "sh", "-c", TALKER)
    kb(cluster, "advance", "12s")
    # tailLines cuts what is there when the stream starts; later lines all follow
    follower = Follower(cluster, "logs", "-f", "job/chatty", "--tail=1", "--timestamps")
    try:
        first = follower.line()
        assert first.endswith(" two\n") and first[:30].endswith("Z")
        kb(cluster, "advance", "10s")
        assert follower.line().endswith(" three\n")
        kb(cluster, "advance", "10s")
        assert follower.line() == ""
        assert follower.finish()[0] == 0
    finally:
        follower.proc.kill()


def test_logs_follow_since_skips_the_older_lines(cluster: Any) -> None:
    kubectl(cluster, "create", "-f", "-", input_=_pod("since", TALKER))
    kb(cluster, "advance", "15s")
    follower = Follower(cluster, "logs", "-f", "since", "--since=10s")  # "one" is 15 s old, "two" 5 s
    try:
        assert follower.line() == "two\n"
        kb(cluster, "advance", "10s")
        assert follower.line() == "three\n"
        kb(cluster, "advance", "10s")
        assert follower.line() == ""
    finally:
        follower.proc.kill()


def test_logs_follow_ends_with_the_run_when_the_container_restarts(cluster: Any) -> None:
    # the kubelet follows one container's log file: a restart is a new container, a new stream
    kubectl(cluster, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "restarter"},
        "spec": {"restartPolicy": "OnFailure", "containers": [
            {"name": "c", "image": "busybox",
             "command": ["sh", "-c", "echo try; sleep 10; echo again; exit 1"]}]}}))
    kb(cluster, "advance", "1s")
    follower = Follower(cluster, "logs", "-f", "restarter")
    try:
        assert follower.line() == "try\n"
        kb(cluster, "advance", "30s")
        assert follower.line() == "again\n"
        assert follower.line() == ""
        assert follower.finish()[0] == 0
    finally:
        follower.proc.kill()
    assert json.loads(kubectl(cluster, "get", "pod", "restarter", "-o", "json").stdout)[
        "status"]["containerStatuses"][0]["restartCount"] >= 1
