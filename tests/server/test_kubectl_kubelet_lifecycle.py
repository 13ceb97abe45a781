"""The simulated kubelet's container start and kill as kubectl (the real one) sees them against
``kbatch serve``: a container with a postStart hook stays ``ContainerCreating`` (the pod
``Pending``) until the hook returns, then shows ``running`` from its real start; a delete records
``Killing`` "Stopping container main" (upstream ``kuberuntime_container.go`` ``startContainer``,
``killContainer``). Virtual time moves only through ``kbatch advance``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "hooked"}, "spec": {
    "terminationGracePeriodSeconds": 10,
    "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", "sleep 3600"],
                    "lifecycle": {"postStart": {"sleep": {"seconds": 5}}}}]}}


def kb(served: Any, *args: str) -> None:
    try:
        main(["--server", served.url, *args])
    except SystemExit as exit_:
        assert not exit_.code, args


def test_post_start_hook_then_running_then_killing(served: Any) -> None:
    kb(served, "nodes", "add", "--count", "1")
    kubectl(served, "apply", "-f", "-", input_=json.dumps(POD))
    kb(served, "advance", "3s")
    pod = json.loads(kubectl(served, "get", "pod", "hooked", "-o", "json").stdout)
    (status,) = pod["status"]["containerStatuses"]
    assert pod["status"]["phase"] == "Pending"
    assert status["state"] == {"waiting": {"reason": "ContainerCreating"}}
    kb(served, "advance", "3s")
    pod = json.loads(kubectl(served, "get", "pod", "hooked", "-o", "json").stdout)
    (status,) = pod["status"]["containerStatuses"]
    assert pod["status"]["phase"] == "Running"
    assert status["state"]["running"]["startedAt"] == pod["status"]["startTime"]  # from before the hook
    kubectl(served, "delete", "pod", "hooked", "--wait=false")
    kb(served, "advance", "1s")
    events = json.loads(kubectl(served, "get", "events", "-o", "json").stdout)["items"]
    killing = [(e["type"], e["message"], e["involvedObject"].get("fieldPath")) for e in events
               if e["reason"] == "Killing" and e["involvedObject"]["name"] == "hooked"]
    assert killing == [("Normal", "Stopping container main", "spec.containers{main}")]
